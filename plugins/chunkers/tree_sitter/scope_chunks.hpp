#pragma once
// How the tree-sitter chunkers (python, cpp) turn the scopes they find into chunks: the sizes
// they read from their options, where a file may be cut below the items of a scope, and the
// merging of small sibling pieces (min_chunk_size). What makes a scope, an item or a definition
// is each language's own.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/options.hpp"
#include "rag/source_file.hpp"
#include "rag/span_splitter.hpp"

namespace rag::tree_sitter {

/// A chunker's sizes, from its options: max_chunk_size (code points, default 2000) and
/// min_chunk_size (code points, default kDefaultMinChunkChars, at most max_chunk_size): adjacent
/// sibling pieces of one scope that are each shorter than this are merged into one chunk, named
/// after the scope, while the merged span stays within max_chunk_size; a piece still shorter is
/// then merged with a neighbour (absorb_small_spans).
struct ChunkSizes {
  /// Reads both options; the chunker finishes `options` itself, once it has read its own.
  static ChunkSizes read(Options& options);

  SplitLimits limits;
  std::size_t min_chars = 0;
};

/// The chunks of one file, in file order, as its scopes add them (see ScopeChunks), and where
/// its text may be cut inside a run of items: at nested statements, then at lines.
class FileChunks {
 public:
  /// `blanks`: the characters that may indent a line in the file's language; `separator`: what
  /// joins the levels of a qualified name ("." or "::").
  FileChunks(const SourceFile& file, ChunkSizes sizes, std::string_view blanks, std::string_view separator);

  /// Only indentation (`blanks`) precedes `pos` on its line.
  bool starts_line(std::size_t pos) const;
  /// Where the line that holds `pos` begins.
  std::size_t line_begin(std::size_t pos) const;
  /// `range`, trimmed of whitespace, is within max_chunk_size.
  bool fits(ByteRange range) const;

  /// Where the statements and clauses nested inside items begin (any order, repeats allowed):
  /// the cuts a run takes before its lines. Set before any scope adds a run.
  void set_nested_starts(std::vector<std::size_t> starts);

  /// The chunks, once every scope is done, crumbs under min_chunk_size merged with a neighbour
  /// (absorb_small_spans).
  std::vector<ChunkSpan> take() &&;

 private:
  friend class ScopeChunks;  // adds the chunks, cutting runs where this class says

  const SourceFile& file_;
  std::string_view text_;
  ChunkSizes sizes_;
  std::string_view blanks_;
  std::string_view separator_;
  std::vector<std::size_t> lines_;          // where each line starts, sorted
  std::vector<std::size_t> nested_starts_;  // sorted, without repeats
  std::vector<ChunkSpan> out_;
};

/// The chunks of one scope, added in file order: runs of its items, cut to size, and whole
/// definitions. A piece under min_chunk_size waits for the next one to merge with; the merged
/// chunk takes the piece's own section when it stays alone, else the scope's name.
class ScopeChunks {
 public:
  /// `scope`: the qualified name of the scope, which names its runs and merged pieces.
  ScopeChunks(FileChunks& chunks, std::string scope);

  /// Consecutive items of the scope spanning `range`, cut at `item_starts` (those that start a
  /// line) first, then at nested statements, then at lines. A run from the scope's start
  /// carries the scope's header with it.
  void add_run(ByteRange range, const std::vector<std::size_t>& item_starts);
  /// A piece named `section`: a definition kept whole, or a piece of a run.
  void add(ByteRange piece, const std::string& section);
  /// The waiting pieces become a chunk: before the chunks of a nested scope, which must not
  /// merge with them, and when the scope is done.
  void flush();

 private:
  FileChunks& chunks_;
  std::string scope_;
  ByteRange waiting_;             // the pieces waiting to merge, as one span
  std::string waiting_section_;   // the section of the first of them
  std::size_t waiting_count_ = 0;
};

}  // namespace rag::tree_sitter
