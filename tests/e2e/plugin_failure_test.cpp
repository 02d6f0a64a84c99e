// A plugin that throws, from any entry point of any kind and with any exception type, makes the
// `rag` command that called it print one `error:` line and exit 1: never a crash, even though
// the library that made the exception is unloaded before the program ends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "e2e/fixture_repo_test.hpp"

namespace rag::testing {
namespace {

using ::testing::HasSubstr;

struct FailureCase {
  std::string kind;         // chunker, retriever, generator
  std::string entry_point;  // fail_at
  std::string exception;    // rag, local, other
};

void PrintTo(const FailureCase& c, std::ostream* out) { *out << c.kind << " " << c.entry_point << " " << c.exception; }

std::string name_of(const ::testing::TestParamInfo<FailureCase>& info) {
  return info.param.kind + "_" + info.param.entry_point + "_" + info.param.exception;
}

std::vector<FailureCase> all_cases() {
  const std::vector<std::pair<std::string, std::vector<std::string>>> entry_points = {
      {"chunker", {"constructor", "chunk"}},
      {"retriever", {"constructor", "build", "updatable", "merge", "open", "search"}},
      {"generator", {"constructor", "generate", "stream", "describe"}}};
  std::vector<FailureCase> cases;
  for (const auto& [kind, points] : entry_points)
    for (const auto& point : points)
      for (const char* exception : {"rag", "local", "other"}) cases.push_back({kind, point, exception});
  return cases;
}

class PluginFailure : public FixtureRepoTest, public ::testing::WithParamInterface<FailureCase> {
 protected:
  // The fixture's pipeline with the throwing plugin of the case's kind in place of one stage.
  void write_pipeline() const {
    const FailureCase& c = GetParam();
    const std::string options = "{fail_at: " + c.entry_point + ", exception: " + c.exception + "}";
    const std::string plugin = "throwing_" + c.kind;
    std::string text = "corpus: {root: repo}\n";
    text += c.kind == "chunker" ? "chunkers: [{plugin: " + plugin + ", files: \"**\", options: " + options + "}]\n"
                                : "chunkers: [{plugin: text, files: \"**\"}]\n";
    text += c.kind == "retriever" ? "retriever: {plugin: " + plugin + ", options: " + options + "}\n"
                                  : "retriever: {plugin: bm25}\n";
    if (c.kind == "generator") text += "generator: {plugin: " + plugin + ", options: " + options + "}\n";
    text += "index: index\nplugin_paths: ['" + std::string(RAG_BINARY_DIR) + "/tests/bad_plugins/" + plugin + "']\n";
    dir_.write("throwing.yaml", text);
  }

  // The command that reaches the entry point: index for what indexing calls (every command
  // makes every stage first), search or answer (after an index that succeeds) for the rest. An
  // update asks whether the retriever can update; a merge comes when it removes most of a
  // segment: two of the three files edited.
  std::string command() const {
    const FailureCase& c = GetParam();
    const bool at_index = c.kind == "chunker" || c.entry_point == "constructor" || c.entry_point == "build" ||
                          c.entry_point == "updatable" || c.entry_point == "merge";
    if (c.entry_point == "updatable" || c.entry_point == "merge") {
      index("throwing.yaml");
      for (const char* file : {"repo/docs/guide.md", "repo/notes.txt"})
        dir_.write(file, testing::read_all(dir_ / file) + "\nOne more line.\n");
    }
    if (at_index) return "index --pipeline throwing.yaml";
    index("throwing.yaml");
    return c.kind == "generator" ? "answer 'How does the server start?' --k 2 --pipeline throwing.yaml"
                                 : "search 'How does the server start?' --k 2 --pipeline throwing.yaml";
  }

  // The words the error should carry: the plugin's message, or for a foreign exception type,
  // that it was one.
  std::string expected() const {
    const FailureCase& c = GetParam();
    if (c.exception == "other") return "not a std::exception";
    return "boom in " + c.entry_point;
  }
};

TEST_P(PluginFailure, BecomesOneErrorLineAndExitOne) {
  write_pipeline();
  const std::string args = command();
  if (GetParam().entry_point == "stream") {
    // As text, the answer streams to stdout through the host's callback: what was shown stays,
    // and the error follows on a line of its own.
    const Outcome r = rag(args + " --format text");
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.out, "The answer \n");
    EXPECT_THAT(r.err, ::testing::StartsWith("error: "));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(expected()));
  }
  const Outcome r = expect_error(args, expected());
  EXPECT_EQ(r.status, 1) << args << ": " << r.err;
  // A rag::Error's message is the plugin's own words for users; any other failure is named.
  if (GetParam().exception != "rag") {
    EXPECT_THAT(r.err, HasSubstr("the throwing_" + GetParam().kind + " plugin failed"));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKindEntryPointAndException, PluginFailure, ::testing::ValuesIn(all_cases()), name_of);

// answer_dataset calls the generator once per question: its failure ends the run the same way.
TEST_F(FixtureRepoTest, HitsARetrieverMustNotReturnAreOneErrorNamingIt) {
  for (const auto& [bad, expected] : {std::pair{"unknown_id", "a chunk that is not in the index"},
                                      std::pair{"nan_score", "a score that is not a finite number"}}) {
    dir_.write("bad.yaml", "corpus: {root: repo}\nchunkers: [{plugin: text, files: \"**\"}]\n"
                           "retriever: {plugin: throwing_retriever, options: {bad_hit: " + std::string(bad) + "}}\n"
                           "index: index\nplugin_paths: ['" + std::string(RAG_BINARY_DIR) + "/tests/bad_plugins/throwing_retriever']\n");
    index("bad.yaml");
    expect_error("search 'How does the server start?' --k 2 --pipeline bad.yaml",
                 "the throwing_retriever retriever returned " + std::string(expected));
  }
}

TEST_F(FixtureRepoTest, AnswerDatasetWithAFailingGeneratorIsOneError) {
  std::string text = kFixturePipeline;
  text += "generator: {plugin: throwing_generator, options: {fail_at: generate, exception: local}}\n";
  text += "plugin_paths: ['" + std::string(RAG_BINARY_DIR) + "/tests/bad_plugins/throwing_generator']\n";
  dir_.write("throwing.yaml", text);
  dir_.write("questions.json", R"({"rag_questions": [{"question_id": "q1", "question": "How does the server start?"}]})");
  index("throwing.yaml");
  const Outcome r = expect_error("answer_dataset --dataset_path questions.json --save_directory out --pipeline throwing.yaml",
                                 "boom in generate");
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out" / "questions.json"));
}

}  // namespace
}  // namespace rag::testing
