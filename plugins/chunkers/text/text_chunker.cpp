#include "text_chunker.hpp"

#include <algorithm>

namespace rag {

TextChunker::TextChunker(Options& options) {
  limits_.max_chars = static_cast<std::size_t>(options.get_integer("max_chunk_size", 2000, 1, 1'000'000));
  limits_.overlap_chars = static_cast<std::size_t>(
      options.get_integer("overlap", 0, 0, static_cast<long long>(limits_.max_chars) / 2));
  min_chars_ = static_cast<std::size_t>(options.get_integer(
      "min_chunk_size", static_cast<long long>(std::min(kDefaultMinChunkChars, limits_.max_chars)), 0,
      static_cast<long long>(limits_.max_chars)));
  options.finish();
}

std::vector<ChunkSpan> TextChunker::chunk(const SourceFile& file) const {
  const std::string_view text = file.text();
  const ByteRange all{0, text.size()};
  const std::vector<std::vector<std::size_t>> levels = {paragraph_starts(text, all), sentence_starts(text, all),
                                                        line_starts(text, all)};
  std::vector<ChunkSpan> out;
  for (const ByteRange piece : split_range(file, all, levels, limits_)) out.push_back({piece, ""});
  absorb_small_spans(file, out, min_chars_, limits_.max_chars, "");
  return out;
}

}  // namespace rag
