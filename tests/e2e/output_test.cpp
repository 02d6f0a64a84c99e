// What `search` and `answer` print: JSON for programs (the default when stdout is not a
// terminal) and text for people, line numbers everywhere, one spelling of each field, and the
// ways a query can be typed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "e2e/fixture_repo_test.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;
using testing::Outcome;

class OutputTest : public testing::FixtureRepoTest {
 protected:
  void SetUp() override {
    FixtureRepoTest::SetUp();
    index();
  }

  // The 1-based line of code point `at` in a file of the fixture (ASCII up to there or not).
  std::size_t line_at(const std::string& path, std::size_t at) const {
    const std::string text = testing::read_all(dir_ / path);
    std::size_t line = 1, chars = 0;
    for (std::size_t i = 0; i < text.size() && chars < at; ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
      line += text[i] == '\n';
      ++chars;
    }
    return line;
  }
};

TEST_F(OutputTest, JsonCarriesLineNumbersAndTheResultsFileSpelling) {
  const Outcome r = rag("search 'How is the TCP port number parsed?' --pipeline pipeline.yaml --k 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const json out = json::parse(r.out);  // not a terminal: JSON
  ASSERT_FALSE(out["retrieved_chunks"].empty());
  for (const auto& c : out["retrieved_chunks"]) {
    const std::string path = c["file_path"];
    ASSERT_EQ(path.rfind("repo/", 0), 0u);
    const std::size_t first = c["first_character_index"], last = c["last_character_index"];
    EXPECT_EQ(c["first_line"], line_at(path, first)) << path;
    EXPECT_EQ(c["last_line"], line_at(path, last - 1)) << path;
    EXPECT_FALSE(c.contains("filename") || c.contains("starting_character")) << "one spelling per field";
  }
  const Outcome answered = rag("answer 'How is the TCP port number parsed?' --pipeline pipeline.yaml --k 3");
  ASSERT_EQ(answered.status, 0) << answered.err;
  const json answer = json::parse(answered.out);
  for (const auto& s : answer["sources"]) {
    EXPECT_EQ(s["first_line"], line_at(s["file_path"], s["first_character_index"]));
    EXPECT_EQ(s["last_line"], line_at(s["file_path"], s["last_character_index"].get<std::size_t>() - 1));
  }
  dir_.write("questions.json", R"({"rag_questions": [{"question_id": "q1", "question": "TCP port"}]})");
  ASSERT_EQ(rag("search_dataset --dataset_path questions.json --save_directory out --pipeline pipeline.yaml").status, 0);
  const json saved = json::parse(testing::read_all(dir_ / "out/questions.json"));
  EXPECT_GE(saved["search_results"][0]["retrieved_sources"][0]["first_line"].get<int>(), 1);
}

TEST_F(OutputTest, RepeatsOfOneRegionDoNotLeaveFewerThanKResults) {
  // One small page chunked by sixteen rules, each into one chunk of the whole page: the best
  // candidates a search asks the retriever for are all the same region, which counts once. The
  // next results are searched deeper for.
  dir_.write("zebra/zebra.md", "Zebra stripes: every zebra has its own zebra stripes.\n");
  for (int i = 0; i < 6; ++i)
    dir_.write("zebra/other" + std::to_string(i) + ".txt", "A note on animals: one zebra among many horses and "
               "donkeys, cows, sheep, goats, pigs and hens of farm number " + std::to_string(i) + ".\n");
  std::string pipeline = "corpus:\n  root: zebra\nchunkers:\n";
  for (int size = 100; size < 1700; size += 100)
    pipeline += "  - {plugin: text, files: \"**/*.md\", options: {max_chunk_size: " + std::to_string(size) +
                "}, continue: true}\n";
  pipeline += "  - {plugin: text, files: \"**\"}\nretriever:\n  plugin: bm25\nindex: zebra-index\n";
  dir_.write("zebra.yaml", pipeline);
  index("zebra.yaml");
  const Outcome r = rag("search zebra --pipeline zebra.yaml --k 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const json out = json::parse(r.out);
  ASSERT_EQ(out["retrieved_chunks"].size(), 3u);
  EXPECT_EQ(out["retrieved_chunks"][0]["file_path"], "zebra/zebra.md");
  EXPECT_NE(out["retrieved_chunks"][1]["file_path"], "zebra/zebra.md");
}

TEST_F(OutputTest, TextShowsPlacesAndTheMatchingLines) {
  const Outcome r = rag("search TCP port parsed --pipeline pipeline.yaml -k 2 --format text");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("repo/pkg/server.py:"));
  EXPECT_THAT(r.out, Not(HasSubstr("\x1b[")));  // no colors into a pipe
  // The line that parses the port is shown with its number.
  const std::string file = testing::read_all(dir_ / "repo/pkg/server.py");
  std::istringstream lines(file);
  std::string line;
  std::size_t number = 0, port_line = 0;
  while (std::getline(lines, line) && port_line == 0)
    if (++number && line.find("def parse_port") != std::string::npos) port_line = number;
  ASSERT_NE(port_line, 0u);
  EXPECT_THAT(r.out, HasSubstr(std::to_string(port_line) + " | def parse_port"));
  EXPECT_THAT(r.out, HasSubstr("2 results in"));
  EXPECT_THAT(rag("search TCP port parsed --pipeline pipeline.yaml -k 1 --format text").out, HasSubstr("1 result in"));

  const Outcome answered = rag("answer How is the TCP port number parsed --pipeline pipeline.yaml -k 3 --format text");
  ASSERT_EQ(answered.status, 0) << answered.err;
  const json as_json = json::parse(rag("answer How is the TCP port number parsed --pipeline pipeline.yaml -k 3").out);
  EXPECT_THAT(answered.out, StartsWith(as_json["answer"].get<std::string>() + "\n\nSources\n"));
  const auto& first = as_json["sources"][0];
  EXPECT_THAT(answered.out, HasSubstr("[1] " + first["file_path"].get<std::string>() + ":" +
                                      std::to_string(first["first_line"].get<int>())));
  expect_error("search port --format yaml --pipeline pipeline.yaml", "--format must be text or json, got 'yaml'");
  // --json is --format json.
  const json with_flag = json::parse(rag("answer How is the TCP port number parsed --pipeline pipeline.yaml -k 3 --json").out);
  EXPECT_EQ(with_flag["answer"], as_json["answer"]);
  EXPECT_EQ(with_flag["sources"], as_json["sources"]);
  expect_error("search port --json --format text --pipeline pipeline.yaml", "--json and --format text disagree");
  // A file name with a line feed keeps its place on one line: "new^Jline.txt:1".
  dir_.write("repo/new\nline.txt", "The zeppelin hangar holds one airship.\n");
  dir_.write("repo/bin\x1b[31mary.dat", std::string(3, '\0'));
  EXPECT_THAT(rag("index --pipeline pipeline.yaml -v").err, HasSubstr("note: bin^[[31mary.dat: skipped"));
  EXPECT_THAT(rag("search zeppelin hangar --pipeline pipeline.yaml -k 1 --format text").out, StartsWith("repo/new^Jline.txt:1"));
  EXPECT_THAT(rag("answer zeppelin hangar airship --pipeline pipeline.yaml -k 1 --format text").out, HasSubstr("[1] repo/new^Jline.txt:1"));
}

TEST_F(OutputTest, QueriesTypedAsPeopleTypeThem) {
  const json quoted = json::parse(rag("search 'TCP port number' --pipeline pipeline.yaml -k 3").out);
  const json words = json::parse(rag("search TCP port number --pipeline pipeline.yaml -k 3").out);
  EXPECT_EQ(words["query"], "TCP port number");
  EXPECT_EQ(words["retrieved_chunks"], quoted["retrieved_chunks"]);
  EXPECT_EQ(words["retrieved_chunks"].size(), 3u);
  // A query that starts with dashes goes after `--`; without it the error says so.
  const Outcome dashed = rag("search --pipeline pipeline.yaml -k 1 -- --quantization awq");
  ASSERT_EQ(dashed.status, 0) << dashed.err;
  EXPECT_EQ(json::parse(dashed.out)["query"], "--quantization awq");
  expect_error("search --quantization awq --pipeline pipeline.yaml",
               "if it is part of the query, put the query after `--`: rag search -- --quantization");
  EXPECT_EQ(rag("answer --pipeline pipeline.yaml -k 2 -- --quantization awq").status, 0);
}

TEST_F(OutputTest, AnAnswerTakesAWholeMessageFromStandardInput) {
  dir_.write("message.txt", "Which flag loads\nAWQ quantized checkpoints?\n");
  const Outcome r = rag("answer - --pipeline pipeline.yaml -k 3 < message.txt");
  ASSERT_EQ(r.status, 0) << r.err;
  // The message as written, but for the line break that ends the input.
  EXPECT_EQ(json::parse(r.out)["query"].get<std::string>(), "Which flag loads\nAWQ quantized checkpoints?");
  dir_.write("blank.txt", "\n \n");
  expect_error("answer - --pipeline pipeline.yaml < blank.txt", "the question is empty");
}

TEST_F(OutputTest, QueriesFromStandardInputGiveAJsonObjectALine) {
  dir_.write("queries.txt", "TCP port number\n\nWhich flag loads AWQ checkpoints?\r\n");
  const Outcome r = rag("search - --pipeline pipeline.yaml -k 2 < queries.txt");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<json> results;
  for (std::string line; std::getline(lines, line);) results.push_back(json::parse(line));
  ASSERT_EQ(results.size(), 2u);  // the blank line is passed over
  EXPECT_EQ(results[0]["query"], "TCP port number");
  EXPECT_EQ(results[1]["query"], "Which flag loads AWQ checkpoints?");
  EXPECT_FALSE(results[1]["retrieved_chunks"].empty());
  EXPECT_LE(results[1]["retrieved_chunks"].size(), 2u);
  dir_.write("bad.txt", "port\ncaf\xe9\n");
  const Outcome bad = rag("search - --pipeline pipeline.yaml < bad.txt");
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.err, HasSubstr("error: standard input, line 2: not valid UTF-8"));
  expect_error("search - --truth repo/a.md:0:5 --pipeline pipeline.yaml", "--truth is for one query");
}

}  // namespace
}  // namespace rag
