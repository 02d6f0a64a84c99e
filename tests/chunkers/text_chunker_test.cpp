#include "text_chunker.hpp"

#include <gtest/gtest.h>

#include "chunk_invariants.hpp"

namespace rag {
namespace {

std::vector<ChunkSpan> chunk_text(const std::string& text, int max_chars, int overlap = 0, int min_chars = 0) {
  YAML::Node node;
  node["max_chunk_size"] = max_chars;
  node["overlap"] = overlap;
  node["min_chunk_size"] = min_chars;
  Options options(node, "test");
  const TextChunker chunker(options);
  const SourceFile file("f.txt", "f.txt", text);
  auto spans = chunker.chunk(file);
  testing::expect_valid_spans(file, spans, static_cast<std::size_t>(max_chars), overlap > 0);
  return spans;
}

std::vector<std::string> texts(const std::string& text, const std::vector<ChunkSpan>& spans) {
  std::vector<std::string> out;
  for (const auto& s : spans) out.push_back(text.substr(s.bytes.begin, s.bytes.size()));
  return out;
}

TEST(TextChunker, SmallFileIsOneTrimmedChunk) {
  const std::string text = "\n\nHello world.\n\n";
  EXPECT_EQ(texts(text, chunk_text(text, 100)), std::vector<std::string>{"Hello world."});
}

TEST(TextChunker, CutsAtParagraphsFirst) {
  const std::string text = "First para line one.\nline two.\n\nSecond para.\n\nThird para here.";
  EXPECT_EQ(texts(text, chunk_text(text, 35)),
            (std::vector<std::string>{"First para line one.\nline two.", "Second para.\n\nThird para here."}));
}

TEST(TextChunker, LongParagraphFallsBackToSentences) {
  const std::string text = "One sentence here. Another one there. A third one now.";
  EXPECT_EQ(texts(text, chunk_text(text, 40)),
            (std::vector<std::string>{"One sentence here. Another one there.", "A third one now."}));
}

TEST(TextChunker, WordWithoutBreaksIsCutHard) {
  const std::string text(250, 'x');
  const auto spans = chunk_text(text, 100);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[2].bytes.size(), 50u);
}

TEST(TextChunker, CountsCodePointsNotBytes) {
  // 30 two-byte letters: 60 bytes but 30 code points, so one chunk of limit 30.
  std::string text;
  for (int i = 0; i < 30; ++i) text += "\xC3\xA9";
  EXPECT_EQ(chunk_text(text, 30).size(), 1u);
  EXPECT_EQ(chunk_text(text, 29).size(), 2u);
}

TEST(TextChunker, CrlfAndLoneCrParagraphs) {
  const std::string text = "alpha beta.\r\n\r\ngamma delta.\r\repsilon.";
  EXPECT_EQ(texts(text, chunk_text(text, 14)),
            (std::vector<std::string>{"alpha beta.", "gamma delta.", "epsilon."}));
}

TEST(TextChunker, OverlapRepeatsTheEndOfThePreviousPiece) {
  const std::string text = "Aaa aaa. Bbb bbb. Ccc ccc. Ddd ddd.";
  const auto pieces = texts(text, chunk_text(text, 20, 9));
  ASSERT_GE(pieces.size(), 2u);
  EXPECT_EQ(pieces[1], "Aaa aaa. Bbb bbb.");
}

TEST(TextChunker, APieceUnderTheFloorJoinsANeighbour) {
  // The last paragraph is cut at sentences, so that "ok" fits in no piece of the packing.
  const std::string text = "A first paragraph that is long enough.\n\nok\n\nA third one. It is long, longer than forty.";
  EXPECT_EQ(texts(text, chunk_text(text, 40)),
            (std::vector<std::string>{"A first paragraph that is long enough.", "ok", "A third one.",
                                      "It is long, longer than forty."}));
  EXPECT_EQ(texts(text, chunk_text(text, 40, 0, 10)),
            (std::vector<std::string>{"A first paragraph that is long enough.", "ok\n\nA third one.",
                                      "It is long, longer than forty."}));
}

TEST(TextChunker, RejectsUnknownOptionAndBadSize) {
  YAML::Node node;
  node["max_chunk_sise"] = 10;
  Options typo(node, "p.yaml: chunkers[0].options");
  EXPECT_THROW(TextChunker{typo}, Error);
  YAML::Node zero;
  zero["max_chunk_size"] = 0;
  Options bad(zero, "p.yaml");
  EXPECT_THROW(TextChunker{bad}, Error);
}

}  // namespace
}  // namespace rag
