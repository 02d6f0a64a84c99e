#include "fusion_retriever.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::FusionRetriever, "fusion", "1.0.0",
                 "Merges the rankings of several retrievers (reciprocal rank fusion or weighted scores)");
