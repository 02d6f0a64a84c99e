#include "python_chunker.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::PythonChunker, "python", "1.0.0",
                 "Python source cut at functions, classes and statements along its tree-sitter syntax tree");
