#include "rag/span_splitter.hpp"

#include <gtest/gtest.h>

namespace rag {
namespace {

TEST(SplitRange, NeverReturnsBlankPieces) {
  // A blank segment fitting right after one that had to be cut further used to give [12, 12).
  const SourceFile file("f", "f", "aaaaaaaaaa\n\nbbbbbbbbbbbb\n");
  const ByteRange all{0, file.text().size()};
  const auto pieces = split_range(file, all, {line_starts(file.text(), all)}, {5, 0});
  ASSERT_FALSE(pieces.empty());
  for (const auto& p : pieces) {
    EXPECT_FALSE(p.empty());
    EXPECT_LE(file.char_count(p), 5u);
  }
}

TEST(SplitRange, LoneCarriageReturnsSeparateParagraphs) {
  const std::string text = "one\r\rtwo\rthree";
  EXPECT_EQ(paragraph_starts(text, {0, text.size()}), std::vector<std::size_t>{5});
}

TEST(SplitRange, SentenceStartsSkipWhitespaceAndKnowCjkStops) {
  const std::string text = "A b.  C d? E\xE3\x80\x82" "F";
  EXPECT_EQ(sentence_starts(text, {0, text.size()}), (std::vector<std::size_t>{6, 11, 15}));
}

TEST(SourceFileOffsets, PastTheEndClampsToTheSize) {
  const SourceFile f("x", "x", "\xC3\xA9t\xC3\xA9");  // "été": 3 code points, 5 bytes
  EXPECT_EQ(f.byte_offset(3), 5u);
  EXPECT_EQ(f.byte_offset(99), 5u);
}

}  // namespace
}  // namespace rag
