#include "scope_chunks.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace rag::tree_sitter {
namespace {

// The positions of sorted `all` strictly inside `range`.
std::vector<std::size_t> inside(const std::vector<std::size_t>& all, ByteRange range) {
  const auto first = std::upper_bound(all.begin(), all.end(), range.begin);
  return {first, std::max(first, std::lower_bound(all.begin(), all.end(), range.end))};
}

}  // namespace

ChunkSizes ChunkSizes::read(Options& options) {
  ChunkSizes sizes;
  sizes.limits.max_chars = static_cast<std::size_t>(options.get_integer("max_chunk_size", 2000, 1, 1'000'000));
  sizes.min_chars = static_cast<std::size_t>(
      options.get_integer("min_chunk_size", static_cast<long long>(std::min(kDefaultMinChunkChars, sizes.limits.max_chars)),
                          0, static_cast<long long>(sizes.limits.max_chars)));
  return sizes;
}

FileChunks::FileChunks(const SourceFile& file, ChunkSizes sizes, std::string_view blanks, std::string_view separator)
    : file_(file),
      text_(file.text()),
      sizes_(sizes),
      blanks_(blanks),
      separator_(separator),
      lines_(line_starts(text_, {0, text_.size()})) {}

std::vector<ChunkSpan> FileChunks::take() && {
  absorb_small_spans(file_, out_, sizes_.min_chars, sizes_.limits.max_chars, separator_);
  return std::move(out_);
}

bool FileChunks::starts_line(std::size_t pos) const {
  while (pos > 0 && blanks_.find(text_[pos - 1]) != std::string_view::npos) --pos;
  return pos == 0 || text_[pos - 1] == '\n' || text_[pos - 1] == '\r';
}

std::size_t FileChunks::line_begin(std::size_t pos) const {
  const auto next_line = std::upper_bound(lines_.begin(), lines_.end(), pos);
  return next_line == lines_.begin() ? 0 : *std::prev(next_line);
}

bool FileChunks::fits(ByteRange range) const { return file_.char_count(trim(text_, range)) <= sizes_.limits.max_chars; }

void FileChunks::set_nested_starts(std::vector<std::size_t> starts) {
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  nested_starts_ = std::move(starts);
}

ScopeChunks::ScopeChunks(FileChunks& chunks, std::string scope) : chunks_(chunks), scope_(std::move(scope)) {}

void ScopeChunks::add_run(ByteRange range, const std::vector<std::size_t>& item_starts) {
  std::vector<std::size_t> line_item_starts;
  for (const std::size_t start : item_starts)
    if (chunks_.starts_line(start)) line_item_starts.push_back(start);
  const std::vector<std::vector<std::size_t>> levels = {line_item_starts, inside(chunks_.nested_starts_, range),
                                                        inside(chunks_.lines_, range)};
  for (const ByteRange piece : split_range(chunks_.file_, range, levels, chunks_.sizes_.limits)) add(piece, scope_);
}

void ScopeChunks::add(ByteRange piece, const std::string& section) {
  const SourceFile& file = chunks_.file_;
  const bool small = file.char_count(piece) < chunks_.sizes_.min_chars;
  if (small && waiting_count_ > 0 &&
      file.char_count({waiting_.begin, piece.end}) <= chunks_.sizes_.limits.max_chars) {
    waiting_.end = piece.end;
    ++waiting_count_;
    return;
  }
  flush();
  if (small) {
    waiting_ = piece;
    waiting_section_ = section;
    waiting_count_ = 1;
  } else {
    chunks_.out_.push_back({piece, section});
  }
}

void ScopeChunks::flush() {
  if (waiting_count_ == 0) return;
  chunks_.out_.push_back({waiting_, waiting_count_ == 1 ? waiting_section_ : scope_});
  waiting_count_ = 0;
}

}  // namespace rag::tree_sitter
