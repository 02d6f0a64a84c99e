// A plugin built against another plugin ABI: the host must refuse it by name.
#include "rag/plugin.hpp"

namespace {

const rag::PluginDescriptor* describe() {
  static const rag::PluginDescriptor descriptor = [] {
    rag::PluginDescriptor d;
    d.abi_version = rag::kPluginAbiVersion + 1;
    d.kind = rag::PluginKind::retriever;
    d.name = "bad_abi";
    return d;
  }();
  return &descriptor;
}

}  // namespace

RAG_PLUGIN(describe)
