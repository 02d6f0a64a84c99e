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

TEST(SplitRange, ALastPieceFarUnderTheLimitIsBalancedWithTheOneBefore) {
  // Ten 9-character lines and a 4-character one, at most 100 characters a piece: greedy packing
  // gives 99 + 4; the cut moves back to a line start that balances them.
  std::string text;
  for (int i = 0; i < 10; ++i) text += "line " + std::to_string(i) + "...\n";
  text += "tail";
  const SourceFile file("f", "f", text);
  const ByteRange all{0, text.size()};
  const auto pieces = split_range(file, all, {line_starts(text, all)}, {100, 0});
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(file.char_count(pieces[0]), 49u);  // lines 0-4
  EXPECT_EQ(file.char_count(pieces[1]), 54u);  // lines 5-9 and the tail
  EXPECT_EQ(pieces[0].end + 1, pieces[1].begin);

  // Without a boundary that leaves both pieces over an eighth of the limit, the runt stays.
  const std::string two = std::string(98, 'a') + "\nbb";
  const SourceFile short_tail("g", "g", two);
  const auto kept = split_range(short_tail, {0, two.size()}, {line_starts(two, {0, two.size()})}, {100, 0});
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(short_tail.char_count(kept[1]), 2u);
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
