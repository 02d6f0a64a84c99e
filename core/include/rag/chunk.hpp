#pragma once
// What chunkers produce and everything downstream consumes.
#include <cstddef>
#include <span>
#include <string>

#include "rag/source_file.hpp"

namespace rag {

/// A piece of a file proposed by a chunker: a byte range and its place in the document.
struct ChunkSpan {
  ByteRange bytes;
  /// Markdown: the header path "Title > Section > Subsection"; Python: the qualified name
  /// "package.module.Class.method"; text: empty.
  std::string section;
};

/// A chunk of the corpus as stored in the index and reported to users.
struct Chunk {
  std::string file_path;     ///< the file as results name it
  std::string kind;          ///< the chunker that made it: "python", "markdown", "text", ...
  std::string section;       ///< see ChunkSpan::section
  std::size_t first_char = 0;  ///< code points, end exclusive: file_text[first_char:last_char] == text
  std::size_t last_char = 0;
  std::size_t first_byte = 0;  ///< the same span in bytes
  std::size_t last_byte = 0;
  std::string text;
  std::size_t first_line = 0;  ///< the lines of its first and last character, 1-based (see SourceFile::line_of)
  std::size_t last_line = 0;
};

/// All chunks of an index, in a stable order; a chunk's position is its id.
using ChunkList = std::span<const Chunk>;

}  // namespace rag
