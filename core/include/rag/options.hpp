#pragma once
// A plugin's options: a YAML mapping read key by key. Every key read is remembered, so that
// `finish()` can reject the ones nobody asked for, naming the file, the key and what is allowed,
// and so that `effective()` can tell every option the plugin uses, defaults filled in.
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "rag/error.hpp"

namespace rag {

/// The shortest text that reads back as `value` ("0.2", not "0.20000000000000001").
std::string shortest_text(double value);

class Options {
 public:
  /// `where` names the place for messages, e.g. "configs/default.yaml: retriever.options".
  /// An undefined or null node is an empty mapping; anything else that is not a mapping throws.
  Options(YAML::Node node, std::string where);

  bool has(std::string_view key) const;

  /// The value of `key` converted to T, or `fallback` when the key is absent.
  template <class T>
  T get(std::string_view key, T fallback) {
    const YAML::Node value = lookup(key);
    if (!value.IsDefined() || value.IsNull()) {
      if constexpr (std::is_floating_point_v<T>) record(key, YAML::Node(shortest_text(fallback)));
      else record(key, YAML::Node(fallback));
      return fallback;
    }
    // A copy: yaml-cpp joins the memory of two documents when a node of one is assigned into the
    // other, for as long as either lives. The pipeline's document grew by a few KB, for good,
    // with every Options made of it: every index opened, every generation a server moved to,
    // every update of a watch (and each join costs more than the last).
    record(key, YAML::Clone(value));
    return convert<T>(key, value);
  }

  /// Like get(), for a number that must lie in [low, high].
  double get_number(std::string_view key, double fallback, double low, double high);
  long long get_integer(std::string_view key, long long fallback, long long low, long long high);
  /// A string that must be one of `allowed`.
  std::string get_choice(std::string_view key, std::string fallback,
                         const std::vector<std::string>& allowed);

  /// The nested mapping at `key` (empty when absent). Its unknown keys are its own to check.
  Options child(std::string_view key);
  /// The mappings of the list at `key` (empty when absent), each named "<where>.key[i]".
  /// Throws when `key` holds anything but a list.
  std::vector<Options> children(std::string_view key);
  /// Keys present in the mapping, in file order.
  std::vector<std::string> keys() const;
  const std::string& where() const { return where_; }
  /// Messages about `keys` name `where` instead: the retriever's `search:` keys, which the
  /// pipeline merges into its options, are said where the user wrote them.
  void place(const std::vector<std::string>& keys, const std::string& where);

  /// Throws rag::Error naming the first key that was never read and the keys that were.
  void finish() const;

  /// The options as read so far: each key asked for with its value, or the default used when it
  /// was absent; nested mappings and lists as read through child() and children().
  YAML::Node effective() const { return effective_; }

  /// Throws rag::Error "<where>.<key>: <message>".
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;

 private:
  YAML::Node lookup(std::string_view key);
  void record(std::string_view key, const YAML::Node& value);

  template <class T>
  T convert(std::string_view key, const YAML::Node& value) const {
    try {
      return value.as<T>();
    } catch (const YAML::Exception&) {
      if constexpr (std::is_same_v<T, bool>) fail(key, "must be true or false, got " + describe(value));
      else if constexpr (std::is_integral_v<T>) fail(key, "must be a whole number, got " + describe(value));
      else if constexpr (std::is_floating_point_v<T>) fail(key, "must be a number, got " + describe(value));
      else fail(key, "has the wrong type (" + describe(value) + ")");
    }
  }
  static std::string describe(const YAML::Node& value);

  YAML::Node node_;
  std::string where_;
  std::set<std::string, std::less<>> read_;
  std::map<std::string, std::string, std::less<>> placed_;  ///< key -> where it was written, see place()
  /// Where `key` was written: where_, or where place() put it.
  const std::string& where_of(std::string_view key) const;
  YAML::Node effective_{YAML::NodeType::Map};  ///< a node of the parent's effective(), for a child
};

/// `text` in its shortest form when it reads as a finite number ("1.20", "12e-1" and "1.2" are
/// all "1.2"), else `text` as it is: what a value says rather than how it is spelt.
std::string canonical_number(const std::string& text);

/// A copy of `node` with every plain (unquoted) scalar passed through canonical_number(), for
/// comparing or digesting YAML by what it says. Quoted scalars are strings and stay as written.
YAML::Node canonical_numbers(const YAML::Node& node);

}  // namespace rag
