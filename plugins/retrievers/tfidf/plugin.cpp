#include "rag/plugin.hpp"
#include "tfidf_retriever.hpp"

RAG_PLUGIN_CLASS(rag::TfidfRetriever, "tfidf", "1.0.0",
                 "Vector-space model: cosine of TF-IDF vectors (raw, log or binary tf; smooth or plain idf)");
