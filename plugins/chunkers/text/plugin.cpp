#include "rag/plugin.hpp"
#include "text_chunker.hpp"

namespace {

const rag::PluginDescriptor* describe() {
  static const rag::PluginDescriptor descriptor = [] {
    rag::PluginDescriptor d;
    d.kind = rag::PluginKind::chunker;
    d.name = "text";
    d.version = "1.0.0";
    d.summary = "Plain text cut at paragraphs, then sentences, then lines";
    d.make_chunker = [](rag::Options& options) -> std::unique_ptr<rag::Chunker> {
      return std::make_unique<rag::TextChunker>(options);
    };
    return d;
  }();
  return &descriptor;
}

}  // namespace

RAG_PLUGIN(describe)
