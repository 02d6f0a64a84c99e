#include "rag/options.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

namespace rag {

Options::Options(YAML::Node node, std::string where) : node_(std::move(node)), where_(std::move(where)) {
  if (!node_.IsDefined()) node_ = YAML::Node(YAML::NodeType::Undefined);
  if (node_.IsDefined() && !node_.IsNull() && !node_.IsMap())
    throw Error(where_ + ": expected a mapping of options, got " + describe(node_));
}

bool Options::has(std::string_view key) const {
  const YAML::Node& node = node_;
  return node.IsMap() && node[std::string(key)].IsDefined();
}

YAML::Node Options::lookup(std::string_view key) {
  read_.emplace(key);
  if (!node_.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node& node = node_;  // const: a lookup must not insert the key
  const YAML::Node value = node[std::string(key)];
  // A missing key gives an "invalid" node that throws on most calls; hand out a plain one.
  return value.IsDefined() ? value : YAML::Node(YAML::NodeType::Undefined);
}

double Options::get_number(std::string_view key, double fallback, double low, double high) {
  const double value = get<double>(key, fallback);
  if (!(value >= low && value <= high)) {
    std::ostringstream message;
    message << "must be between " << low << " and " << high << ", got " << value;
    fail(key, message.str());
  }
  return value;
}

long long Options::get_integer(std::string_view key, long long fallback, long long low, long long high) {
  const long long value = get<long long>(key, fallback);
  if (value < low || value > high)
    fail(key, "must be between " + std::to_string(low) + " and " + std::to_string(high) + ", got " +
                  std::to_string(value));
  return value;
}

std::string Options::get_choice(std::string_view key, std::string fallback, const std::vector<std::string>& allowed) {
  std::string value = get<std::string>(key, std::move(fallback));
  for (const auto& a : allowed)
    if (a == value) return value;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  fail(key, "'" + value + "' is not one of: " + list);
}

void Options::record(std::string_view key, const YAML::Node& value) { effective_[std::string(key)] = value; }

Options Options::child(std::string_view key) {
  Options child(lookup(key), where_of(key) + "." + std::string(key));
  record(key, child.effective_);
  return child;
}

std::vector<Options> Options::children(std::string_view key) {
  const YAML::Node list = lookup(key);
  std::vector<Options> out;
  if (!list.IsDefined() || list.IsNull()) return out;
  if (!list.IsSequence()) fail(key, "must be a list, got " + describe(list));
  // The list is in this record before the children go into it: yaml-cpp moves a child's memory
  // into the node it joins, and a list joined to this record only after its children had joined
  // it would leave them writing to memory that dies with them (what they read later dangled).
  record(key, YAML::Node(YAML::NodeType::Sequence));
  YAML::Node read = effective_[std::string(key)];
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.emplace_back(list[i], where_of(key) + "." + std::string(key) + "[" + std::to_string(i) + "]");
    read.push_back(out.back().effective_);
  }
  return out;
}

std::vector<std::string> Options::keys() const {
  std::vector<std::string> out;
  if (node_.IsMap())
    for (const auto& kv : node_) {
      if (!kv.first.IsScalar())  // e.g. `[a]: 1`, which as<std::string>() would reject with no word of where
        throw Error(where_ + ": has a key that is not a name (line " + std::to_string(kv.first.Mark().line + 1) + ")");
      out.push_back(kv.first.as<std::string>());
    }
  return out;
}

void Options::finish() const {
  std::set<std::string> seen;
  for (const auto& key : keys()) {
    // yaml-cpp keeps the first of two equal keys and drops the second without a word.
    if (!seen.insert(key).second) fail(key, "is given twice; keep one");
    if (read_.count(key)) continue;
    std::string allowed;
    for (const auto& k : read_) allowed += (allowed.empty() ? "" : ", ") + k;
    throw Error(where_of(key) + ": unknown option '" + key + "' (allowed: " + (allowed.empty() ? "none" : allowed) + ")");
  }
}

void Options::place(const std::vector<std::string>& keys, const std::string& where) {
  for (const std::string& key : keys) placed_[key] = where;
}

const std::string& Options::where_of(std::string_view key) const {
  const auto placed = placed_.find(key);
  return placed == placed_.end() ? where_ : placed->second;
}

void Options::fail(std::string_view key, std::string_view message) const {
  throw Error(where_of(key) + "." + std::string(key) + ": " + std::string(message));
}

std::string shortest_text(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

std::string Options::describe(const YAML::Node& value) {
  switch (value.Type()) {
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar: return "'" + value.Scalar() + "'";
    default: return "nothing";
  }
}

std::string canonical_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || !std::isfinite(value)) return text;
  return shortest_text(value);
}

namespace {

// Rewrites the plain scalars below `node` in place; assigning text keeps each node's style
// (flow or block), so that a pipeline's digest reads as before wherever its numbers are canonical.
void canonicalise(YAML::Node node) {
  if (node.IsScalar()) {
    if (node.Tag() != "!") node = canonical_number(node.Scalar());  // "!": quoted, a string
  } else if (node.IsSequence()) {
    for (YAML::Node item : node) canonicalise(item);
  } else if (node.IsMap()) {
    for (auto entry : node) canonicalise(entry.second);
  }
}

}  // namespace

YAML::Node canonical_numbers(const YAML::Node& node) {
  YAML::Node copy = YAML::Clone(node);
  canonicalise(copy);
  return copy;
}

}  // namespace rag
