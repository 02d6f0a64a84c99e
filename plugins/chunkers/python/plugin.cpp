#include "rag/plugin.hpp"
#include "python_chunker.hpp"

namespace {

const rag::PluginDescriptor* describe() {
  static const rag::PluginDescriptor descriptor = [] {
    rag::PluginDescriptor d;
    d.kind = rag::PluginKind::chunker;
    d.name = "python";
    d.version = "1.0.0";
    d.summary = "Python source cut at functions, classes and statements along its tree-sitter syntax tree";
    d.make_chunker = [](rag::Options& options) -> std::unique_ptr<rag::Chunker> {
      return std::make_unique<rag::PythonChunker>(options);
    };
    return d;
  }();
  return &descriptor;
}

}  // namespace

RAG_PLUGIN(describe)
