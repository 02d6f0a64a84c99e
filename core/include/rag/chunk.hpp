#pragma once
// What chunkers produce and everything downstream consumes.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "rag/source_file.hpp"

namespace rag {

/// A piece of a file proposed by a chunker: a byte range and its place in the document.
struct ChunkSpan {
  ByteRange bytes;
  /// Markdown: the header path "Title > Section > Subsection"; Python: the qualified name
  /// "package.module.Class.method"; text: empty.
  std::string section;
};

/// A chunk as read from an index, in place: the strings point into the index's files.
struct ChunkView {
  std::string_view file_path;  ///< the file as results name it
  /// The end of file_path below the corpus root ("docs/a.md"), which retrievers index: the
  /// folders above it are the same in every chunk.
  std::string_view relative_path;
  std::string_view kind;       ///< the chunker that made it: "python", "markdown", "text", ...
  std::string_view section;    ///< see ChunkSpan::section
  std::string_view text;
  std::size_t first_char = 0;  ///< code points, end exclusive: file_text[first_char:last_char] == text
  std::size_t last_char = 0;
  std::size_t first_byte = 0;  ///< the same span in bytes
  std::size_t last_byte = 0;
  std::size_t first_line = 0;  ///< the lines of its first and last character, 1-based (see SourceFile::line_of)
  std::size_t last_line = 0;
};

/// A chunk as a chunker's output is turned into, before it is written to an index.
struct Chunk {
  std::string file_path;
  std::string kind;
  std::string section;
  std::size_t first_char = 0;
  std::size_t last_char = 0;
  std::size_t first_byte = 0;
  std::size_t last_byte = 0;
  std::string text;
  std::size_t first_line = 0;
  std::size_t last_line = 0;

  /// The chunk as a view; its relative path is the whole file path (a Chunk does not know its
  /// corpus root).
  ChunkView view() const {
    return {file_path, file_path, kind, section, text, first_char, last_char, first_byte, last_byte, first_line, last_line};
  }
};

/// A chunk of its own, copied from a view.
inline Chunk owned(const ChunkView& v) {
  return {std::string(v.file_path), std::string(v.kind), std::string(v.section), v.first_char, v.last_char, v.first_byte,
          v.last_byte, std::string(v.text), v.first_line, v.last_line};
}

/// The order of chunks that score the same: by file, then span, then kind. It does not depend on
/// where the chunks are stored, so neither do results.
inline bool chunk_before(const ChunkView& a, const ChunkView& b) {
  return std::tie(a.file_path, a.first_char, a.last_char, a.kind) < std::tie(b.file_path, b.first_char, b.last_char, b.kind);
}

/// Chunks by id: those of an index (Index) or of a list in memory (ChunkVector). Ids are below
/// id_limit(); an index keeps the ids of chunks it removed, which no method below returns.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual std::uint32_t id_limit() const = 0;
  virtual ChunkView chunk(std::uint32_t id) const = 0;
  /// The ids of the chunks of the file `file_path` names, in the order of their spans.
  virtual std::vector<std::uint32_t> chunks_of(std::string_view file_path) const = 0;
  /// Calls `visit(id, chunk)` for every chunk, in id order.
  virtual void for_each(const std::function<void(std::uint32_t, const ChunkView&)>& visit) const = 0;
};

}  // namespace rag
