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

}  // namespace

std::vector<ChatMessagePart> split_for_chat(std::string_view answer, std::size_t max_chars) {
  if (max_chars < 40) throw Error("messages of fewer than 40 characters cannot hold an answer");
  std::vector<std::string> pieces;  // each within max_chars
  for (const Block& block : blocks_of(answer)) {
    const std::string whole = block.code ? block.fence + "\n" + block.text + "\n```" : block.text;
    if (length(whole) <= max_chars) pieces.push_back(whole);
    else
      for (auto& piece : block.code ? cut_code(block, max_chars) : cut_text(block.text, max_chars))
        pieces.push_back(std::move(piece));
  }
  std::vector<ChatMessagePart> parts;
  std::string text;
  const auto send = [&] {
    if (text.empty()) return;
    parts.push_back({text, cited_numbers(text)});
    text.clear();
  };
  for (const auto& piece : pieces) {
    if (!text.empty() && length(text) + 2 + length(piece) > max_chars) send();
    text.append(text.empty() ? "" : "\n\n").append(piece);
  }
  send();
  return parts;
}

}  // namespace rag
