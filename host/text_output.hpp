#pragma once
// Results for people (`--format text`): each result as `path:first-last  section  score`, then
// its lines that hold words of the query, with line numbers and those words highlighted on a
// terminal; answers followed by their numbered references.
#include <string>
#include <string_view>
#include <unordered_set>

#include "rag/analyzer.hpp"

namespace rag::cli {

/// "path:12-40", or "path:12" for one line.
std::string location(const std::string& path, std::size_t first_line, std::size_t last_line);

/// Marks the words of a text that match a query's terms, as the default analysis sees them
/// (identifiers split, English stems), so "parse port" marks `parse_port` and "ports".
class Highlighter {
 public:
  /// `color`: ANSI bold on a terminal (and NO_COLOR unset), else plain text.
  Highlighter(std::string_view query, bool color);

  /// The lines of `text`, whose first line is line `first_line` of its file, that hold words of
  /// the query (at most `max`; the first lines when none does), each as "  NN | line".
  std::string matching_lines(std::string_view text, std::size_t first_line, std::size_t max) const;
  /// `text` with the query's words marked.
  std::string mark(std::string_view text) const;
  /// `text` emphasised as a heading would be (bold on a terminal).
  std::string strong(std::string_view text) const;
  /// `text` set back, for what matters less (dim on a terminal).
  std::string faint(std::string_view text) const;

 private:
  bool matches(std::string_view word) const;
  bool has_match(std::string_view text) const;

  Analyzer analyzer_;
  std::unordered_set<std::string> terms_;
  bool color_;
};

/// Whether stdout is a terminal that takes colors (NO_COLOR unset).
bool stdout_takes_color();

}  // namespace rag::cli
