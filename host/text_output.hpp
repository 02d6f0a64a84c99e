#pragma once
// Results for people (`--format text`): each result as `path:first-last  section  score`, then
// its lines that hold words of the query, with line numbers and those words highlighted on a
// terminal; answers followed by their numbered references.
#include <string>
#include <string_view>
#include <unordered_set>

#include "rag/analyzer.hpp"

namespace rag::cli {

/// "1 result", "3 results": a count and what it counts, in the plural (an s) unless it is 1.
std::string counted(std::size_t n, std::string_view what);

/// "path:12-40", or "path:12" for one line; the path's control characters, line feeds and tabs
/// included, shown as ^X.
std::string location(const std::string& path, std::size_t first_line, std::size_t last_line);

/// `text` safe to print on a terminal: control characters but tab and line feed shown as ^X, so
/// that a corpus file cannot move the cursor or change colors.
std::string printable(std::string_view text);

/// How text for people is set off: ANSI bold, dim and highlight on a terminal that takes colors,
/// plain text anywhere else.
class Style {
 public:
  explicit Style(bool color) : color_(color) {}
  /// Whether stdout is a terminal that takes colors (NO_COLOR unset).
  static Style for_stdout();

  std::string strong(std::string_view text) const;  ///< headings: bold
  std::string faint(std::string_view text) const;   ///< what matters less: dim
  std::string match(std::string_view text) const;   ///< words of the query: bold red

 private:
  bool color_;
};

/// Marks the words of a text that match a query's terms, as the default analysis sees them
/// (identifiers split, English stems), so "parse port" marks `parse_port` and "ports".
class Highlighter {
 public:
  Highlighter(std::string_view query, Style style);

  /// The lines of `text`, whose first line is line `first_line` of its file, that hold words of
  /// the query (at most `max`; the first lines when none does), each as "  NN | line", printable.
  std::string matching_lines(std::string_view text, std::size_t first_line, std::size_t max) const;
  /// `text` with the query's words marked, printable.
  std::string mark(std::string_view text) const;

 private:
  bool matches(std::string_view word) const;
  bool has_match(std::string_view text) const;

  Analyzer analyzer_;
  std::unordered_set<std::string> terms_;
  Style style_;
};

}  // namespace rag::cli
