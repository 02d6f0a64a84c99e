#include "text_chunker.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::TextChunker, "text", "1.0.0",
                 "Plain text cut at paragraphs, then sentences, then lines");
