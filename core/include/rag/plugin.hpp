#pragma once
// The plugin contract. A plugin is a shared library exporting one entry point, `rag_plugin`,
// that returns a PluginDescriptor. Use RAG_PLUGIN(function) in exactly one .cpp of the plugin.
#include <boost/config.hpp>
#include <boost/dll/alias.hpp>

#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>

#include "rag/chunker.hpp"
#include "rag/generator.hpp"
#include "rag/options.hpp"
#include "rag/retriever.hpp"

namespace rag {

/// Bumped whenever an interface in core changes shape. The host refuses other versions.
/// 2: Options records the options read (effective()); Chunk and Evidence carry line numbers.
/// 3: retrievers build, merge and open segments (retriever.hpp); chunks are read in place.
/// 4: GenerationRequest carries the retrieval query, Evidence whether it starts inside code; an
/// empty answer declines.
/// 5: InvertedIndex postings and chunks count the path and section fields apart (FieldCounts).
/// 6: Generator::cancel() stops a generation under way from another thread.
inline constexpr std::uint32_t kPluginAbiVersion = 6;

enum class PluginKind : std::uint32_t { chunker = 1, retriever = 2, generator = 3 };
std::string_view to_string(PluginKind kind);

/// What plugins may ask of the host that loaded them, e.g. to compose other retrievers.
class BOOST_SYMBOL_VISIBLE PluginHost {
 public:
  virtual ~PluginHost() = default;
  virtual std::unique_ptr<Retriever> make_retriever(std::string_view name, Options& options) const = 0;
};

struct PluginDescriptor {
  /// First member on purpose: readable whatever else a future version changes.
  std::uint32_t abi_version = kPluginAbiVersion;
  PluginKind kind = PluginKind::chunker;
  const char* name = "";
  const char* version = "";
  const char* summary = "";
  /// Exactly one factory is set, the one of `kind`. Factories read their options and call
  /// options.finish(), so an unknown key is an error; they throw rag::Error on bad values.
  std::unique_ptr<Chunker> (*make_chunker)(Options& options) = nullptr;
  std::unique_ptr<Retriever> (*make_retriever)(Options& options, const PluginHost& host) = nullptr;
  std::unique_ptr<Generator> (*make_generator)(Options& options) = nullptr;
};

/// A descriptor for a plugin whose one class `T` is built from its options (and, for
/// retrievers, may take the host as a second argument). For a plugin's describe function:
///   static const auto d = rag::describe_plugin<rag::TextChunker>("text", "1.0.0", "...");
template <class T>
PluginDescriptor describe_plugin(const char* name, const char* version, const char* summary) {
  PluginDescriptor d;
  d.name = name;
  d.version = version;
  d.summary = summary;
  if constexpr (std::is_base_of_v<Chunker, T>) {
    d.kind = PluginKind::chunker;
    d.make_chunker = [](Options& options) -> std::unique_ptr<Chunker> { return std::make_unique<T>(options); };
  } else if constexpr (std::is_base_of_v<Retriever, T>) {
    d.kind = PluginKind::retriever;
    d.make_retriever = [](Options& options, const PluginHost& host) -> std::unique_ptr<Retriever> {
      if constexpr (std::is_constructible_v<T, Options&, const PluginHost&>) return std::make_unique<T>(options, host);
      else return std::make_unique<T>(options);
    };
  } else {
    static_assert(std::is_base_of_v<Generator, T>, "a plugin class is a Chunker, a Retriever or a Generator");
    d.kind = PluginKind::generator;
    d.make_generator = [](Options& options) -> std::unique_ptr<Generator> { return std::make_unique<T>(options); };
  }
  return d;
}

/// The name of the exported entry point.
inline constexpr const char* kPluginEntryPoint = "rag_plugin";
using PluginEntryPoint = const PluginDescriptor*();

}  // namespace rag

/// Exports `function` (a `const rag::PluginDescriptor*()`) as the plugin's entry point.
#define RAG_PLUGIN(function) BOOST_DLL_ALIAS(function, rag_plugin)

/// The whole plugin.cpp of a plugin made of one class: RAG_PLUGIN_CLASS(rag::TextChunker,
/// "text", "1.0.0", "Plain text cut at paragraphs"). Use it at global scope.
#define RAG_PLUGIN_CLASS(Class, name, version, summary)                                           \
  namespace {                                                                                     \
  const ::rag::PluginDescriptor* rag_describe_plugin() {                                          \
    static const ::rag::PluginDescriptor descriptor = ::rag::describe_plugin<Class>(name, version, summary); \
    return &descriptor;                                                                           \
  }                                                                                               \
  }                                                                                               \
  RAG_PLUGIN(rag_describe_plugin)
