#include "rag/plugin.hpp"
#include "markdown_chunker.hpp"

namespace {

const rag::PluginDescriptor* describe() {
  static const rag::PluginDescriptor descriptor = [] {
    rag::PluginDescriptor d;
    d.kind = rag::PluginKind::chunker;
    d.name = "markdown";
    d.version = "1.0.0";
    d.summary = "Markdown cut into sections by headings, labelled with their header path";
    d.make_chunker = [](rag::Options& options) -> std::unique_ptr<rag::Chunker> {
      return std::make_unique<rag::MarkdownChunker>(options);
    };
    return d;
  }();
  return &descriptor;
}

}  // namespace

RAG_PLUGIN(describe)
