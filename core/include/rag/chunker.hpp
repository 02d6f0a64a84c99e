#pragma once
// The interface a chunker plugin implements.
#include <vector>

#include <boost/config.hpp>

#include "rag/chunk.hpp"
#include "rag/source_file.hpp"

namespace rag {

class BOOST_SYMBOL_VISIBLE Chunker {
 public:
  virtual ~Chunker() = default;

  /// Cuts `file` into spans, in file order, non-overlapping unless the chunker's options ask
  /// for overlap. Every span is non-empty and at most the chunker's max_chunk_size code points
  /// (results files take at most 2000: longer sources are cut there). Spans are byte offsets
  /// of file.text() that fall between UTF-8 characters; the index converts them to code points
  /// and refuses a span out of range or inside a character. Called concurrently from several
  /// threads: must not mutate shared state; a rag::Error thrown names what went wrong.
  virtual std::vector<ChunkSpan> chunk(const SourceFile& file) const = 0;
};

}  // namespace rag
