#include "extractive_generator.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::ExtractiveGenerator, "extractive", "1.0.0",
                 "Offline answers quoted from the evidence: the sentences and code lines that best cover the question");
