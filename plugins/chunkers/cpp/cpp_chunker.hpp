#pragma once
// The `cpp` chunker: C, C++ and CUDA source cut along its syntax tree (tree-sitter-cpp), so that
// a chunk is a whole function, class or namespace wherever the size limit allows, named by its
// qualified name.
#include "rag/chunker.hpp"
#include "rag/options.hpp"
#include "scope_chunks.hpp"

namespace rag {

/// Functions, classes (struct, union, enum) and namespaces are the units, template headers
/// included. A class or namespace over the limit is split at its members or declarations, a
/// function over the limit at the statements of its body, then at nested statements and lines;
/// nested definitions are handled alike, recursively. Code between definitions (includes,
/// macros, declarations) is grouped item by item, in order. What introduces a definition goes
/// with it: the comments right above it (no blank line between), its access label ("public:"),
/// an unknown macro on the line above (`__device__ __forceinline__`), and the opening line
/// (#if, #ifdef, #else) of a preprocessor block it starts; definitions inside such blocks are
/// units like any other. The opening of a split scope ("namespace vllm {") goes with its first
/// member when they fit together.
/// A span's section is the qualified name of its definition or, for other code, of the
/// enclosing scope: "vllm::paged_attention_v1_kernel", "vllm::Foo::bar" for an out-of-line
/// method definition `void Foo::bar()` inside `namespace vllm`, "vllm" for declarations in that
/// namespace. Code outside any named scope has an empty section (the file path names it
/// already). Anonymous namespaces and `extern "C"` blocks add nothing to names; template
/// argument lists over 40 bytes are written "<...>" ("cutlass::CollectiveMma<...>::load"), and
/// a name over 200 code points is cut there, ending in "...".
/// CUDA syntax (`__global__`, `<<<...>>>` launches) and files with syntax errors are chunked
/// all the same, along whatever tree the parser recovered. Definitions and preprocessor blocks
/// nested over 64 deep are not looked into: they are cut at statements and lines.
class CppChunker final : public Chunker {
 public:
  /// Options: max_chunk_size and min_chunk_size, as tree_sitter::ChunkSizes reads them.
  explicit CppChunker(Options& options);
  std::vector<ChunkSpan> chunk(const SourceFile& file) const override;

 private:
  tree_sitter::ChunkSizes sizes_;
};

}  // namespace rag
