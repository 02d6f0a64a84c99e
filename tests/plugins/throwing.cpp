// A retriever whose construction fails with a foreign exception type.
#include <stdexcept>

#include "rag/plugin.hpp"

namespace {

const rag::PluginDescriptor* describe() {
  static const rag::PluginDescriptor descriptor = [] {
    rag::PluginDescriptor d;
    d.kind = rag::PluginKind::retriever;
    d.name = "throwing";
    d.version = "0.0.1";
    d.make_retriever = [](rag::Options&, const rag::PluginHost&) -> std::unique_ptr<rag::Retriever> {
      throw std::runtime_error("boom");
    };
    return d;
  }();
  return &descriptor;
}

}  // namespace

RAG_PLUGIN(describe)
