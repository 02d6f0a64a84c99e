#include "bm25_retriever.hpp"
#include "rag/plugin.hpp"

namespace {

const rag::PluginDescriptor* describe() {
  static const rag::PluginDescriptor descriptor = [] {
    rag::PluginDescriptor d;
    d.kind = rag::PluginKind::retriever;
    d.name = "bm25";
    d.version = "1.0.0";
    d.summary = "Inverted index scored with BM25 (Robertson, Lucene, BM25L or BM25+)";
    d.make_retriever = [](rag::Options& options, const rag::PluginHost&) -> std::unique_ptr<rag::Retriever> {
      return std::make_unique<rag::Bm25Retriever>(options);
    };
    return d;
  }();
  return &descriptor;
}

}  // namespace

RAG_PLUGIN(describe)
