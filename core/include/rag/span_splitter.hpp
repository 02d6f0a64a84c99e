#pragma once
// Cutting a range of text into pieces under a size limit, at the best boundaries available.
// Shared by every chunker: they differ in which boundaries they offer, not in how to pack.
#include <cstddef>
#include <string_view>
#include <vector>

#include "rag/chunk.hpp"
#include "rag/source_file.hpp"

namespace rag {

struct SplitLimits {
  std::size_t max_chars = 2000;  ///< no piece is longer, in code points
  /// Each piece after the first also takes up to this many code points of the text before it,
  /// starting at a boundary, still within max_chars.
  std::size_t overlap_chars = 0;
};

/// Cuts `range` of `file` into pieces of at most `limits.max_chars` code points.
/// `levels` lists candidate cut positions (byte offsets, any order), coarsest first. The range
/// is cut at the coarsest level, packing consecutive segments into a piece while they fit; a
/// segment still too long is cut at the next level, and past the last level at whitespace or,
/// failing that, at any code-point boundary. A last piece under an eighth of the limit moves its
/// cut back to balance it with the piece before, where a boundary allows. Pieces are trimmed of
/// surrounding whitespace and blank pieces dropped, so the result may be empty.
std::vector<ByteRange> split_range(const SourceFile& file, ByteRange range,
                                   const std::vector<std::vector<std::size_t>>& levels,
                                   SplitLimits limits);

/// The floor under which a chunker's span is a crumb (a lone header, a `raise`): too little to
/// answer anything alone, yet ranked first by any score that favours short texts.
inline constexpr std::size_t kDefaultMinChunkChars = 50;

/// Merges every span of `spans` (one chunker's, in file order) shorter than `min_chars` code
/// points into a neighbour, the way a recursive splitter packs small pieces: the neighbour of the
/// same scope first (the section the crumb opens, or the one it ends), else the one that makes
/// the smaller chunk, as long as the merged span, from the first byte of one to the last of the
/// other, stays within `max_chars`. The merged span is named by the deepest section both lie in,
/// `separator` joining the levels of a section (" > " for header paths, "." or "::" for qualified
/// names). A crumb that fits with neither neighbour takes whole lines of one instead (the cut
/// between them moves); a file shorter than the floor stays one span.
void absorb_small_spans(const SourceFile& file, std::vector<ChunkSpan>& spans, std::size_t min_chars,
                        std::size_t max_chars, std::string_view separator);

/// `range` without leading and trailing whitespace (empty if it is all whitespace).
ByteRange trim(std::string_view text, ByteRange range);

/// Byte offsets inside `range` where a paragraph starts after one or more blank lines.
std::vector<std::size_t> paragraph_starts(std::string_view text, ByteRange range);
/// Byte offsets inside `range` where a line starts (after "\n", "\r\n" or a lone "\r").
std::vector<std::size_t> line_starts(std::string_view text, ByteRange range);
/// Byte offsets inside `range` where a sentence starts: after ". ", "! ", "? " (and the CJK
/// full stops) once the following whitespace is skipped.
std::vector<std::size_t> sentence_starts(std::string_view text, ByteRange range);

/// Whether a line, leading spaces and tabs skipped, opens or closes a Markdown code fence (```
/// or ~~~).
bool is_fence_line(std::string_view line);
/// Whether a line, leading whitespace removed, opens a Markdown list item ("- x", "* x", "+ x",
/// "1. x", "2) x").
bool is_list_item(std::string_view line);
/// The block a Markdown sentence ending in ':' announces, when `from` is the end of that sentence
/// ("Start the server with:"): after blank lines, a fenced code block, a table or a list, up to
/// `max_chars` code points cut at a line end. Its end (a byte offset of `text`), or `from` when
/// what follows is none of those.
std::size_t announced_block_end(std::string_view text, std::size_t from, std::size_t max_chars);

}  // namespace rag
