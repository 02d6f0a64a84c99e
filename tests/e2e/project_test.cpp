// Pipelines as users name them, from any working folder: the project found by walking up as git
// does, pipelines by name, relative paths resolved against the project, and `--set` overrides
// whose indexes stay apart from the pipeline's own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/fixture_repo_test.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
using testing::Outcome;

// The fixture repository as a project: configs/default.yaml and configs/small.yaml.
class ProjectTest : public testing::FixtureRepoTest {
 protected:
  void SetUp() override {
    FixtureRepoTest::SetUp();
    dir_.write("configs/default.yaml", std::string(testing::kFixturePipeline));
    std::string small = testing::kFixturePipeline;
    small.replace(small.find("index: index"), 12, "index: index-small");
    dir_.write("configs/small.yaml", "name: small\n" + small);
  }

  Outcome rag_in(const std::string& folder, const std::string& args) const {
    return testing::run_rag(dir_ / folder, args);
  }

  static std::string first_file(const Outcome& r) {
    const json out = json::parse(r.out);
    return out["retrieved_chunks"].empty() ? "" : out["retrieved_chunks"][0]["file_path"].get<std::string>();
  }
};

TEST_F(ProjectTest, CommandsFindTheProjectFromAnySubfolder) {
  const Outcome indexed = rag_in("repo/pkg", "index");
  ASSERT_EQ(indexed.status, 0) << indexed.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "index/manifest.json")) << "the index is the project's, not the working folder's";
  EXPECT_FALSE(std::filesystem::exists(dir_ / "repo/pkg/index"));
  const Outcome found = rag_in("repo/docs", "search 'How is the TCP port number parsed?' --k 1");
  ASSERT_EQ(found.status, 0) << found.err;
  EXPECT_EQ(first_file(found), "repo/pkg/server.py") << "results keep the pipeline's names";
}

TEST_F(ProjectTest, PipelinesByNameOrByFileFromElsewhere) {
  const Outcome indexed = rag_in("repo", "index --pipeline small");
  ASSERT_EQ(indexed.status, 0) << indexed.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "index-small/manifest.json"));
  // An absolute pipeline file from a folder outside the project: same index, same corpus, same names.
  testing::TempDir elsewhere;
  const Outcome found = testing::run_rag(elsewhere.path(), "search 'TCP port' --k 1 --pipeline '" +
                                                               (dir_ / "configs/small.yaml").string() + "'");
  ASSERT_EQ(found.status, 0) << found.err;
  EXPECT_EQ(first_file(found), "repo/pkg/server.py");
  EXPECT_THAT(found.err, Not(HasSubstr("warning"))) << "the corpus is found too";
}

TEST_F(ProjectTest, UnknownNamesAndNoProjectAreClearErrors) {
  const Outcome unknown = rag_in("repo", "index --pipeline tfidf");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_THAT(unknown.err, HasSubstr("no pipeline named 'tfidf' in the project at " + dir_.path().string()));
  EXPECT_THAT(unknown.err, HasSubstr("its pipelines: default, small"));
  testing::TempDir elsewhere;
  const Outcome none = testing::run_rag(elsewhere.path(), "search hello");
  EXPECT_EQ(none.status, 1);
  EXPECT_THAT(none.err, HasSubstr("error: no pipeline given, and no rag project (a folder with configs/default.yaml) in"));
  // The hint to build a missing index names the pipeline as the user did.
  EXPECT_THAT(rag_in("repo", "search hello --pipeline small").err, HasSubstr("run `rag index --pipeline small` first"));
  EXPECT_THAT(rag_in("repo", "search hello").err, HasSubstr("run `rag index` first"));
}

TEST_F(ProjectTest, SetOverridesGetTheirOwnIndexAndNeverBreakTheDefault) {
  ASSERT_EQ(rag_in("", "index").status, 0);
  const Outcome small_chunks = rag_in("", "index --max_chunk_size 120");
  ASSERT_EQ(small_chunks.status, 0) << small_chunks.err;
  const Outcome tuned = rag_in("", "index --set retriever.options.k1=0.5 --set retriever.options.b=0.3");
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  // Three indexes side by side; the plain search still uses (and finds) the default's.
  std::size_t folders = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
    folders += entry.path().filename().string().rfind("index", 0) == 0 && entry.path().filename() != "index-small";
  EXPECT_EQ(folders, 3u);
  const Outcome plain = rag_in("", "search 'TCP port' --k 3");
  ASSERT_EQ(plain.status, 0) << plain.err;
  const Outcome small = rag_in("", "search 'TCP port' --k 3 --max_chunk_size 120");
  ASSERT_EQ(small.status, 0) << small.err;
  const json small_results = json::parse(small.out);
  for (const auto& chunk : small_results["retrieved_chunks"])
    EXPECT_LE(chunk["last_character_index"].get<int>() - chunk["first_character_index"].get<int>(), 120);
  EXPECT_EQ(rag_in("", "search 'TCP port' --set retriever.options.k1=0.5 --set retriever.options.b=0.3").status, 0);
  // What does not change the index uses the pipeline's own.
  EXPECT_EQ(rag_in("", "search 'TCP port' --set description=other --set 'generator={plugin: extractive}'").status, 0);
  // An override that does not fit is an error naming it.
  const Outcome bad = rag_in("", "search 'TCP port' --set retriever.options.k1=high");
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.err, HasSubstr("configs/default.yaml with --set retriever.options.k1=high: retriever.options.k1"));
  EXPECT_THAT(rag_in("", "search x --set chunkers[7].files=a").err, HasSubstr("chunkers has 3 entries"));
}

// Every command checks the whole pipeline first: a mistake anywhere is reported, naming the file
// and the key, before the index is looked at (it used to say "built with another configuration").
TEST_F(ProjectTest, EveryCommandChecksTheWholePipelineFirst) {
  ASSERT_EQ(rag_in("", "index").status, 0);
  dir_.write("questions.json", R"({"rag_questions": [{"question_id": "q", "question": "port"}]})");
  dir_.write("answered.json", R"({"rag_questions": [{"question_id": "q", "question": "port",
      "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 0, "last_character_index": 50}]}]})");
  const std::vector<std::pair<std::string, std::string>> mistakes = {
      {"retriever: {plugin: bm25, options: {k1: high}}", "retriever.options.k1: must be a number, got 'high'"},
      {"retriever: {plugin: bm26}", "unknown retriever plugin 'bm26'"},
      {"retriever: {plugin: bm25, options: {analysis: {default: {stemmer: klingon}}}}", "klingon"},
      {"retriever: {plugin: bm25, options: {kl: 1.2}}", "unknown option 'kl'"},
      {"retriever: {plugin: bm25}\ngenerator: {plugin: extractive, options: {max_char: 3}}", "unknown option 'max_char'"},
      {"retriever: {plugin: bm25}\ncontext: {budgt: 3}", "context: unknown option 'budgt'"}};
  for (const auto& [retriever, expected] : mistakes) {
    std::string text = testing::kFixturePipeline;
    const std::string written = "retriever:\n  plugin: bm25";
    text.replace(text.find(written), written.size(), retriever);
    dir_.write("configs/broken.yaml", text);
    for (const std::string command : {"search port", "answer port", "check", "index", "chunks --export x.jsonl",
                                      "search_dataset --dataset_path ../questions.json --save_directory ../out",
                                      "answer_dataset --dataset_path ../questions.json --save_directory ../out"}) {
      const Outcome r = rag_in("repo", command + " --pipeline broken");
      EXPECT_EQ(r.status, 1) << command << " with " << retriever;
      EXPECT_THAT(r.err, HasSubstr("configs/broken.yaml")) << command << " with " << retriever;
      EXPECT_THAT(r.err, HasSubstr(expected)) << command << " with " << retriever;
      EXPECT_THAT(r.err, Not(HasSubstr("another configuration"))) << command;
    }
    const Outcome compared = rag_in("", "compare default broken --dataset answered.json");
    EXPECT_EQ(compared.status, 1);
    EXPECT_THAT(compared.err, HasSubstr(expected)) << "compare with " << retriever;
  }
}

// The shipped default pipeline indexes every text file: C++/CUDA through the cpp chunker, named by
// their definitions, and scripts and YAML as text.
TEST_F(ProjectTest, TheDefaultPipelineIndexesKernelsScriptsAndYaml) {
  std::string shipped = testing::read_all(std::filesystem::path(RAG_SOURCE_DIR) / "configs/default.yaml");
  const std::string root = "root: data/raw/vllm-0.10.1";
  shipped.replace(shipped.find(root), root.size(), "root: repo");
  dir_.write("configs/default.yaml", shipped);
  dir_.write("configs/glossary.tsv", testing::read_all(std::filesystem::path(RAG_SOURCE_DIR) / "configs/glossary.tsv"));
  dir_.write("repo/csrc/attention/paged_kernel.cu",
             "namespace vllm {\n// One thread block per sequence.\n__global__ void paged_attention_kernel(float* out) {\n"
             "  out[threadIdx.x] = 0.f;\n}\n}  // namespace vllm\n");
  dir_.write("repo/tools/install_deps.sh", "#!/bin/bash\n# Installs the ccache build dependency.\napt-get install -y ccache\n");
  dir_.write("repo/.buildkite/pipeline.yaml", "steps:\n  - label: nightly benchmarks\n    command: bash run-nightly.sh\n");
  ASSERT_EQ(rag_in("", "index").status, 0);
  const auto top = [&](const std::string& query) {
    const json out = json::parse(rag_in("", "search '" + query + "' -k 1 --format json").out);
    return out["retrieved_chunks"].empty() ? json() : out["retrieved_chunks"][0];
  };
  const json kernel = top("paged attention kernel thread block");
  EXPECT_EQ(kernel["file_path"], "repo/csrc/attention/paged_kernel.cu");
  EXPECT_EQ(kernel["file_type"], "cpp");
  EXPECT_EQ(kernel["section"], "vllm");  // the whole namespace fits one chunk
  EXPECT_EQ(top("install ccache dependency")["file_path"], "repo/tools/install_deps.sh");
  EXPECT_EQ(top("nightly benchmarks label")["file_path"], "repo/.buildkite/pipeline.yaml");
}

TEST_F(ProjectTest, CheckListsTheStagesAndTheIndexState) {
  const Outcome missing = rag_in("repo", "check --format text");
  ASSERT_EQ(missing.status, 0) << missing.err;
  EXPECT_THAT(missing.out, HasSubstr("pipeline default"));
  EXPECT_THAT(missing.out, HasSubstr("chunkers[0]  python"));
  EXPECT_THAT(missing.out, HasSubstr("{max_chunk_size: 400, min_chunk_size: 50}"));  // the default filled in
  EXPECT_THAT(missing.out, HasSubstr("retriever    bm25"));
  EXPECT_THAT(missing.out, HasSubstr("k1: 1.2"));
  EXPECT_THAT(missing.out, HasSubstr("generator    extractive"));
  EXPECT_THAT(missing.out, HasSubstr(": missing (`rag index` builds it)"));
  ASSERT_EQ(rag_in("", "index").status, 0);
  const json current = json::parse(rag_in("repo", "check --format json").out);
  EXPECT_EQ(current["index"]["state"], "current");
  EXPECT_EQ(current["index"]["chunks"], json::parse(testing::read_all(dir_ / "index/manifest.json"))["chunks"]);
  EXPECT_EQ(current["stages"][3]["plugin"], "bm25");
  EXPECT_EQ(current["stages"][3]["options"]["k1"], 1.2);
  // A new file in the corpus makes it stale, and says why.
  dir_.write("repo/docs/new.md", "# New\n\nA new page.\n");
  const Outcome stale = rag_in("", "check --format text");
  EXPECT_THAT(stale.out, HasSubstr(": stale: the corpus at repo changed since the index was built"));
  // Another configuration is another index: missing, not stale.
  EXPECT_THAT(rag_in("", "check --set retriever.options.k1=2 --format text").out,
              HasSubstr("missing (`rag index --set retriever.options.k1=2` builds it)"));
}

}  // namespace
}  // namespace rag
