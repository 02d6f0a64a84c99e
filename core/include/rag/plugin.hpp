#pragma once
// The plugin contract. A plugin is a shared library exporting one entry point, `rag_plugin`,
// that returns a PluginDescriptor. Use RAG_PLUGIN(function) in exactly one .cpp of the plugin.
#include <boost/config.hpp>
#include <boost/dll/alias.hpp>

#include <cstdint>
#include <memory>
#include <string_view>

#include "rag/chunker.hpp"
#include "rag/generator.hpp"
#include "rag/options.hpp"
#include "rag/retriever.hpp"

namespace rag {

/// Bumped whenever an interface in core changes shape. The host refuses other versions.
inline constexpr std::uint32_t kPluginAbiVersion = 1;

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

/// The name of the exported entry point.
inline constexpr const char* kPluginEntryPoint = "rag_plugin";
using PluginEntryPoint = const PluginDescriptor*();

}  // namespace rag

/// Exports `function` (a `const rag::PluginDescriptor*()` ) as the plugin's entry point.
#define RAG_PLUGIN(function) BOOST_DLL_ALIAS(function, rag_plugin)
