#pragma once
// The `markdown` chunker: one chunk per section (a heading and everything up to the next
// heading), labelled with its header path. Sections over max_chunk_size are cut at block starts,
// then at sentences outside code, then at lines, so code blocks that fit stay whole.
#include "rag/chunker.hpp"
#include "rag/options.hpp"
#include "rag/span_splitter.hpp"

namespace rag {

class MarkdownChunker final : public Chunker {
 public:
  /// Options: max_chunk_size (code points, default 2000); overlap (code points, default 0, at
  /// most half of max_chunk_size), repeated between consecutive pieces of one section only;
  /// min_chunk_size (code points, default kDefaultMinChunkChars or max_chunk_size when smaller):
  /// a section shorter than this takes in the following sections of the same or a deeper level,
  /// while it stays shorter than this and the result fits max_chunk_size, named by the header
  /// path all of them lie in; a piece still shorter is then merged with a neighbour
  /// (absorb_small_spans). pack_sections (default false): a file or section of at most
  /// max_chunk_size, its subsections included, is one chunk, and consecutive sections that fit
  /// together are packed into one, as a recursive splitter packs (no overlap then between
  /// sections; a section too long is its own text, cut as above, then its subsections packed).
  /// table_header (default false): a piece that starts inside a table, below its header row, has
  /// the header's cells added to its header path ("Models > Text-only > Architecture | Models |
  /// LoRA"), so that a row is found by its columns' names.
  explicit MarkdownChunker(Options& options);

  /// Spans in file order; ChunkSpan::section is the header path "Title > Section > Subsection",
  /// or for text before the first heading the front matter's `title:` (empty when there is none).
  std::vector<ChunkSpan> chunk(const SourceFile& file) const override;

 private:
  SplitLimits limits_;
  std::size_t min_chars_ = 0;
  bool pack_sections_ = false;
  bool table_header_ = false;
};

}  // namespace rag
