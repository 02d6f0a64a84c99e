#include "cpp_chunker.hpp"
#include "rag/plugin.hpp"

RAG_PLUGIN_CLASS(rag::CppChunker, "cpp", "1.0.0",
                 "C, C++ and CUDA source cut at functions, classes and namespaces along its tree-sitter syntax tree");
