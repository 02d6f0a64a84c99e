#include "markdown_chunker.hpp"

#include <md4c.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>

#include "rag/error.hpp"

namespace rag {
namespace {

constexpr std::size_t kNone = std::string_view::npos;
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Lines end at "\n", "\r\n" or a lone "\r", as for md4c.
bool is_line_break(char c) { return c == '\n' || c == '\r'; }

std::size_t line_begin(std::string_view text, std::size_t pos) {
  while (pos > 0 && !is_line_break(text[pos - 1])) --pos;
  return pos;
}

std::size_t line_end(std::string_view text, std::size_t pos) {
  while (pos < text.size() && !is_line_break(text[pos])) ++pos;
  return pos;
}

/// The start of the line after the one holding `pos`, or text.size() on the last line.
std::size_t next_line(std::string_view text, std::size_t pos) {
  const std::size_t end = line_end(text, pos);
  if (end == text.size()) return end;
  return end + (text.substr(end, 2) == "\r\n" ? 2 : 1);
}

/// The start of the line before the one starting at `begin` (> 0).
std::size_t previous_line(std::string_view text, std::size_t begin) {
  std::size_t end = begin - 1;
  if (end > 0 && text[end] == '\n' && text[end - 1] == '\r') --end;
  return line_begin(text, end);
}

/// The content of the line starting at `begin`, without its line break. A byte order mark is
/// not content.
std::string_view line_at(std::string_view text, std::size_t begin) {
  std::string_view line = text.substr(begin, line_end(text, begin) - begin);
  if (begin == 0 && line.starts_with(kByteOrderMark)) line.remove_prefix(kByteOrderMark.size());
  return line;
}

std::string_view strip(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t");
  if (first == kNone) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

/// `line` without its indentation and block quote markers.
std::string_view unquoted(std::string_view line) {
  return line.substr(std::min(line.find_first_not_of(" \t>"), line.size()));
}

bool is_blank_line(std::string_view line) { return unquoted(line).empty(); }

/// The start of the nearest non-blank line before the line at `begin`: where a block's opening
/// line is when its first text sits on a later line.
std::size_t previous_content_line(std::string_view text, std::size_t begin) {
  for (std::size_t line = begin; line > 0;) {
    line = previous_line(text, line);
    if (!is_blank_line(line_at(text, line))) return line;
  }
  return begin;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Whether `line` starts with a list item marker: "-", "*", "+", "1." or "1)" then a space.
bool starts_list_item(std::string_view line) {
  line = unquoted(line);
  std::size_t end = 0;
  while (end < line.size() && end < 9 && is_digit(line[end])) ++end;
  if (end > 0) {
    if (end == line.size() || (line[end] != '.' && line[end] != ')')) return false;
  } else if (line.empty() || (line[0] != '-' && line[0] != '*' && line[0] != '+')) {
    return false;
  }
  ++end;
  return end == line.size() || line[end] == ' ' || line[end] == '\t';
}

/// Whether `line` opens an ATX heading: up to three spaces, one to six '#', a space or the end.
bool is_atx_heading(std::string_view line) {
  std::size_t i = 0;
  while (i < 3 && i < line.size() && line[i] == ' ') ++i;
  const std::size_t hashes = std::min(line.find_first_not_of('#', i), line.size()) - i;
  i += hashes;
  return hashes >= 1 && hashes <= 6 && (i == line.size() || line[i] == ' ' || line[i] == '\t');
}

/// An ATX heading's text: its line without the opening '#'s and the optional closing ones.
std::string atx_heading_text(std::string_view line) {
  line = strip(line);
  line = strip(line.substr(std::min(line.find_first_not_of('#'), line.size())));
  const std::size_t last = line.find_last_not_of('#');
  if (last == kNone) return {};
  // A closing run counts only after a space: "C#" keeps its '#'.
  if (last + 1 < line.size() && (line[last] == ' ' || line[last] == '\t')) line = strip(line.substr(0, last));
  return std::string(line);
}

/// A setext heading's text: its lines in [begin, end), underline excluded, joined by spaces.
std::string setext_heading_text(std::string_view text, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t line = begin; line < end; line = next_line(text, line)) {
    const std::string_view part = strip(line_at(text, line));
    if (part.empty()) continue;
    if (!out.empty()) out += ' ';
    out += part;
  }
  return out;
}

/// The first line in [begin, end) that opens an ATX heading.
std::size_t find_atx_line(std::string_view text, std::size_t begin, std::size_t end) {
  for (std::size_t line = begin; line < end; line = next_line(text, line))
    if (is_atx_heading(line_at(text, line))) return line;
  return kNone;
}

bool is_yaml_key(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == 0 || colon == kNone) return false;
  const bool name = std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  return name && (colon + 1 == line.size() || line[colon + 1] == ' ' || line[colon + 1] == '\t');
}

/// The end (start of the next line) of a YAML front matter block at `begin`: a "---" line, a
/// "key:" line, and so on up to a "---" or "..." line. `begin` when there is none; asking for a
/// key keeps a document that opens with a thematic break a markdown document.
std::size_t front_matter_end(std::string_view text, std::size_t begin) {
  if (strip(line_at(text, begin)) != "---") return begin;
  std::size_t line = next_line(text, begin);
  if (!is_yaml_key(line_at(text, line))) return begin;
  for (; line < text.size(); line = next_line(text, line)) {
    const std::string_view content = strip(line_at(text, line));
    if (content == "---" || content == "...") return next_line(text, line);
  }
  return begin;
}

/// The `title:` of the front matter in `block`, unquoted; empty when there is none.
std::string front_matter_title(std::string_view text, ByteRange block) {
  for (std::size_t line = block.begin; line < block.end; line = next_line(text, line)) {
    std::string_view content = line_at(text, line);
    if (!content.starts_with("title:")) continue;
    content = strip(content.substr(6));
    if (content.size() >= 2 && (content.front() == '"' || content.front() == '\'') && content.back() == content.front())
      content = content.substr(1, content.size() - 2);
    return std::string(content);
  }
  return {};
}

// ---- md4c reports blocks without offsets. Where a block is follows from the pointers it hands
// to the text callback (they point into the input) and from the source lines around them.

struct Block {
  MD_BLOCKTYPE type = MD_BLOCK_DOC;
  std::size_t depth = 0;      // 1 for the document's children
  unsigned level = 0;         // of a heading
  bool fenced = false;        // a code block between ``` or ~~~ fences
  std::size_t first = kNone;  // first byte of the text reported inside the block
  std::size_t last = 0;       // end of the last such text
  std::size_t start = kNone;  // start of the block's first source line, kNone if unknown
};

// The parse of one file, md4c's user data: no state is shared between calls.
struct Parse {
  std::string_view text;
  std::vector<Block> blocks;      // in document order
  std::vector<std::size_t> open;  // indices into `blocks` of the enclosing blocks
  std::exception_ptr error;
};

/// Sets `block.start` from its text and its children's starts.
void locate(std::string_view text, Block& block) {
  if (block.first != kNone) block.start = std::min(block.start, line_begin(text, block.first));
  if (block.start == kNone) return;
  // An opening fence, or a list marker whose item's text starts on the next line, has a line
  // of its own before the first text.
  const bool opening_line = (block.type == MD_BLOCK_CODE && block.fenced) ||
                            (block.type == MD_BLOCK_LI && !starts_list_item(line_at(text, block.start)));
  if (opening_line) block.start = previous_content_line(text, block.start);
}

// md4c is C: an exception must not unwind through it, so it is kept and the parse aborted.
template <class F>
int guarded(void* user, F&& f) {
  auto& parse = *static_cast<Parse*>(user);
  try {
    f(parse);
    return 0;
  } catch (...) {
    parse.error = std::current_exception();
    return 1;
  }
}

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
  return guarded(user, [&](Parse& parse) {
    if (type == MD_BLOCK_DOC) return;
    Block block;
    block.type = type;
    block.depth = parse.open.size() + 1;
    if (type == MD_BLOCK_H) block.level = static_cast<const MD_BLOCK_H_DETAIL*>(detail)->level;
    if (type == MD_BLOCK_CODE) block.fenced = static_cast<const MD_BLOCK_CODE_DETAIL*>(detail)->fence_char != 0;
    parse.open.push_back(parse.blocks.size());
    parse.blocks.push_back(block);
  });
}

int leave_block(MD_BLOCKTYPE type, void*, void* user) {
  return guarded(user, [&](Parse& parse) {
    if (type == MD_BLOCK_DOC) return;
    Block& block = parse.blocks[parse.open.back()];
    parse.open.pop_back();
    locate(parse.text, block);
    if (parse.open.empty()) return;
    Block& parent = parse.blocks[parse.open.back()];
    parent.first = std::min(parent.first, block.first);
    parent.last = std::max(parent.last, block.last);
    parent.start = std::min(parent.start, block.start);
  });
}

int ignore_span(MD_SPANTYPE, void*, void*) { return 0; }

int on_text(MD_TEXTTYPE, const MD_CHAR* text, MD_SIZE size, void* user) {
  return guarded(user, [&](Parse& parse) {
    // md4c also reports literals of its own (a code line's "\n", indentation, a soft break):
    // only text inside the input says where a block is.
    const char* begin = parse.text.data();
    const char* end = begin + parse.text.size();
    const std::less<const char*> before;
    if (size == 0 || parse.open.empty() || before(text, begin) || before(end, text + size)) return;
    Block& block = parse.blocks[parse.open.back()];
    const auto offset = static_cast<std::size_t>(text - begin);
    block.first = std::min(block.first, offset);
    block.last = std::max(block.last, offset + size);
  });
}

/// The end of a code block: its last text line or, for a fenced block, its closing fence.
std::size_t code_end(std::string_view text, const Block& block) {
  const std::size_t end = line_end(text, block.last - 1);
  if (!block.fenced) return end;
  for (std::size_t line = next_line(text, end); line < text.size(); line = next_line(text, line)) {
    const std::string_view content = unquoted(line_at(text, line));
    if (content.empty()) continue;
    return content.starts_with("```") || content.starts_with("~~~") ? line_end(text, line) : end;
  }
  return end;
}

bool is_table_part(MD_BLOCKTYPE type) {
  return type == MD_BLOCK_THEAD || type == MD_BLOCK_TBODY || type == MD_BLOCK_TR || type == MD_BLOCK_TH ||
         type == MD_BLOCK_TD;
}

/// md4c's blocks of `text` from `body_begin` on (before it: a byte order mark, front matter).
std::vector<Block> run_md4c(std::string_view text, std::size_t body_begin, const std::string& name) {
  const std::string_view body = text.substr(body_begin);
  if (body.size() > std::numeric_limits<MD_SIZE>::max()) throw Error(name + ": too large to parse");
  Parse parse{text, {}, {}, nullptr};
  MD_PARSER parser{};
  parser.flags = MD_DIALECT_GITHUB;
  parser.enter_block = enter_block;
  parser.leave_block = leave_block;
  parser.enter_span = ignore_span;
  parser.leave_span = ignore_span;
  parser.text = on_text;
  const int status = md_parse(body.data(), static_cast<MD_SIZE>(body.size()), &parser, &parse);
  if (parse.error) std::rethrow_exception(parse.error);
  if (status != 0) throw Error(name + ": the markdown parser failed");
  return std::move(parse.blocks);
}

/// Columns of indentation, tabs stopping at multiples of four.
std::size_t indentation(std::string_view line) {
  std::size_t column = 0;
  for (const char c : line) {
    if (c == ' ') {
      ++column;
    } else if (c == '\t') {
      column += 4 - column % 4;
    } else {
      break;
    }
  }
  return column;
}

/// Replaces the fence characters of the fence-like lines in the run of non-blank lines indented
/// four columns or more that starts at `begin`. Returns whether it replaced any.
bool mask_indented_fences(std::string& text, std::size_t begin) {
  bool masked = false;
  for (std::size_t line = begin; line < text.size(); line = next_line(text, line)) {
    const std::string_view content = line_at(text, line);
    if (indentation(content) < 4 || strip(content).empty()) break;
    const std::size_t fence = line + content.find_first_not_of(" \t");
    const char mark = text[fence];
    if ((mark != '`' && mark != '~') || std::string_view(text).substr(fence, 3) != std::string(3, mark)) continue;
    for (std::size_t i = fence; i < text.size() && text[i] == mark; ++i) text[i] = 'x';
    masked = true;
  }
  return masked;
}

/// The blocks of `text`, read as CommonMark reads it. md4c 0.4.8 opens a fence on a "```" line
/// indented four columns or more right after a paragraph line, where CommonMark continues the
/// paragraph (mity/md4c#189); mkdocs admonitions with fenced code hit it, and the fence swallows
/// the document up to the next unindented "```". So such fences are masked in a copy of the
/// same size, offsets staying valid, and the copy is parsed again.
std::vector<Block> parse_blocks(std::string_view text, std::size_t body_begin, const std::string& name) {
  std::vector<Block> blocks = run_md4c(text, body_begin, name);
  std::string masked(text);
  for (;;) {
    bool changed = false;
    for (const Block& block : blocks) {
      // Only inside a container may a fence be indented four columns: its content column is
      // further right.
      const bool misread = block.depth == 1 && block.type == MD_BLOCK_CODE && block.fenced &&
                           block.start != kNone && indentation(line_at(masked, block.start)) >= 4;
      if (misread && mask_indented_fences(masked, block.start)) changed = true;
    }
    if (!changed) return blocks;
    blocks = run_md4c(masked, body_begin, name);
  }
}

struct Heading {
  std::size_t start = 0;
  unsigned level = 0;
  std::string text;
};

// What the chunker needs to know of a document's structure.
struct Outline {
  std::string title;                       // the front matter's
  std::vector<Heading> headings;           // the document's own, not those in quotes or lists
  std::vector<std::size_t> block_starts;   // top-level blocks and list items
  std::vector<std::size_t> nested_starts;  // other blocks inside block quotes and list items
  std::vector<ByteRange> verbatim;         // front matter, code blocks and tables, in order
  std::vector<ByteRange> tables;           // from the header row to the last row
};

Outline outline(const SourceFile& file) {
  const std::string_view text = file.text();
  Outline out;
  const std::size_t bom = text.starts_with(kByteOrderMark) ? kByteOrderMark.size() : 0;
  const std::size_t body_begin = front_matter_end(text, bom);
  if (body_begin > bom) {
    out.verbatim.push_back({bom, body_begin});
    out.title = front_matter_title(text, {bom, body_begin});
  }

  const std::vector<Block> blocks = parse_blocks(text, body_begin, file.name());

  // next_start[i]: where the first top-level block after block i with a known start starts.
  std::vector<std::size_t> next_start(blocks.size(), text.size());
  for (std::size_t i = blocks.size(); i-- > 1;)
    next_start[i - 1] = blocks[i].depth == 1 && blocks[i].start != kNone ? blocks[i].start : next_start[i];

  std::size_t cursor = body_begin;  // the first line after all text reported so far
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const Block& block = blocks[i];
    std::size_t start = block.start;
    if (block.type == MD_BLOCK_H && block.depth == 1) {
      // A heading without text ("#", "## ##") is the next ATX heading line before the next
      // block. Its line is not found when it has no text for other reasons ("![](a.png)\n---").
      if (start == kNone) start = find_atx_line(text, cursor, next_start[i]);
      if (start == kNone) continue;
      const std::string_view line = line_at(text, start);
      out.headings.push_back({start, block.level,
                              is_atx_heading(line) ? atx_heading_text(line) : setext_heading_text(text, start, block.last)});
      cursor = std::max(cursor, next_line(text, start));
    }
    if (block.first != kNone) cursor = std::max(cursor, next_line(text, block.last - 1));
    if (start == kNone || is_table_part(block.type)) continue;
    (block.depth == 1 || block.type == MD_BLOCK_LI ? out.block_starts : out.nested_starts).push_back(start);
    if (block.type == MD_BLOCK_CODE) out.verbatim.push_back({start, code_end(text, block)});
    if (block.type == MD_BLOCK_TABLE) {
      out.verbatim.push_back({start, line_end(text, block.last - 1)});
      out.tables.push_back(out.verbatim.back());
    }
  }
  return out;
}

void sort_unique(std::vector<std::size_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

std::vector<std::size_t> without(const std::vector<std::size_t>& v, const std::vector<std::size_t>& removed) {
  std::vector<std::size_t> out;
  std::set_difference(v.begin(), v.end(), removed.begin(), removed.end(), std::back_inserter(out));
  return out;
}

/// Cut positions for split_range, coarsest first: block starts, starts of blocks nested in
/// quotes and list items, sentence starts outside code and tables, line starts.
std::vector<std::vector<std::size_t>> split_levels(std::string_view text, Outline& outline) {
  sort_unique(outline.block_starts);
  sort_unique(outline.nested_starts);
  // A heading stays with the beginning of its text: the cut right after it is offered only
  // with the sentences, so that a long first paragraph does not leave the heading alone.
  std::vector<std::size_t> body_starts;
  for (std::size_t i = 0; i < outline.headings.size(); ++i) {
    const std::size_t section_end = i + 1 < outline.headings.size() ? outline.headings[i + 1].start : text.size();
    const auto next = std::upper_bound(outline.block_starts.begin(), outline.block_starts.end(),
                                       outline.headings[i].start);
    if (next != outline.block_starts.end() && *next < section_end) body_starts.push_back(*next);
  }

  const ByteRange all{0, text.size()};
  std::vector<std::size_t> sentences = body_starts;
  std::size_t v = 0;
  for (const std::size_t p : sentence_starts(text, all)) {
    while (v < outline.verbatim.size() && outline.verbatim[v].end <= p) ++v;
    if (v == outline.verbatim.size() || p <= outline.verbatim[v].begin) sentences.push_back(p);
  }
  return {without(outline.block_starts, body_starts), without(outline.nested_starts, body_starts),
          std::move(sentences), line_starts(text, all)};
}

struct Section {
  std::size_t begin = 0;
  unsigned level = 0;  // 0 for the text before the first heading
  std::string path;
};

// The header path both `a` and `b` lie in: the levels they share from the first.
std::string common_path(std::string_view a, std::string_view b) {
  constexpr std::string_view kLevel = " > ";
  std::size_t end = 0;  // the end of the shared levels in `a`
  for (std::size_t begin = 0; begin <= a.size();) {
    const std::size_t cut = std::min(a.find(kLevel, begin), a.size());
    const bool shared = b.substr(0, cut) == a.substr(0, cut) && (cut == b.size() || b.substr(cut, kLevel.size()) == kLevel);
    if (!shared) break;
    end = cut;
    begin = cut + kLevel.size();
  }
  return std::string(a.substr(0, end));
}

std::vector<Section> sections(const Outline& outline) {
  std::vector<Section> out{{0, 0, outline.title}};
  std::vector<const Heading*> enclosing;
  for (const Heading& heading : outline.headings) {
    while (!enclosing.empty() && enclosing.back()->level >= heading.level) enclosing.pop_back();
    enclosing.push_back(&heading);
    std::string path;
    for (const Heading* h : enclosing) {
      if (h->text.empty()) continue;
      if (!path.empty()) path += " > ";
      path += h->text;
    }
    out.push_back({heading.start, heading.level, std::move(path)});
  }
  return out;
}

/// A table's header row as its cells joined by " | ": "| Model | LoRA |" gives "Model | LoRA".
std::string header_cells(std::string_view row) {
  std::string out;
  std::size_t begin = 0;
  while (begin <= row.size()) {
    const std::size_t end = std::min(row.find('|', begin), row.size());
    const std::string_view cell = strip(row.substr(begin, end - begin));
    if (!cell.empty()) out += (out.empty() ? "" : " | ") + std::string(cell);
    begin = end + 1;
  }
  return out;
}

/// Adds to the header path of each span that starts inside a table below its header row the
/// header's cells, so that a row is found by its columns' names as well as by its page's title.
void name_table_rows(std::string_view text, const std::vector<ByteRange>& tables, std::vector<ChunkSpan>& spans) {
  for (ChunkSpan& span : spans) {
    const auto table = std::find_if(tables.begin(), tables.end(), [&](ByteRange t) {
      return t.begin < span.bytes.begin && span.bytes.begin < t.end;
    });
    if (table == tables.end()) continue;
    const std::string header = header_cells(line_at(text, table->begin));
    if (header.empty()) continue;
    span.section += (span.section.empty() ? "" : " > ") + header;
  }
}

// Packs sections the way a recursive splitter packs: a section that fits, its subsections
// included, is one piece; consecutive pieces that fit together are packed into one, named by the
// header path they share; a section too long becomes its own text (cut by split_range) followed by
// its subsections, packed in turn.
class SectionPacker {
 public:
  SectionPacker(const SourceFile& file, const std::vector<Section>& parts,
                const std::vector<std::vector<std::size_t>>& levels, SplitLimits limits)
      : file_(file), parts_(parts), levels_(levels), limits_(limits) {}

  std::vector<ChunkSpan> pack() {
    // The document: the text before its first heading, then its top-level sections.
    std::vector<std::size_t> top;
    for (std::size_t i = 0; i < parts_.size(); i = subtree_end(i)) top.push_back(i);
    pack_sections(top);
    flush();
    return std::move(out_);
  }

 private:
  std::size_t end_of(std::size_t i) const { return i + 1 < parts_.size() ? parts_[i + 1].begin : file_.text().size(); }
  std::size_t chars(ByteRange r) const { return file_.char_count(trim(file_.text(), r)); }
  // One past the last section inside section i (its subsections); the text before the first
  // heading (level 0) holds none.
  std::size_t subtree_end(std::size_t i) const {
    std::size_t j = i + 1;
    while (parts_[i].level > 0 && j < parts_.size() && parts_[j].level > parts_[i].level) ++j;
    return j;
  }

  void pack_sections(const std::vector<std::size_t>& sections) {
    for (const std::size_t i : sections) {
      const std::size_t end = subtree_end(i);
      const ByteRange whole{parts_[i].begin, end_of(end - 1)};
      if (chars(whole) <= limits_.max_chars) {
        add(whole, parts_[i].path);
        continue;
      }
      // Its own text, then its subsections.
      const ByteRange own{parts_[i].begin, end_of(i)};
      if (chars(own) <= limits_.max_chars) {
        add(own, parts_[i].path);
      } else {
        flush();
        for (const ByteRange piece : split_range(file_, own, levels_, limits_)) out_.push_back({piece, parts_[i].path});
      }
      std::vector<std::size_t> children;
      for (std::size_t c = i + 1; c < end; c = subtree_end(c)) children.push_back(c);
      pack_sections(children);
    }
  }

  // Appends `range` to the piece being packed when both fit together, else starts a new one.
  void add(ByteRange range, const std::string& path) {
    if (trim(file_.text(), range).empty()) return;
    if (open_ && chars({piece_.begin, range.end}) <= limits_.max_chars) {
      piece_.end = range.end;
      path_ = common_path(path_, path);
      return;
    }
    flush();
    open_ = true;
    piece_ = range;
    path_ = path;
  }

  void flush() {
    if (open_) out_.push_back({trim(file_.text(), piece_), path_});
    open_ = false;
  }

  const SourceFile& file_;
  const std::vector<Section>& parts_;
  const std::vector<std::vector<std::size_t>>& levels_;
  SplitLimits limits_;
  std::vector<ChunkSpan> out_;
  bool open_ = false;  // a piece is being packed
  ByteRange piece_;
  std::string path_;
};

}  // namespace

MarkdownChunker::MarkdownChunker(Options& options) {
  limits_.max_chars = static_cast<std::size_t>(options.get_integer("max_chunk_size", 2000, 1, 1'000'000));
  const auto max = static_cast<long long>(limits_.max_chars);
  limits_.overlap_chars = static_cast<std::size_t>(options.get_integer("overlap", 0, 0, max / 2));
  min_chars_ = static_cast<std::size_t>(options.get_integer(
      "min_chunk_size", std::min(static_cast<long long>(kDefaultMinChunkChars), max), 0, max));
  pack_sections_ = options.get<bool>("pack_sections", pack_sections_);
  table_header_ = options.get<bool>("table_header", table_header_);
  options.finish();
}

std::vector<ChunkSpan> MarkdownChunker::chunk(const SourceFile& file) const {
  const std::string_view text = file.text();
  Outline structure = outline(file);
  const std::vector<Section> parts = sections(structure);
  const auto levels = split_levels(text, structure);
  const auto end_of = [&](std::size_t i) { return i + 1 < parts.size() ? parts[i + 1].begin : text.size(); };
  const auto size_of = [&](ByteRange r) { return file.char_count(trim(text, r)); };

  if (pack_sections_) {
    std::vector<ChunkSpan> packed = SectionPacker(file, parts, levels, limits_).pack();
    absorb_small_spans(file, packed, min_chars_, limits_.max_chars, " > ");
    if (table_header_) name_table_rows(text, structure.tables, packed);
    return packed;
  }
  std::vector<ChunkSpan> out;
  for (std::size_t i = 0; i < parts.size();) {
    ByteRange range{parts[i].begin, end_of(i)};
    std::string path = parts[i].path;
    std::size_t next = i + 1;
    // Only the text before the first heading can be blank; it takes in nothing.
    if (trim(text, range).empty()) {
      i = next;
      continue;
    }
    while (next < parts.size() && parts[next].level >= parts[i].level && size_of(range) < min_chars_) {
      const ByteRange merged{range.begin, end_of(next)};
      if (size_of(merged) > limits_.max_chars) break;
      range = merged;
      path = common_path(path, parts[next].path);  // a sibling's text is not the first section's
      ++next;
    }
    if (size_of(range) <= limits_.max_chars) {
      out.push_back({trim(text, range), path});
    } else {
      for (const ByteRange piece : split_range(file, range, levels, limits_)) out.push_back({piece, path});
    }
    i = next;
  }
  absorb_small_spans(file, out, min_chars_, limits_.max_chars, " > ");
  if (table_header_) name_table_rows(text, structure.tables, out);
  return out;
}

}  // namespace rag
