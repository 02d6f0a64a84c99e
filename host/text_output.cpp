#include "text_output.hpp"

#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace rag::cli {

std::string counted(std::size_t n, std::string_view what) {
  std::string text = std::to_string(n) + " ";
  text += what;
  if (n != 1) text += 's';
  return text;
}
namespace {

constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kMatch = "\x1b[1;31m";
constexpr std::string_view kDim = "\x1b[2m";
constexpr std::string_view kReset = "\x1b[0m";

// Word characters for marking: letters, digits, '_' and every byte of a non-ASCII code point.
bool is_word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Calls visit(piece, is_word) for each run of word bytes and of other bytes of `text`, in order.
template <class Visit>
void for_each_piece(std::string_view text, Visit visit) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    const bool word = is_word_byte(text[begin]);
    std::size_t end = begin;
    while (end < text.size() && is_word_byte(text[end]) == word) ++end;
    visit(text.substr(begin, end - begin), word);
    begin = end;
  }
}

std::string wrap(std::string_view text, std::string_view code, bool color) {
  if (!color) return printable(text);
  std::string out(code);
  out += printable(text);
  out += kReset;
  return out;
}

// `text` with control characters shown as ^X, line feed and tab too unless `lines`.
std::string shown(std::string_view text, bool lines) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && !(lines && (c == '\t' || c == '\n'))) || u == 0x7f) {
      out += '^';
      out += static_cast<char>(u ^ 0x40);  // ESC -> ^[, DEL -> ^?
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) { return shown(text, true); }

Style Style::for_stdout() {
  const char* no_color = std::getenv("NO_COLOR");
  return Style(::isatty(STDOUT_FILENO) == 1 && (no_color == nullptr || *no_color == '\0'));
}

std::string Style::strong(std::string_view text) const { return wrap(text, kBold, color_); }
std::string Style::faint(std::string_view text) const { return wrap(text, kDim, color_); }
std::string Style::match(std::string_view text) const { return wrap(text, kMatch, color_); }

std::string location(const std::string& path, std::size_t first_line, std::size_t last_line) {
  // Appended piece by piece: `"-" + temporary` trips a false -Wrestrict of GCC 12 at -O3. A file
  // name may hold a line feed: a location stays one line.
  std::string out = shown(path, false);
  out += ':';
  out += std::to_string(first_line);
  if (last_line != first_line) {
    out += '-';
    out += std::to_string(last_line);
  }
  return out;
}

Highlighter::Highlighter(std::string_view query, Style style) : analyzer_(AnalyzerConfig{}), style_(style) {
  for (auto& term : analyzer_.analyze(query)) terms_.insert(std::move(term));
}

bool Highlighter::matches(std::string_view word) const {
  for (const auto& term : analyzer_.analyze(word))
    if (terms_.count(term)) return true;
  return false;
}

bool Highlighter::has_match(std::string_view text) const {
  bool hit = false;
  for_each_piece(text, [&](std::string_view piece, bool word) { hit = hit || (word && matches(piece)); });
  return hit;
}

std::string Highlighter::mark(std::string_view text) const {
  std::string out;
  for_each_piece(text, [&](std::string_view piece, bool word) {
    out += word && matches(piece) ? style_.match(piece) : printable(piece);
  });
  return out;
}

std::string Highlighter::matching_lines(std::string_view text, std::size_t first_line, std::size_t max) const {
  struct Line {
    std::size_t number;
    std::string_view text;
  };
  std::vector<Line> lines;
  for (std::size_t begin = 0, number = first_line; begin <= text.size(); ++number) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({number, line});
    begin = end + 1;
  }
  std::vector<const Line*> shown;
  for (const Line& line : lines)
    if (shown.size() < max && has_match(line.text)) shown.push_back(&line);
  if (shown.empty())  // matched by its path or section alone: its first lines say what it is
    for (const Line& line : lines)
      if (shown.size() < std::min<std::size_t>(max, 2) && line.text.find_first_not_of(" \t") != std::string_view::npos)
        shown.push_back(&line);
  const std::size_t width = std::to_string(lines.back().number).size();
  std::string out;
  for (const Line* line : shown) {
    const std::string number = std::to_string(line->number);
    out += "  " + std::string(width - number.size(), ' ') + style_.faint(number) + " | " + mark(line->text) + "\n";
  }
  return out;
}


}  // namespace rag::cli
