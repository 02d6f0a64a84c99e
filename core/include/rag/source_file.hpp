#pragma once
// A corpus file as chunkers see it: its text (valid UTF-8, bytes exactly as on disk) and the
// mapping from byte offsets to the code-point offsets users and graders count in.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rag {

/// A half-open byte range [begin, end) of a file's text.
struct ByteRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const { return end - begin; }
  bool empty() const { return begin >= end; }
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

class SourceFile {
 public:
  /// `name` is the path results report (e.g. "data/raw/vllm-0.10.1/docs/a.md"), `relative_path`
  /// the path below the corpus root ("docs/a.md"). Throws rag::Error when `text` is not UTF-8.
  SourceFile(std::string name, std::string relative_path, std::string text);

  const std::string& name() const { return name_; }
  const std::string& relative_path() const { return relative_path_; }
  std::string_view text() const { return text_; }
  std::string_view slice(ByteRange r) const { return std::string_view(text_).substr(r.begin, r.size()); }

  /// Code-point index of the code point that starts at byte `byte` (or of the end, for size()).
  std::size_t char_offset(std::size_t byte) const;
  /// Length of a byte range in code points.
  std::size_t char_count(ByteRange r) const { return char_offset(r.end) - char_offset(r.begin); }
  /// The byte offset of code point `char_index` (the inverse of char_offset); size() past the end.
  std::size_t byte_offset(std::size_t char_index) const;
  /// The 1-based number of the line the byte at `byte` is on; lines end at "\n", as editors,
  /// grep and `path:line` links count them.
  std::size_t line_of(std::size_t byte) const;
  /// The lines a non-empty byte range spans, first and last (1-based).
  std::pair<std::size_t, std::size_t> lines_of(ByteRange r) const { return {line_of(r.begin), line_of(r.end - 1)}; }

 private:
  std::string name_;
  std::string relative_path_;
  std::string text_;
  // Code-point index at every byte; left empty for pure ASCII, where the two agree.
  std::vector<std::uint32_t> char_at_byte_;
  std::vector<std::size_t> line_ends_;  ///< byte offsets of every "\n"
};

}  // namespace rag
