#include "bm25_retriever.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::Bm25Retriever, "bm25", "1.0.0",
                 "Inverted index scored with BM25 (Robertson, Lucene, BM25L or BM25+)");
