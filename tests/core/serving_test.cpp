// What rag serve is built from, apart from HTTP: answers cut for chat platforms, and metrics in
// Prometheus' text format.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rag/chat_messages.hpp"
#include "rag/error.hpp"
#include "rag/metrics.hpp"
#include "rag/utf8.hpp"

namespace rag {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> texts(const std::vector<ChatMessagePart>& parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) out.push_back(p.text);
  return out;
}

TEST(ChatMessages, PacksParagraphsAndCarriesTheirCitations) {
  const std::string answer = "Start the server with vllm serve [1].\n\nIt listens on port 8000 [2].\n\nSee the docs [1][3].";
  EXPECT_THAT(texts(split_for_chat(answer, 1000)), ElementsAre(answer));
  const auto parts = split_for_chat(answer, 70);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].text, "Start the server with vllm serve [1].\n\nIt listens on port 8000 [2].");
  EXPECT_THAT(parts[0].sources, ElementsAre(1, 2));
  EXPECT_EQ(parts[1].text, "See the docs [1][3].");
  EXPECT_THAT(parts[1].sources, ElementsAre(1, 3));
  EXPECT_TRUE(split_for_chat("", 100).empty());
  EXPECT_THROW(split_for_chat(answer, 10), Error);
  // Told how many sources there are, a quoted list is not taken for citations.
  EXPECT_THAT(split_for_chat("Ranks [1, 32, 64] work [2].", 1000, 3)[0].sources, ElementsAre(2));
}

TEST(ChatMessages, LongParagraphsAreCutAtSentences) {
  const std::string answer = "First sentence is here. Second sentence follows it. Third one ends the paragraph.";
  const auto parts = split_for_chat(answer, 55);
  EXPECT_THAT(texts(parts), ElementsAre("First sentence is here. Second sentence follows it.", "Third one ends the paragraph."));
}

TEST(ChatMessages, CodeBlocksAreNeverCutOpen) {
  std::string code = "```bash\n";
  for (int i = 0; i < 12; ++i) code += "vllm serve model-" + std::to_string(i) + "\n";
  code += "```";
  const auto parts = split_for_chat("Run these [2]:\n\n" + code, 80);
  ASSERT_GE(parts.size(), 3u);
  for (const auto& p : parts) {
    EXPECT_LE(utf8::count_code_points(p.text), 80u) << p.text;
    // Every part has as many fences opening as closing.
    std::size_t fences = 0;
    for (std::size_t at = p.text.find("```"); at != std::string::npos; at = p.text.find("```", at + 3)) ++fences;
    EXPECT_EQ(fences % 2, 0u) << p.text;
  }
  EXPECT_EQ(parts[0].text.rfind("Run these [2]:", 0), 0u);
  EXPECT_THAT(parts[1].text, ::testing::StartsWith("```bash\n"));  // reopened with its language
  // A line longer than a message is cut, still inside fences.
  const auto long_line = split_for_chat("```\n" + std::string(300, 'x') + "\n```", 100);
  for (const auto& p : long_line) EXPECT_LE(p.text.size(), 100u);
  EXPECT_GE(long_line.size(), 4u);
}

TEST(ChatMessages, AnIntroductionGoesWithItsCodeAndLendsItsSources) {
  const std::string intro = "In `Use the custom-built vLLM Docker image` [2]:";
  const std::string code = "```bash\ndocker run --gpus all -p 8000:8000 vllm/vllm-openai --model m\n```";
  const std::string answer = "Build the image first; it takes a while on a laptop [1].\n\n" + intro + "\n\n" + code;
  const auto parts = split_for_chat(answer, 160);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].text, "Build the image first; it takes a while on a laptop [1].");
  EXPECT_EQ(parts[1].text, intro + "\n\n" + code);  // not the introduction alone, the code bare after it
  EXPECT_THAT(parts[1].sources, ElementsAre(2));
  // A block cut in several messages: each part cites the source its introduction cited.
  std::string lines = "```bash\n";
  for (int i = 0; i < 12; ++i) lines += "vllm serve model-" + std::to_string(i) + "\n";
  const auto cut = split_for_chat("Run these [3]:\n\n" + lines + "```", 80);
  ASSERT_GE(cut.size(), 3u);
  for (const auto& p : cut) EXPECT_THAT(p.sources, ElementsAre(3)) << p.text;
}

TEST(ChatMessages, TableRowsComeUnderTheirHeader) {
  std::string table = "| Feature | Status |\n| --- | --- |";
  for (int i = 0; i < 8; ++i) table += "\n| feature number " + std::to_string(i) + " | optimized |";
  const auto parts = split_for_chat("Features [4]:\n\n" + table, 120);
  ASSERT_GE(parts.size(), 3u);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    EXPECT_THAT(parts[i].text, ::testing::StartsWith("| Feature | Status |\n| --- | --- |\n| feature number ")) << i;
    EXPECT_LE(utf8::count_code_points(parts[i].text), 120u);
    EXPECT_THAT(parts[i].sources, ElementsAre(4));
  }
  EXPECT_THAT(parts[0].text, ::testing::StartsWith("Features [4]:\n\n| Feature | Status |"));
}

TEST(Metrics, PrometheusTextHasCountersHistogramsAndGauges) {
  Metrics m;
  m.count_request("/api/search", 200, 0.0004);
  m.count_request("/api/search", 200, 0.02);
  m.count_request("/api/search", 400, 0.0001);
  m.count_request("other", 414, std::nullopt);  // refused before it was handled: counted, not timed
  m.observe_stage("retrieve", 0.0003);
  m.count_switch("default");
  m.add_in_flight(2);
  m.add_in_flight(-1);
  const std::string text = m.prometheus_text();
  EXPECT_THAT(text, HasSubstr("rag_requests_total{route=\"/api/search\",status=\"200\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("rag_requests_total{route=\"/api/search\",status=\"400\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rag_request_seconds_bucket{route=\"/api/search\",le=\"0.0005\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("rag_request_seconds_bucket{route=\"/api/search\",le=\"0.025\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("rag_request_seconds_bucket{route=\"/api/search\",le=\"+Inf\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("rag_request_seconds_count{route=\"/api/search\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("rag_stage_seconds_count{stage=\"retrieve\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("rag_requests_total{route=\"other\",status=\"414\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("rag_request_seconds_count{route=\"other\"}")));
  EXPECT_THAT(text, HasSubstr("rag_requests_in_flight 1\n"));
  EXPECT_THAT(text, HasSubstr("rag_index_generation_switches_total{pipeline=\"default\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE rag_request_seconds histogram\n"));
}

}  // namespace
}  // namespace rag
