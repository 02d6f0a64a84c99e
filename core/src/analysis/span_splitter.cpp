#include "rag/span_splitter.hpp"

#include <algorithm>
#include <optional>

#include "rag/utf8.hpp"

namespace rag {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class Splitter {
 public:
  Splitter(const SourceFile& file, const std::vector<std::vector<std::size_t>>& levels, std::size_t max_chars)
      : file_(file), levels_(levels), max_(max_chars) {}

  void split(ByteRange range, std::size_t level, std::vector<ByteRange>& out) const {
    range = trim(file_.text(), range);
    if (range.empty()) return;
    if (file_.char_count(range) <= max_) {
      out.push_back(range);
      return;
    }
    if (level >= levels_.size()) return hard_split(range, out);

    std::vector<std::size_t> cuts;
    for (const std::size_t p : levels_[level])
      if (p > range.begin && p < range.end) cuts.push_back(p);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    cuts.push_back(range.end);

    // Greedy packing: a piece grows segment by segment while it fits.
    std::size_t piece_begin = range.begin;
    std::size_t piece_end = range.begin;  // end of the last segment that fitted
    for (const std::size_t cut : cuts) {
      if (file_.char_count(trim(file_.text(), {piece_begin, cut})) <= max_) {
        piece_end = cut;
        continue;
      }
      if (piece_end > piece_begin) {
        emit({piece_begin, piece_end}, out);
        piece_begin = piece_end;
      }
      // The segment [piece_begin, cut) alone is too long for this level.
      if (file_.char_count(trim(file_.text(), {piece_begin, cut})) > max_) {
        split({piece_begin, cut}, level + 1, out);
        piece_begin = cut;
      }
      piece_end = cut;
    }
    if (piece_end > piece_begin) emit({piece_begin, piece_end}, out);
  }

 private:
  void emit(ByteRange piece, std::vector<ByteRange>& out) const {
    piece = trim(file_.text(), piece);
    if (!piece.empty()) out.push_back(piece);
  }

  // No boundary left: cut after the last whitespace that keeps the piece under the limit, or
  // at the limit itself when the text has no whitespace there.
  void hard_split(ByteRange range, std::vector<ByteRange>& out) const {
    const std::string_view text = file_.text();
    std::size_t begin = range.begin;
    while (begin < range.end) {
      const ByteRange rest = trim(text, {begin, range.end});
      if (rest.empty()) return;
      begin = rest.begin;
      if (file_.char_count(rest) <= max_) {
        out.push_back(rest);
        return;
      }
      const std::size_t limit = file_.byte_offset(file_.char_offset(begin) + max_);
      std::size_t cut = limit;
      while (cut > begin + 1 && !is_space(text[cut - 1])) --cut;
      if (cut <= begin + 1 || file_.char_count({begin, cut}) < max_ / 2) cut = limit;
      out.push_back(trim(text, {begin, cut}));
      begin = cut;
    }
  }

  const SourceFile& file_;
  const std::vector<std::vector<std::size_t>>& levels_;
  std::size_t max_;
};

// Where a piece starting at `piece_begin` should start to take in the text from `earliest` on:
// the earliest boundary in reach, so that an overlap never starts mid-word.
std::size_t overlap_start(const SourceFile& file, const std::vector<std::vector<std::size_t>>& levels,
                          std::size_t piece_begin, std::size_t earliest) {
  std::size_t best = piece_begin;
  for (const auto& level : levels)
    for (const std::size_t p : level)
      if (p >= earliest && p < best) best = p;
  if (best != piece_begin) return best;
  // No boundary in reach: start at the first word start at or after `earliest`.
  const std::string_view text = file.text();
  for (std::size_t p = earliest; p < piece_begin; ++p)
    if (p == 0 || is_space(text[p - 1])) return p;
  return piece_begin;
}

// Greedy packing leaves a runt when a range just overflows: a section 20 characters over the
// limit ends in a piece of one anchor line, useless as a result. The cut before such a last
// piece moves back to the boundary that balances the two best, at the coarsest level that
// leaves neither a runt, both still within the limit.
void rebalance_runt(const SourceFile& file, const std::vector<std::vector<std::size_t>>& levels, std::size_t max,
                    std::vector<ByteRange>& pieces) {
  const auto runt = [max](std::size_t chars) { return chars * 8 < max; };
  if (pieces.size() < 2 || !runt(file.char_count(pieces.back()))) return;
  ByteRange& before = pieces[pieces.size() - 2];
  ByteRange& last = pieces.back();
  const std::string_view text = file.text();
  for (const auto& level : levels) {
    std::size_t best_gap = max;
    ByteRange best_before, best_last;
    for (const std::size_t p : level) {
      if (p <= before.begin || p >= last.begin) continue;
      const ByteRange a = trim(text, {before.begin, p});
      const ByteRange b = trim(text, {p, last.end});
      const std::size_t ca = file.char_count(a), cb = file.char_count(b);
      if (ca > max || cb > max || runt(ca) || runt(cb)) continue;
      const std::size_t gap = ca > cb ? ca - cb : cb - ca;
      if (gap < best_gap) {
        best_gap = gap;
        best_before = a;
        best_last = b;
      }
    }
    if (!best_before.empty()) {
      before = best_before;
      last = best_last;
      return;
    }
  }
}

// `inner` lies in the section `outer`: the same, one of its subsections, or anywhere when
// `outer` is empty (no section).
bool lies_in(std::string_view inner, std::string_view outer, std::string_view separator) {
  return outer.empty() || inner == outer ||
         (!separator.empty() && inner.size() > outer.size() + separator.size() && inner.starts_with(outer) &&
          inner.substr(outer.size(), separator.size()) == separator);
}

// The deepest section both `a` and `b` lie in.
std::string_view common_section(std::string_view a, std::string_view b, std::string_view separator) {
  if (lies_in(a, b, separator)) return b;
  if (lies_in(b, a, separator)) return a;
  std::size_t end = 0;  // the end of the longest run of whole levels the two share
  if (!separator.empty())
    for (std::size_t cut = a.find(separator); cut != std::string_view::npos && b.substr(0, cut) == a.substr(0, cut) &&
                                              b.substr(cut, separator.size()) == separator;
         cut = a.find(separator, cut + separator.size()))
      end = cut;
  return a.substr(0, end);
}

// Moves the cut between the crumb spans[i] and a neighbour by whole lines, as few as make the
// crumb reach `min_chars`, both staying within `max_chars` (the neighbour, over
// `min_chars` by far, only shrinks). The neighbour of the same scope is tried first.
void borrow_lines(const SourceFile& file, std::vector<ChunkSpan>& spans, std::size_t i, std::size_t min_chars,
                  std::size_t max_chars, std::string_view separator) {
  const std::string_view text = file.text();
  const auto chars = [&](ByteRange r) { return file.char_count(trim(text, r)); };
  std::vector<std::size_t> order;
  if (i + 1 < spans.size()) order.push_back(i + 1);
  if (i > 0) order.push_back(i - 1);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return lies_in(spans[a].section, spans[i].section, separator) > lies_in(spans[b].section, spans[i].section, separator);
  });
  for (const std::size_t with : order) {
    ChunkSpan& crumb = spans[i];
    ChunkSpan& other = spans[with];
    if (other.bytes.begin < crumb.bytes.end && crumb.bytes.begin < other.bytes.end) continue;  // overlapping pieces
    const std::vector<std::size_t> lines = line_starts(text, other.bytes);
    std::optional<std::size_t> cut;
    if (with > i) {
      for (auto p = lines.begin(); p != lines.end() && !cut; ++p)
        if (chars({crumb.bytes.begin, *p}) >= min_chars && chars({*p, other.bytes.end}) >= min_chars &&
            chars({crumb.bytes.begin, *p}) <= max_chars)
          cut = *p;
    } else {
      for (auto p = lines.rbegin(); p != lines.rend() && !cut; ++p)
        if (chars({*p, crumb.bytes.end}) >= min_chars && chars({other.bytes.begin, *p}) >= min_chars &&
            chars({*p, crumb.bytes.end}) <= max_chars)
          cut = *p;
    }
    if (!cut) continue;
    crumb.section = std::string(common_section(crumb.section, other.section, separator));
    if (with > i) {
      crumb.bytes = trim(text, {crumb.bytes.begin, *cut});
      other.bytes = trim(text, {*cut, other.bytes.end});
    } else {
      crumb.bytes = trim(text, {*cut, crumb.bytes.end});
      other.bytes = trim(text, {other.bytes.begin, *cut});
    }
    return;
  }
}

}  // namespace

void absorb_small_spans(const SourceFile& file, std::vector<ChunkSpan>& spans, std::size_t min_chars,
                        std::size_t max_chars, std::string_view separator) {
  const auto chars = [&](ByteRange r) { return file.char_count(trim(file.text(), r)); };
  struct Merge {
    std::size_t with;
    ByteRange span;
    std::size_t chars;
    bool same_scope;
  };
  for (std::size_t i = 0; i < spans.size();) {
    if (spans.size() < 2 || chars(spans[i].bytes) >= min_chars) {
      ++i;
      continue;
    }
    std::optional<Merge> best;
    for (const std::size_t with : {i - 1, i + 1}) {
      if (with >= spans.size()) continue;  // i - 1 wraps around for the first span
      const ByteRange span = trim(file.text(), {std::min(spans[i].bytes.begin, spans[with].bytes.begin),
                                                std::max(spans[i].bytes.end, spans[with].bytes.end)});
      const Merge merge{with, span, chars(span),
                        lies_in(spans[with].section, spans[i].section, separator) ||
                            lies_in(spans[i].section, spans[with].section, separator)};
      if (merge.chars > max_chars) continue;
      if (!best || merge.same_scope > best->same_scope ||
          (merge.same_scope == best->same_scope && merge.chars < best->chars))
        best = merge;
    }
    if (!best) {
      // Both neighbours are too full to take it whole: the crumb takes lines of one instead.
      borrow_lines(file, spans, i, min_chars, max_chars, separator);
      ++i;
      continue;
    }
    ChunkSpan& kept = spans[best->with];
    kept.section = std::string(common_section(kept.section, spans[i].section, separator));
    kept.bytes = best->span;
    spans.erase(spans.begin() + static_cast<std::ptrdiff_t>(i));
    if (best->with < i) --i;  // the merged span may still be small: look at it again
  }
}

ByteRange trim(std::string_view text, ByteRange range) {
  while (range.begin < range.end && is_space(text[range.begin])) ++range.begin;
  while (range.end > range.begin && is_space(text[range.end - 1])) --range.end;
  return range;
}

std::vector<ByteRange> split_range(const SourceFile& file, ByteRange range,
                                   const std::vector<std::vector<std::size_t>>& levels, SplitLimits limits) {
  const std::size_t overlap = std::min(limits.overlap_chars, limits.max_chars / 2);
  std::vector<ByteRange> pieces;
  const std::size_t max = std::max<std::size_t>(1, limits.max_chars - overlap);
  Splitter(file, levels, max).split(range, 0, pieces);
  rebalance_runt(file, levels, max, pieces);
  if (overlap == 0) return pieces;
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    const std::size_t begin_char = file.char_offset(pieces[i].begin);
    const std::size_t earliest_char = begin_char > overlap ? begin_char - overlap : 0;
    const std::size_t earliest = std::max(pieces[i - 1].begin, file.byte_offset(earliest_char));
    pieces[i].begin = trim(file.text(), {overlap_start(file, levels, pieces[i].begin, earliest), pieces[i].end}).begin;
  }
  return pieces;
}

std::vector<std::size_t> line_starts(std::string_view text, ByteRange range) {
  std::vector<std::size_t> out;
  for (std::size_t i = range.begin; i < range.end; ++i) {
    const bool lone_cr = text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n');
    if ((text[i] == '\n' || lone_cr) && i + 1 < range.end) out.push_back(i + 1);
  }
  return out;
}

std::vector<std::size_t> paragraph_starts(std::string_view text, ByteRange range) {
  std::vector<std::size_t> out;
  bool blank_seen = false;
  std::size_t line_begin = range.begin;
  for (const std::size_t start : line_starts(text, range)) {
    // The line [line_begin, start) is blank when it holds only whitespace.
    const bool blank = trim(text, {line_begin, start}).empty();
    if (blank) blank_seen = true;
    line_begin = start;
    const bool next_blank = trim(text, {start, std::min(range.end, text.find_first_of("\r\n", start))}).empty();
    if (blank_seen && !next_blank) {
      out.push_back(start);
      blank_seen = false;
    }
  }
  return out;
}

std::vector<std::size_t> sentence_starts(std::string_view text, ByteRange range) {
  static constexpr std::string_view kCjkStops[] = {"\u3002", "\uFF01", "\uFF1F"};
  std::vector<std::size_t> out;
  for (std::size_t i = range.begin; i < range.end; ++i) {
    std::size_t after = 0;
    const char c = text[i];
    if ((c == '.' || c == '!' || c == '?') && i + 1 < range.end && is_space(text[i + 1])) {
      after = i + 1;
    } else {
      for (const std::string_view stop : kCjkStops)
        if (text.substr(i, stop.size()) == stop) after = i + stop.size();
    }
    if (after == 0) continue;
    while (after < range.end && is_space(text[after])) ++after;
    if (after < range.end) out.push_back(after);
  }
  return out;
}

bool is_fence_line(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && (line.compare(first, 3, "```") == 0 || line.compare(first, 3, "~~~") == 0);
}

bool is_list_item(std::string_view t) {
  if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ') return true;
  std::size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  return digits > 0 && digits + 1 < t.size() && (t[digits] == '.' || t[digits] == ')') && t[digits + 1] == ' ';
}

std::size_t announced_block_end(std::string_view text, std::size_t from, std::size_t max_chars) {
  // The lines after the one `from` ends, each without its line break.
  // Only what `max_chars` code points can reach is read (a code point is at most 4 bytes).
  std::vector<ByteRange> lines;
  std::size_t begin = text.find('\n', from);
  while (begin != std::string_view::npos && (begin - from) / 4 <= max_chars) {
    ++begin;
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back({begin, end});
    begin = end < text.size() ? end : std::string_view::npos;
  }
  const auto content = [&](std::size_t i) {
    const ByteRange r = trim(text, lines[i]);
    return text.substr(r.begin, r.end - r.begin);
  };
  std::size_t first = 0;
  while (first < lines.size() && first < 2 && content(first).empty()) ++first;  // blank lines
  if (first >= lines.size() || content(first).empty()) return from;
  const std::string_view opening = content(first);
  std::size_t last = first;  // the block's last line
  if (is_fence_line(opening)) {
    const std::string_view fence = opening.substr(0, 3);
    while (last + 1 < lines.size() && !content(last + 1).starts_with(fence)) ++last;
    if (last + 1 < lines.size()) ++last;  // the closing fence
  } else if (opening.starts_with('|')) {
    while (last + 1 < lines.size() && content(last + 1).starts_with('|')) ++last;
  } else if (is_list_item(opening)) {
    // Items, the lines that continue them, and blank lines between items.
    // A line that is neither, right after text, continues the item above it.
    for (std::size_t i = first + 1; i < lines.size(); ++i) {
      const std::string_view c = content(i);
      if (c.empty()) continue;
      const bool indented = text[lines[i].begin] == ' ' || text[lines[i].begin] == '\t';
      if (c.starts_with('#') || (!is_list_item(c) && !indented && content(i - 1).empty())) break;
      last = i;
    }
  } else {
    return from;
  }
  // Whole lines up to the limit; none when the first alone is longer.
  std::size_t end = from;
  std::size_t chars = 0;
  for (std::size_t i = first; i <= last; ++i) {
    chars += utf8::count_code_points(text.substr(end, lines[i].end - end));
    if (chars > max_chars) break;
    end = trim(text, lines[i]).end;  // a CRLF line's '\r' stays out
  }
  return end;
}

}  // namespace rag
