#include "rag/chat_messages.hpp"

#include <algorithm>

#include "rag/context.hpp"
#include "rag/error.hpp"
#include "rag/source_file.hpp"
#include "rag/span_splitter.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

// A paragraph of text, or a fenced code block with its opening fence line ("```python").
struct Block {
  std::string text;  ///< for code: the lines inside the fences
  bool code = false;
  std::string fence;
};

bool is_fence(std::string_view line) {
  const auto start = line.find_first_not_of(" \t");
  return start != std::string_view::npos && line.substr(start, 3) == "```";
}

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

std::vector<Block> blocks_of(std::string_view answer) {
  std::vector<Block> blocks;
  Block paragraph;
  const auto end_paragraph = [&] {
    if (!is_blank(paragraph.text)) blocks.push_back(std::move(paragraph));
    paragraph = {};
  };
  std::size_t begin = 0;
  Block* code = nullptr;  // the open code block
  while (begin <= answer.size()) {
    std::size_t end = answer.find('\n', begin);
    if (end == std::string_view::npos) end = answer.size();
    const std::string_view line = answer.substr(begin, end - begin);
    if (code != nullptr) {
      if (is_fence(line)) code = nullptr;
      else code->text.append(code->text.empty() ? "" : "\n").append(line);
    } else if (is_fence(line)) {
      end_paragraph();
      blocks.push_back({"", true, std::string(line.substr(line.find_first_not_of(" \t")))});
      code = &blocks.back();
    } else if (is_blank(line)) {
      end_paragraph();
    } else {
      paragraph.text.append(paragraph.text.empty() ? "" : "\n").append(line);
    }
    begin = end + 1;
  }
  end_paragraph();
  return blocks;
}

std::size_t length(std::string_view text) { return utf8::count_code_points(text); }

// A paragraph longer than `max_chars` cut at sentences, then lines, then spaces.
std::vector<std::string> cut_text(const std::string& text, std::size_t max_chars) {
  const SourceFile file("answer", "answer", text);
  const ByteRange all{0, text.size()};
  std::vector<std::string> pieces;
  for (const ByteRange r : split_range(file, all, {sentence_starts(text, all), line_starts(text, all)}, {max_chars, 0}))
    pieces.emplace_back(file.slice(r));
  return pieces;
}

// A code block longer than `max_chars` as several blocks, each closed and opened again, cut at
// lines (a line longer than what a block holds is cut at code points).
std::vector<std::string> cut_code(const Block& block, std::size_t max_chars) {
  const std::size_t overhead = length(block.fence) + 1 + 4;  // "```lang\n" + "\n```"
  const std::size_t room = max_chars > overhead ? max_chars - overhead : 1;
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin <= block.text.size()) {
    std::size_t end = block.text.find('\n', begin);
    if (end == std::string::npos) end = block.text.size();
    std::string_view line = std::string_view(block.text).substr(begin, end - begin);
    while (length(line) > room) {
      const std::size_t cut = utf8::prefix_bytes(line, room);
      lines.emplace_back(line.substr(0, cut));
      line.remove_prefix(cut);
    }
    lines.emplace_back(line);
    begin = end + 1;
  }
  std::vector<std::string> pieces;
  std::string body;
  const auto close = [&] {
    if (!body.empty()) pieces.push_back(block.fence + "\n" + body + "\n```");
    body.clear();
  };
  for (const auto& line : lines) {
    if (!body.empty() && length(body) + 1 + length(line) > room) close();
    body.append(body.empty() ? "" : "\n").append(line);
  }
  close();
  return pieces;
}

// A Markdown table: a header row, then its delimiter row (| --- |).
bool is_table(const Block& block) {
  if (block.code || !block.text.starts_with('|')) return false;
  const std::size_t second = block.text.find('\n');
  if (second == std::string::npos) return false;
  const std::string_view delimiter = std::string_view(block.text).substr(second + 1, block.text.find('\n', second + 1) - second - 1);
  return delimiter.starts_with('|') && delimiter.find('-') != std::string_view::npos &&
         delimiter.find_first_not_of("|-: ") == std::string_view::npos;
}

// A table longer than `max_chars` cut at rows, each piece under the header and delimiter rows
// (a row is read by its column names); what does not fit under them is cut as text.
std::vector<std::string> cut_table(const Block& block, std::size_t max_chars) {
  const std::size_t head_end = block.text.find('\n', block.text.find('\n') + 1);
  if (head_end == std::string::npos) return cut_text(block.text, max_chars);
  const std::string head = block.text.substr(0, head_end);
  if (2 * length(head) + 1 > max_chars) return cut_text(block.text, max_chars);
  std::vector<std::string> pieces;
  std::string rows;
  const auto close = [&] {
    if (!rows.empty()) pieces.push_back(head + "\n" + rows);
    rows.clear();
  };
  for (std::size_t begin = head_end + 1; begin <= block.text.size();) {
    std::size_t end = block.text.find('\n', begin);
    if (end == std::string::npos) end = block.text.size();
    const std::string_view row = std::string_view(block.text).substr(begin, end - begin);
    begin = end + 1;
    if (!rows.empty() && length(head) + 1 + length(rows) + 1 + length(row) > max_chars) close();
    if (length(head) + 1 + length(row) > max_chars) {
      for (auto& piece : cut_text(std::string(row), max_chars)) pieces.push_back(std::move(piece));
      continue;
    }
    rows.append(rows.empty() ? "" : "\n").append(row);
  }
  close();
  return pieces;
}

// A piece of a message: a paragraph, or a code block or table (or a part of one), with the
// sources it cites or, for code and tables, those of the paragraph that introduces them.
struct Piece {
  std::string text;
  std::vector<int> sources;
  bool introduces = false;  ///< a paragraph ending with ':' before code or a table: goes with it
};

}  // namespace

std::vector<ChatMessagePart> split_for_chat(std::string_view answer, std::size_t max_chars, std::size_t sources) {
  if (max_chars < 40) throw Error("messages of fewer than 40 characters cannot hold an answer");
  const std::vector<Block> blocks = blocks_of(answer);
  std::vector<bool> table(blocks.size());
  for (std::size_t b = 0; b < blocks.size(); ++b) table[b] = is_table(blocks[b]);
  // Code and tables are read under the paragraph that introduces them.
  const auto shown = [&](std::size_t b) { return blocks[b].code || table[b]; };
  std::vector<Piece> pieces;  // each within max_chars
  std::vector<int> introduced;  // the sources of the paragraph before, when it introduces this block
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const Block& block = blocks[b];
    const std::string whole = block.code ? block.fence + "\n" + block.text + "\n```" : block.text;
    std::vector<std::string> cut;
    if (length(whole) <= max_chars) cut.push_back(whole);
    else cut = block.code ? cut_code(block, max_chars) : table[b] ? cut_table(block, max_chars) : cut_text(block.text, max_chars);
    const bool introduces = !shown(b) && block.text.ends_with(':') && b + 1 < blocks.size() && shown(b + 1);
    for (std::size_t c = 0; c < cut.size(); ++c) {
      std::vector<int> cited = cited_numbers(cut[c], sources);
      if (cited.empty() && shown(b)) cited = introduced;
      pieces.push_back({std::move(cut[c]), std::move(cited), introduces && c + 1 == cut.size()});
    }
    introduced = introduces ? cited_numbers(block.text, sources) : std::vector<int>();
  }
  std::vector<ChatMessagePart> parts;
  ChatMessagePart part;
  const auto send = [&] {
    if (!part.text.empty()) parts.push_back(std::move(part));
    part = {};
  };
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    // An introduction starts a message with what it introduces when the two fit in one.
    std::size_t need = length(pieces[i].text);
    if (pieces[i].introduces && i + 1 < pieces.size() && need + 2 + length(pieces[i + 1].text) <= max_chars)
      need += 2 + length(pieces[i + 1].text);
    if (!part.text.empty() && length(part.text) + 2 + need > max_chars) send();
    part.text.append(part.text.empty() ? "" : "\n\n").append(pieces[i].text);
    for (const int source : pieces[i].sources)
      if (std::find(part.sources.begin(), part.sources.end(), source) == part.sources.end()) part.sources.push_back(source);
  }
  send();
  return parts;
}

}  // namespace rag
