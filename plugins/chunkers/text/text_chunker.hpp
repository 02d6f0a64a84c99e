#pragma once
// The `text` chunker: plain prose (.txt, .rst, anything else a pipeline routes to it), cut at
// paragraphs, then sentences, then lines, under max_chunk_size.
#include "rag/chunker.hpp"
#include "rag/options.hpp"
#include "rag/span_splitter.hpp"

namespace rag {

class TextChunker final : public Chunker {
 public:
  /// Options: max_chunk_size (code points, default 2000), overlap (code points, default 0),
  /// min_chunk_size (code points, default kDefaultMinChunkChars or max_chunk_size when smaller):
  /// a piece shorter than this is merged with a neighbour (absorb_small_spans).
  explicit TextChunker(Options& options);
  std::vector<ChunkSpan> chunk(const SourceFile& file) const override;

 private:
  SplitLimits limits_;
  std::size_t min_chars_ = 0;
};

}  // namespace rag
