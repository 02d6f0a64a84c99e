#pragma once
// The `python` chunker: Python source cut along its syntax tree (tree-sitter), so that a chunk is
// a whole function, method or class wherever the size limit allows, named by its qualified name.

#include "rag/chunker.hpp"
#include "rag/options.hpp"
#include "scope_chunks.hpp"

namespace rag {

/// Functions and classes are the units. A class over the limit is split at its methods, its
/// header (decorators, `class` line, docstring, statements before the first method) becoming
/// chunks of its own; a function over the limit is split at the statements of its body; nested
/// definitions are handled alike, recursively. Code between definitions is grouped statement by
/// statement. Decorators, docstrings and the comment lines right above a definition stay with it.
/// A span's section is the qualified name of its definition or, for other code, of the enclosing
/// scope: "vllm.engine.llm_engine.LLMEngine.step", "vllm.engine.llm_engine". Files with syntax
/// errors are chunked all the same, along whatever tree the parser recovered.
class PythonChunker final : public Chunker {
 public:
  /// Options: max_chunk_size and min_chunk_size, as tree_sitter::ChunkSizes reads them.
  explicit PythonChunker(Options& options);
  std::vector<ChunkSpan> chunk(const SourceFile& file) const override;

 private:
  tree_sitter::ChunkSizes sizes_;
};

}  // namespace rag
