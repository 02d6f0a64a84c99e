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

TEST(AnnouncedBlock, IsTheCodeTableOrListAfterTheSentence) {
  // The end of `what` after the sentence "Run:" that ends at `from`.
  const auto after = [](const std::string& text, std::size_t max_chars = 1000) {
    const std::size_t from = text.find(':') + 1;
    return text.substr(from, announced_block_end(text, from, max_chars) - from);
  };
  EXPECT_EQ(after("Run:\n\n```bash\nvllm serve m\n```\n\nThen ask."), "\n\n```bash\nvllm serve m\n```");
  EXPECT_EQ(after("Backends:\n| a | b |\n|---|---|\n| x | y |\nAfter."), "\n| a | b |\n|---|---|\n| x | y |");
  // List items, their continuation lines, blank lines between items; a paragraph or a heading ends it.
  EXPECT_EQ(after("Needs:\n\n- one\n  more\n- two\nlazy\n\n1. three\n\nNot an item.\n"),
            "\n\n- one\n  more\n- two\nlazy\n\n1. three");
  EXPECT_EQ(after("Needs:\n- one\n## Next\n- two"), "\n- one");
  // A paragraph is not announced, nor anything past two blank lines.
  EXPECT_EQ(after("Note:\nplain words.\n"), "");
  EXPECT_EQ(after("Run:\n\n\n\n```\nx\n```"), "");
  EXPECT_EQ(after("Run:"), "");
  // Whole lines up to the limit; nothing when the first line alone is longer.
  EXPECT_EQ(after("Run:\n- aaaa\n- bbbb\n- cccc", 15), "\n- aaaa\n- bbbb");
  EXPECT_EQ(after("Run:\n- aaaa", 3), "");
  // A CRLF file's last '\r' stays out.
  EXPECT_EQ(after("Run:\r\n- a\r\n- b\r\n\r\nText"), "\r\n- a\r\n- b");
  // An unclosed fence runs to the limit.
  EXPECT_EQ(after("Run:\n```\nx\ny", 100), "\n```\nx\ny");
}

TEST(AnnouncedBlock, ListItemsAreBulletsOrNumbers) {
  for (const std::string_view item : {"- a", "* a", "+ a", "1. a", "12) a"}) EXPECT_TRUE(is_list_item(item)) << item;
  for (const std::string_view other : {"-a", "1.a", "a. b", "1.", "**bold**", ""}) EXPECT_FALSE(is_list_item(other)) << other;
}

// Spans of `file` from their first words, each to the end of its line, with sections.
std::vector<ChunkSpan> spans_at(const SourceFile& file, const std::vector<std::pair<std::string, std::string>>& starts) {
  std::vector<ChunkSpan> out;
  for (const auto& [words, section] : starts) {
    const std::size_t begin = file.text().find(words);
    out.push_back({{begin, file.text().find('\n', begin)}, section});
  }
  return out;
}

std::vector<std::string> texts_of(const SourceFile& file, const std::vector<ChunkSpan>& spans) {
  std::vector<std::string> out;
  for (const auto& s : spans) out.emplace_back(std::string(file.slice(s.bytes)) + " @" + s.section);
  return out;
}

TEST(AbsorbSmallSpans, ACrumbJoinsTheNeighbourOfItsScope) {
  const SourceFile file("m.py", "m.py",
                        "def long_function_name_before(): return 'something long'\n"
                        "class Box:\n"
                        "    def method_with_a_long_name(self): return self.value\n"
                        "    raise X\n"
                        "def another_long_function_after(): return 'more text'\n");
  auto spans = spans_at(file, {{"def long", "m.long_function_name_before"},
                               {"class Box", "m.Box"},
                               {"def method", "m.Box.method_with_a_long_name"},
                               {"raise", "m.Box.method_with_a_long_name"},
                               {"def another", "m.another_long_function_after"}});
  absorb_small_spans(file, spans, 20, 200, ".");
  // The class header opens the method's scope, the `raise` ends it.
  EXPECT_EQ(texts_of(file, spans),
            (std::vector<std::string>{
                "def long_function_name_before(): return 'something long' @m.long_function_name_before",
                "class Box:\n    def method_with_a_long_name(self): return self.value\n    raise X @m.Box",
                "def another_long_function_after(): return 'more text' @m.another_long_function_after"}));
}

TEST(AbsorbSmallSpans, WithoutScopesTheSmallerMergeWinsAndLimitsHold) {
  const SourceFile file("t.txt", "t.txt", "A long first paragraph of text.\nshort\nA second paragraph, a bit longer than the first.\n");
  auto spans = spans_at(file, {{"A long", ""}, {"short", ""}, {"A second", ""}});
  auto copy = spans;
  absorb_small_spans(file, spans, 10, 200, "");
  EXPECT_EQ(texts_of(file, spans), (std::vector<std::string>{"A long first paragraph of text.\nshort @",
                                                             "A second paragraph, a bit longer than the first. @"}));
  // Neither neighbour can take it whole under a limit of 35: it takes lines of one instead, or,
  // when no line can be spared, stays.
  absorb_small_spans(file, copy, 10, 35, "");
  EXPECT_EQ(texts_of(file, copy).size(), 3u);
  const SourceFile lines("l.txt", "l.txt", "line one of many\nline two of many\nline three\nx\n");
  std::vector<ChunkSpan> two{{{0, 44}, ""}, {{45, 46}, ""}};
  absorb_small_spans(lines, two, 5, 44, "");
  EXPECT_EQ(texts_of(lines, two), (std::vector<std::string>{"line one of many\nline two of many @", "line three\nx @"}));
  // A file that is one crumb stays one.
  const SourceFile tiny("x.txt", "x.txt", "pandas");
  std::vector<ChunkSpan> one{{{0, 6}, ""}};
  absorb_small_spans(tiny, one, 50, 2000, "");
  EXPECT_EQ(one.size(), 1u);
}

TEST(SourceFileOffsets, PastTheEndClampsToTheSize) {
  const SourceFile f("x", "x", "\xC3\xA9t\xC3\xA9");  // "été": 3 code points, 5 bytes
  EXPECT_EQ(f.byte_offset(3), 5u);
  EXPECT_EQ(f.byte_offset(99), 5u);
}

}  // namespace
}  // namespace rag
