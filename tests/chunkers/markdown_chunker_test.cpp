#include "markdown_chunker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "chunk_invariants.hpp"
#include "rag/file_io.hpp"

namespace rag {
namespace {

struct Settings {
  int max = 2000;
  int overlap = 0;
  int min = 0;
  bool pack = false;
};

MarkdownChunker make_chunker(Settings settings) {
  YAML::Node node;
  node["max_chunk_size"] = settings.max;
  node["overlap"] = settings.overlap;
  node["min_chunk_size"] = settings.min;
  node["pack_sections"] = settings.pack;
  Options options(node, "test");
  return MarkdownChunker(options);
}

std::string fixture(const std::string& name) {
  return read_file(std::filesystem::path(RAG_TEST_FIXTURES) / "markdown" / name);
}

struct Chunked {
  SourceFile file;
  std::vector<ChunkSpan> spans;

  std::vector<std::string> texts() const {
    std::vector<std::string> out;
    for (const auto& s : spans) out.emplace_back(file.slice(s.bytes));
    return out;
  }
  std::vector<std::string> sections() const {
    std::vector<std::string> out;
    for (const auto& s : spans) out.push_back(s.section);
    return out;
  }
};

Chunked chunk(std::string text, Settings settings = {}) {
  Chunked out{SourceFile("f.md", "f.md", std::move(text)), {}};
  out.spans = make_chunker(settings).chunk(out.file);
  testing::expect_valid_spans(out.file, out.spans, static_cast<std::size_t>(settings.max), settings.overlap > 0);
  testing::expect_no_text_lost(out.file, out.spans);
  return out;
}

using Strings = std::vector<std::string>;

TEST(MarkdownChunker, OneChunkPerSectionWithItsHeaderPath) {
  const auto c = chunk(fixture("headers.md"));
  EXPECT_EQ(c.sections(), (Strings{"", "Guide", "Guide > Install", "Guide > Install > From source", "Guide > Usage",
                                   "Appendix", "Appendix > Skipped level", "Appendix > Back up", "Other Title",
                                   "Other Title > Sub part", "Other Title > A heading on two lines"}));
  const auto texts = c.texts();
  ASSERT_EQ(texts.size(), 11u);
  EXPECT_EQ(texts[0], "Intro text before any heading.");
  EXPECT_EQ(texts[1], "# Guide\n\nGuide intro.");
  // Headings inside block quotes and list items are content, not sections.
  EXPECT_EQ(texts[4], "## Usage ##\n\nUse it.\n\n> # Quoted heading\n>\n> Not a section.\n\n- # Listed heading");
  EXPECT_EQ(texts[8], "Other Title\n===========\n\nSetext intro.");
  EXPECT_EQ(texts[10], "A heading on\ntwo lines\n---------\n\nLast text.");
}

TEST(MarkdownChunker, HashLinesInCodeAreNotHeadings) {
  const std::string text = fixture("fences.md");
  const auto c = chunk(text);
  EXPECT_EQ(c.sections(), (Strings{"Shell", "Shell > Next"}));
  EXPECT_EQ(c.texts(), (Strings{text.substr(0, text.find("\n\n## Next")), "## Next\n\nDone."}));
}

TEST(MarkdownChunker, HeadingTextIsTheSourceLine) {
  const auto c = chunk("## The `LLM` class ##\n\nx\n\n# C#\n\ny\n\n#\tTabbed\n\nz\n\n### *Deep* [link](u.md)\n");
  EXPECT_EQ(c.sections(), (Strings{"The `LLM` class", "C#", "Tabbed", "Tabbed > *Deep* [link](u.md)"}));
}

TEST(MarkdownChunker, HeadingsWithoutTextStillStartSections) {
  const auto c = chunk("# A\n\ntext\n\n##\n\nmore\n\n### C #\n\nc\n\n## ##\n\nend\n");
  EXPECT_EQ(c.texts(), (Strings{"# A\n\ntext", "##\n\nmore", "### C #\n\nc", "## ##\n\nend"}));
  EXPECT_EQ(c.sections(), (Strings{"A", "A", "A > C", "A"}));
}

TEST(MarkdownChunker, IndentedFenceAfterAParagraphContinuesIt) {
  // As in mkdocs admonitions. md4c 0.4.8 alone would take the indented fence for a code block
  // running up to the "```" below B, and B and C would be lost.
  const auto c = chunk("# A\n\n??? console \"pip\"\n    ```bash\n    pip install vllm\n    ```\n\nText.\n\n"
                       "## B\n\n```bash\nls\n```\n\n## C\n\nEnd.\n");
  EXPECT_EQ(c.sections(), (Strings{"A", "A > B", "A > C"}));
  EXPECT_EQ(c.texts()[1], "## B\n\n```bash\nls\n```");
}

TEST(MarkdownChunker, FrontMatterBelongsToTheFirstSection) {
  const auto c = chunk(fixture("front_matter.md"));
  EXPECT_EQ(c.texts(), (Strings{"---\ntitle: \"Engine Arguments\"\ntoc_depth: 3\n---\n\nPreamble paragraph.",
                                "# Engine Arguments\n\nText."}));
  EXPECT_EQ(c.sections(), (Strings{"Engine Arguments", "Engine Arguments"}));

  // Without a title the text before the first heading has an empty path.
  const auto untitled = chunk("---\nhide:\n  - toc\n---\n\n# Welcome\n\nHi.\n");
  EXPECT_EQ(untitled.texts(), (Strings{"---\nhide:\n  - toc\n---", "# Welcome\n\nHi."}));
  EXPECT_EQ(untitled.sections(), (Strings{"", "Welcome"}));

  // Thematic breaks around a paragraph are markdown, not front matter.
  const auto breaks = chunk("---\n\nNot yaml.\n\n---\n\n# H\n\nx\n");
  EXPECT_EQ(breaks.texts(), (Strings{"---\n\nNot yaml.\n\n---", "# H\n\nx"}));
}

TEST(MarkdownChunker, ByteOrderMarkIsNotPartOfTheFirstLine) {
  const auto c = chunk("\xEF\xBB\xBF# Title\n\ntext\n");
  EXPECT_EQ(c.sections(), (Strings{"Title"}));
  const auto with_front_matter = chunk("\xEF\xBB\xBF---\ntitle: T\n---\n# H\n");
  EXPECT_EQ(with_front_matter.sections(), (Strings{"T", "H"}));
}

TEST(MarkdownChunker, LongSectionIsCutAtBlocks) {
  const auto c = chunk(
      "# Title\n\nFirst paragraph here.\n\nSecond paragraph here.\n\n- item one\n- item two\n\n## Next\n\nShort.", {40});
  EXPECT_EQ(c.texts(), (Strings{"# Title\n\nFirst paragraph here.", "Second paragraph here.\n\n- item one",
                                "- item two", "## Next\n\nShort."}));
  EXPECT_EQ(c.sections(), (Strings{"Title", "Title", "Title", "Title > Next"}));
}

TEST(MarkdownChunker, LongParagraphIsCutAtSentencesAndKeepsTheHeading) {
  const auto c = chunk("# Title\n\nOne sentence here. Another one there. A third one now.\n", {40});
  EXPECT_EQ(c.texts(), (Strings{"# Title\n\nOne sentence here.", "Another one there. A third one now."}));
}

TEST(MarkdownChunker, ListItemStartsAtItsMarker) {
  // The second item's text starts on the line after its marker: the cut goes before the marker.
  const auto c = chunk("# L\n\n- first item\n-\n  second item\n- third item\n", {20});
  EXPECT_EQ(c.texts(), (Strings{"# L\n\n- first item", "-\n  second item", "- third item"}));
}

TEST(MarkdownChunker, CodeBlockThatFitsIsKeptWhole) {
  const auto blocks = chunk("# Code\n\nIntro. More intro.\n\n```python\nx = 1. y = 2\nprint(x)\n```\n\nAfter.", {40});
  EXPECT_EQ(blocks.texts(),
            (Strings{"# Code\n\nIntro. More intro.", "```python\nx = 1. y = 2\nprint(x)\n```", "After."}));
  // Here the cut falls among sentences, and "x = 1. y = 2" is not one.
  const auto sentences = chunk("# Code\n\n~~~\nx = 1. y = 2\nz = 3\n~~~\n", {30});
  EXPECT_EQ(sentences.texts(), (Strings{"# Code", "~~~\nx = 1. y = 2\nz = 3\n~~~"}));
}

TEST(MarkdownChunker, CodeBlockOverTheLimitIsCutAtLines) {
  const auto c = chunk("# Big\n\nIntro.\n\n```\nline one\nline two\nline three\nline four\n```\n\nAfter.", {25});
  EXPECT_EQ(c.texts(), (Strings{"# Big\n\nIntro.", "```\nline one\nline two", "line three\nline four\n```", "After."}));
}

TEST(MarkdownChunker, TableIsCutAtRowsNotSentences) {
  const auto c = chunk("# T\n\n| a | b |\n|---|---|\n| one. two | x |\n| three | y |\n| four | z |\n", {30});
  EXPECT_EQ(c.texts(), (Strings{"# T", "| a | b |\n|---|---|", "| one. two | x |\n| three | y |", "| four | z |"}));
}

TEST(MarkdownChunker, TableHeaderNamesTheRowsCutFromATable) {
  YAML::Node node = YAML::Load("{max_chunk_size: 30, min_chunk_size: 0, table_header: true}");
  Options options(node, "test");
  const MarkdownChunker chunker(options);
  const SourceFile file("f.md", "f.md", "# T\n\n| a | b |\n|---|---|\n| one. two | x |\n| three | y |\n| four | z |\n\nAfter.\n");
  std::vector<std::string> sections;
  for (const ChunkSpan& s : chunker.chunk(file)) sections.push_back(s.section);
  // The header row's own piece and the text after the table keep the header path alone.
  EXPECT_EQ(sections, (Strings{"T", "T", "T > a | b", "T > a | b", "T"}));
}

TEST(MarkdownChunker, OverlapStaysInsideASection) {
  const std::string text = "# A\n\nAaa aaa. Bbb bbb. Ccc ccc. Ddd ddd.\n\n# B\n\nEee eee. Fff fff. Ggg ggg. Hhh hhh.\n";
  const auto c = chunk(text, {20, 9});
  const std::size_t b = text.find("# B");
  std::vector<ChunkSpan> in_a, in_b;
  for (const auto& s : c.spans) (s.bytes.begin < b ? in_a : in_b).push_back(s);
  ASSERT_GE(in_a.size(), 2u);
  ASSERT_GE(in_b.size(), 2u);
  EXPECT_LT(in_a[1].bytes.begin, in_a[0].bytes.end);
  EXPECT_LT(in_b[1].bytes.begin, in_b[0].bytes.end);
  EXPECT_LE(in_a.back().bytes.end, b);
  EXPECT_EQ(in_b.front().bytes.begin, b);
  for (const auto& s : in_a) EXPECT_EQ(s.section, "A");
  for (const auto& s : in_b) EXPECT_EQ(s.section, "B");
}

TEST(MarkdownChunker, NonAsciiOffsetsAreCountedInCodePoints) {
  const auto c = chunk(fixture("unicode.md"));
  EXPECT_EQ(c.sections(), (Strings{"", "Überschrift 😀", "Überschrift 😀 > 見出し"}));
  // Counted by hand: the first line is 31 code points, the heading 15, the paragraph 29.
  const std::vector<std::pair<std::size_t, std::size_t>> expected = {{0, 31}, {33, 79}, {81, 95}};
  ASSERT_EQ(c.spans.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(c.file.char_offset(c.spans[i].bytes.begin), expected[i].first) << i;
    EXPECT_EQ(c.file.char_offset(c.spans[i].bytes.end), expected[i].second) << i;
  }

  // Under 20 code points the section is cut at its sentences, the CJK full stop among them.
  const auto small = chunk(fixture("unicode.md"), {20});
  std::vector<std::pair<std::size_t, std::size_t>> pieces;
  for (const auto& s : small.spans)
    if (s.section == "Überschrift 😀")
      pieces.emplace_back(small.file.char_offset(s.bytes.begin), small.file.char_offset(s.bytes.end));
  EXPECT_EQ(pieces, (std::vector<std::pair<std::size_t, std::size_t>>{{33, 48}, {50, 65}, {66, 79}}));
}

TEST(MarkdownChunker, CrlfLineEnds) {
  const auto c = chunk(fixture("crlf.md"));
  EXPECT_EQ(c.texts(), (Strings{"# One\r\n\r\nText one.", "Two\r\n---\r\n\r\nText two.\r\n\r\n```\r\n# not a heading\r\n```"}));
  EXPECT_EQ(c.sections(), (Strings{"One", "One > Two"}));

  const auto small = chunk("# H\r\n\r\n```\r\nline one\r\nline two\r\n```\r\n", {20});
  EXPECT_EQ(small.texts(), (Strings{"# H", "```\r\nline one", "line two\r\n```"}));
}

TEST(MarkdownChunker, TextWithoutHeadings) {
  const auto c = chunk("\n\nJust text.\n\nMore text.\n");
  EXPECT_EQ(c.texts(), (Strings{"Just text.\n\nMore text."}));
  EXPECT_EQ(c.sections(), (Strings{""}));
}

TEST(MarkdownChunker, EmptyAndBlankFiles) {
  EXPECT_TRUE(chunk("").spans.empty());
  EXPECT_TRUE(chunk(" \n\n\t\r\n").spans.empty());
  EXPECT_EQ(chunk("# Only").texts(), (Strings{"# Only"}));
}

TEST(MarkdownChunker, MinChunkSizeMergesFollowingDeeperSections) {
  const std::string text =
      "# A\n\na.\n\n## B\n\nb text.\n\n## C\n\nc text, long enough alone.\n\n# D\n\nd text, long enough alone.\n";
  // A (7 code points) takes in B; at 22 it is long enough.
  const auto once = chunk(text, {100, 0, 20});
  EXPECT_EQ(once.texts(), (Strings{"# A\n\na.\n\n## B\n\nb text.", "## C\n\nc text, long enough alone.",
                                   "# D\n\nd text, long enough alone."}));
  EXPECT_EQ(once.sections(), (Strings{"A", "A > C", "D"}));

  // At 30, A takes in C as well, never the shallower D.
  const auto twice = chunk(text, {100, 0, 30});
  EXPECT_EQ(twice.texts(), (Strings{"# A\n\na.\n\n## B\n\nb text.\n\n## C\n\nc text, long enough alone.",
                                    "# D\n\nd text, long enough alone."}));
  EXPECT_EQ(twice.sections(), (Strings{"A", "D"}));

  // Taking in C too would exceed max_chunk_size, and C has no lines to spare: A and B stay short.
  EXPECT_EQ(chunk(text, {40, 0, 30}).texts(), once.texts());

  const auto preamble = chunk("Intro.\n\n# A\n\na.\n", {100, 0, 20});
  EXPECT_EQ(preamble.texts(), (Strings{"Intro.\n\n# A\n\na."}));
  EXPECT_EQ(preamble.sections(), (Strings{""}));
  // Sections of one level merged are named by the path both lie in.
  EXPECT_EQ(chunk("# T\n\n## A\n\na.\n\n## B\n\nb.\n", {100, 0, 30}).sections(), (Strings{"T"}));
}

TEST(MarkdownChunker, NoSectionUnderTheFloorStandsAlone) {
  // A1 can take in nothing that follows (B is shallower): it joins A, the section it lies in.
  const std::string text = "# A\n\nA long enough paragraph of text.\n\n## A1\n\nx.\n\n# B\n\nAnother paragraph, long enough.\n";
  const auto c = chunk(text, {100, 0, 20});
  EXPECT_EQ(c.texts(), (Strings{"# A\n\nA long enough paragraph of text.\n\n## A1\n\nx.", "# B\n\nAnother paragraph, long enough."}));
  EXPECT_EQ(c.sections(), (Strings{"A", "B"}));
  // The default floor is kDefaultMinChunkChars: a lone heading goes with the section it opens.
  const auto lone = chunk("# Title\n\n## Part\n\n" + std::string(60, 'x') + "\n\n## Other\n\n" + std::string(60, 'y') + "\n",
                          {2000, 0, static_cast<int>(kDefaultMinChunkChars)});
  EXPECT_EQ(lone.sections(), (Strings{"Title", "Title > Other"}));
  EXPECT_TRUE(lone.texts()[0].starts_with("# Title\n\n## Part"));
}

TEST(MarkdownChunker, PackSectionsKeepsAPageThatFitsWhole) {
  // A one-screen page: one chunk named by its title, not a chunk per heading.
  const std::string page = "# vllm chat\n\n## Options\n\n--8<-- \"docs/argparse/chat.md\"\n\n## Example\n\nvllm chat\n";
  const auto whole = chunk(page, {200, 0, 0, true});
  EXPECT_EQ(whole.texts(), (Strings{page.substr(0, page.size() - 1)}));
  EXPECT_EQ(whole.sections(), (Strings{"vllm chat"}));
  // Without packing, each heading starts a chunk.
  EXPECT_EQ(chunk(page, {200, 0, 0, false}).spans.size(), 3u);
}

TEST(MarkdownChunker, PackSectionsPacksSiblingsAndSplitsWhatIsTooLong) {
  const std::string a = "## A\n\n" + std::string(30, 'a') + ".\n\n";
  const std::string b = "## B\n\n" + std::string(30, 'b') + ".\n\n";
  const std::string c = "## C\n\n" + std::string(30, 'c') + ".\n\n";
  const std::string text = "# T\n\nIntro.\n\n" + a + b + c + "# U\n\n" + std::string(20, 'u') + ".\n";
  // The page is over 100 code points: T's text and A, B go in one piece (the next sibling would
  // not fit), C in the next, U (another top-level section) after them, still packed with C.
  const auto packed = chunk(text, {100, 0, 0, true});
  EXPECT_EQ(packed.texts(), (Strings{"# T\n\nIntro.\n\n" + a + b.substr(0, b.size() - 2),
                                     c + "# U\n\n" + std::string(20, 'u') + "."}));
  // Packed pieces are named by the header path they share.
  EXPECT_EQ(packed.sections(), (Strings{"T", ""}));
  // A section whose own text is too long is cut as without packing, its subsections after it.
  const std::string long_text = "# T\n\n" + std::string(60, 'x') + ". " + std::string(60, 'y') + ".\n\n" + a;
  const auto cut = chunk(long_text, {100, 0, 0, true});
  ASSERT_EQ(cut.spans.size(), 3u);
  EXPECT_EQ(cut.sections(), (Strings{"T", "T", "T > A"}));
  EXPECT_EQ(cut.texts()[2], a.substr(0, a.size() - 2));
}

TEST(MarkdownChunker, ConcurrentCallsAgree) {
  const MarkdownChunker chunker = make_chunker({60, 10});
  std::vector<SourceFile> files;
  for (const char* name : {"headers.md", "fences.md", "front_matter.md", "unicode.md", "crlf.md"})
    files.emplace_back(name, name, fixture(name));
  std::vector<std::vector<ChunkSpan>> expected;
  for (const auto& f : files) expected.push_back(chunker.chunk(f));

  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < mismatches.size(); ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round)
        for (std::size_t i = 0; i < files.size(); ++i) {
          const auto spans = chunker.chunk(files[i]);
          const bool same = std::equal(spans.begin(), spans.end(), expected[i].begin(), expected[i].end(),
                                       [](const ChunkSpan& a, const ChunkSpan& b) {
                                         return a.bytes == b.bytes && a.section == b.section;
                                       });
          if (!same) ++mismatches[t];
        }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(MarkdownChunker, RejectsUnknownOptionAndBadValues) {
  YAML::Node typo;
  typo["max_chunk_sise"] = 10;
  Options unknown(typo, "p.yaml: chunkers[0].options");
  EXPECT_THROW(MarkdownChunker{unknown}, Error);

  YAML::Node overlap;
  overlap["max_chunk_size"] = 100;
  overlap["overlap"] = 51;
  Options too_much_overlap(overlap, "p.yaml");
  EXPECT_THROW(MarkdownChunker{too_much_overlap}, Error);

  YAML::Node min;
  min["max_chunk_size"] = 100;
  min["min_chunk_size"] = 101;
  Options min_over_max(min, "p.yaml");
  EXPECT_THROW(MarkdownChunker{min_over_max}, Error);
}

// Every markdown file of the vLLM corpus: invariants hold and no text is lost. Prints the time
// spent chunking and the chunk sizes.
TEST(MarkdownChunker, VllmCorpus) {
  const auto run = testing::chunk_corpus(make_chunker({2000, 0, static_cast<int>(kDefaultMinChunkChars)}), ".md", 2000,
                                        kDefaultMinChunkChars);
  if (!run) GTEST_SKIP() << testing::kVllmCorpus << " not found: scripts/setup.sh unpacks it";
  testing::print_summary(*run);
}

}  // namespace
}  // namespace rag
