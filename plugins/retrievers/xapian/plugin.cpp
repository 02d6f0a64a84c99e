#include "rag/plugin.hpp"
#include "xapian_retriever.hpp"

RAG_PLUGIN_CLASS(rag::XapianRetriever, "xapian", "1.0.0",
                 "Xapian's BM25 over the same terms as bm25, in shards searched locally or on xapian-tcpsrv servers");
