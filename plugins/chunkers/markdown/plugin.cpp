#include "markdown_chunker.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::MarkdownChunker, "markdown", "1.0.0",
                 "Markdown cut into sections by headings, labelled with their header path");
