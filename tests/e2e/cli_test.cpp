// Runs the real `rag` binary on the fixture repository: the commands users run, and the
// errors they get when something is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>

#include "e2e/fixture_repo_test.hpp"
#include "rag/index.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

using testing::Outcome;

class CliTest : public testing::FixtureRepoTest {
 protected:
  void SetUp() override {
    FixtureRepoTest::SetUp();
    dir_.write("repo/image.png", std::string("\x89PNG\r\n\x1a\n\0\0\0", 11));
    dir_.write("repo/latin1.txt", "caf\xe9\n");
  }
};

TEST_F(CliTest, IndexSearchDatasetAndEvaluate) {
  const Outcome indexed = rag("index --pipeline pipeline.yaml -v");
  ASSERT_EQ(indexed.status, 0) << indexed.err;
  EXPECT_THAT(indexed.err, HasSubstr("image.png: skipped, binary"));
  EXPECT_THAT(indexed.err, HasSubstr("latin1.txt: skipped, not valid UTF-8"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "index/manifest.json"));

  const Outcome found = rag("search 'which flag loads AWQ quantized checkpoints?' --pipeline pipeline.yaml --k 3 "
                                     "--truth repo/docs/guide.md:200:300");
  ASSERT_EQ(found.status, 0) << found.err;
  const json result = json::parse(found.out);
  EXPECT_EQ(result["query"], "which flag loads AWQ quantized checkpoints?");
  const json& top = result["retrieved_chunks"][0];
  EXPECT_EQ(top["file_path"], "repo/docs/guide.md");
  EXPECT_EQ(top["section"], "User Guide > Quantization");
  EXPECT_EQ(top["file_type"], "markdown");
  // Offsets are code points: the text is the file's slice [starting, ending).
  const std::string file = testing::read_all(dir_ / "repo/docs/guide.md");
  EXPECT_LT(top["last_character_index"].get<std::size_t>(), file.size());  // fewer code points than bytes
  EXPECT_EQ(top["last_character_index"].get<std::size_t>() - top["first_character_index"].get<std::size_t>(),
            [&] {
              std::string t = top["text"];
              std::size_t n = 0;
              for (const char c : t) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
              return n;
            }());
  EXPECT_TRUE(result["metrics"].contains("search_time_ms"));
  EXPECT_TRUE(result["metrics"].contains("recall@5"));
  EXPECT_FALSE(result["strategy"].get<std::string>().empty());

  const Outcome code = rag("search 'How is the TCP port number parsed?' --pipeline pipeline.yaml --k 1");
  ASSERT_EQ(code.status, 0) << code.err;
  EXPECT_EQ(json::parse(code.out)["retrieved_chunks"][0]["section"], "pkg.server.parse_port");

  dir_.write("answered.json", R"({"rag_questions": [
    {"question_id": "q1", "question": "How is the TCP port number parsed?",
     "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 85, "last_character_index": 300}]},
    {"question_id": "q2", "question": "What do the release notes say about prefill batching?",
     "sources": [{"file_path": "repo/notes.txt", "first_character_index": 16, "last_character_index": 60}]}]})");
  const Outcome searched = rag("search_dataset --dataset_path answered.json --save_directory out --k 5 --pipeline pipeline.yaml");
  ASSERT_EQ(searched.status, 0) << searched.err;
  const json saved = json::parse(testing::read_all(dir_ / "out/answered.json"));
  EXPECT_EQ(saved["k"], 5);
  ASSERT_EQ(saved["search_results"].size(), 2u);
  EXPECT_EQ(saved["search_results"][0]["question_str"], "How is the TCP port number parsed?");
  for (const auto& r : saved["search_results"])
    for (const auto& s : r["retrieved_sources"])
      EXPECT_LE(s["last_character_index"].get<int>() - s["first_character_index"].get<int>(), 2000);

  const Outcome scored = rag("evaluate out/answered.json answered.json --json --per_question per.json");
  ASSERT_EQ(scored.status, 0) << scored.err;
  EXPECT_DOUBLE_EQ(json::parse(scored.out)["recall@5"].get<double>(), 1.0);
  EXPECT_EQ(json::parse(testing::read_all(dir_ / "per.json")).size(), 2u);
  const Outcome alias = rag("mesure_recall_at_k_on_dataset --student_search_results_path out/answered.json "
                                     "--answered_dataset_path answered.json");
  EXPECT_EQ(alias.status, 0);
  EXPECT_THAT(alias.out, HasSubstr("recall@5   1.0000"));
}

TEST_F(CliTest, SourcesLongerThanTheGraderTakesAreCutToItsLimit) {
  // A chunker may be allowed more than the grader's 2000 code points: the results file must
  // still be one the grader accepts. Non-ASCII text, so that bytes are not code points.
  std::string page = "# Long page\n\n";
  while (page.size() < 9000) page += "The café's prefill scheduler batches requests. Ünïcode line\n";
  dir_.write("repo/long.md", page);
  dir_.write("long.json", R"({"rag_questions": [{"question_id": "l", "question": "How does the prefill scheduler batch?",
     "sources": [{"file_path": "repo/long.md", "first_character_index": 0, "last_character_index": 1500}]}]})");
  const std::string big = " --pipeline pipeline.yaml --set 'chunkers[*].options.max_chunk_size=6000'";
  ASSERT_EQ(rag("index" + big).status, 0);
  const Outcome searched = rag("search_dataset --dataset_path long.json --save_directory out --k 3" + big);
  ASSERT_EQ(searched.status, 0) << searched.err;
  EXPECT_THAT(searched.err, HasSubstr("were longer than 2000 characters, which the grader rejects, and were cut"));
  const json saved = json::parse(testing::read_all(dir_ / "out/long.json"));
  const json& top = saved["search_results"][0]["retrieved_sources"][0];
  EXPECT_EQ(top["file_path"], "repo/long.md");
  EXPECT_EQ(top["last_character_index"].get<int>() - top["first_character_index"].get<int>(), 2000);
  const Outcome scored = rag("evaluate out/long.json long.json --json");
  ASSERT_EQ(scored.status, 0) << scored.err;
  EXPECT_DOUBLE_EQ(json::parse(scored.out)["recall@5"].get<double>(), 1.0);
}

TEST_F(CliTest, ChunksOracleMeasuresWhichGroundTruthSpansTheChunksReach) {
  index();
  dir_.write("answered.json", R"({"rag_questions": [
    {"question_id": "q1", "question": "How is the TCP port number parsed?",
     "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 85, "last_character_index": 300}]},
    {"question_id": "q2", "question": "What is in the picture?",
     "sources": [{"file_path": "repo/image.png", "first_character_index": 0, "last_character_index": 8}]}]})");
  dir_.write("guide.json", R"({"rag_questions": [
    {"question_id": "g1", "question": "Which flag loads AWQ checkpoints?",
     "sources": [{"file_path": "repo/docs/guide.md", "first_character_index": 200, "last_character_index": 330}]}]})");
  const Outcome r = rag("chunks --oracle answered.json guide.json --export chunks.jsonl --pipeline pipeline.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  // The picture is not indexed (binary): no chunk can ever find that span.
  EXPECT_THAT(r.out, HasSubstr("answered.json: oracle recall 0.500; 1 of 2 ground-truth spans within reach; "
                               "best IoU of a chunk with a span: p10 0.00, median 0.00\n"
                               "  out of reach: q2 repo/image.png:0-8 (best IoU 0.000)\n"));
  EXPECT_THAT(r.out, HasSubstr("guide.json: oracle recall 1.000; 1 of 1 ground-truth spans within reach"));
  EXPECT_THAT(r.err, HasSubstr("wrote "));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "chunks.jsonl"));
  EXPECT_THAT(rag("chunks --oracle answered.json --show 0 --pipeline pipeline.yaml").out, HasSubstr("... 1 more (--show N)"));

  expect_error("chunks --pipeline pipeline.yaml", "needs --export FILE.jsonl");
  expect_error("chunks --oracle missing.json --pipeline pipeline.yaml", "missing.json");
  dir_.write("unanswered.json", R"({"rag_questions": [{"question_id": "a", "question": "port"}]})");
  expect_error("chunks --oracle answered.json unanswered.json --pipeline pipeline.yaml", "question a has no sources");
  dir_.write("none.json", R"({"rag_questions": []})");
  expect_error("chunks --oracle none.json --pipeline pipeline.yaml", "none.json: the dataset has no questions");
  // search_dataset and answer_dataset too: a results file of none would look like a run.
  expect_error("search_dataset --dataset_path none.json --save_directory out --pipeline pipeline.yaml",
               "none.json: the dataset has no questions");
  expect_error("answer_dataset --dataset_path none.json --save_directory out --pipeline pipeline.yaml",
               "none.json: the dataset has no questions");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out/none.json"));
  expect_error("chunks --oracle answered.json --show -1 --pipeline pipeline.yaml", "--show must be 0 or more");
  expect_error("chunks --export chunks.jsonl --show 3 --pipeline pipeline.yaml", "use it with --oracle");
  // The export fails after the report is made: nothing of it reaches stdout (expect_error).
  dir_.write("a-file", "");
  expect_error("chunks --oracle answered.json --export a-file/chunks.jsonl --pipeline pipeline.yaml", "a-file");
}

TEST_F(CliTest, BadInputGetsOneClearLine) {
  expect_error("frobnicate", "unknown command 'frobnicate'");
  expect_error("search hello --pipeline missing.yaml", "missing.yaml: pipeline file not found");
  dir_.write("broken.yaml", "corpus: [unclosed\n");
  expect_error("index --pipeline broken.yaml", "not valid YAML");
  dir_.write("typo.yaml", testing::read_all(dir_ / "pipeline.yaml") + "retreiver: {}\n");
  expect_error("index --pipeline typo.yaml", "unknown key 'retreiver'");
  std::string unknown_plugin = testing::read_all(dir_ / "pipeline.yaml");
  unknown_plugin.replace(unknown_plugin.find("bm25"), 4, "bm99");
  dir_.write("unknown.yaml", unknown_plugin);
  expect_error("index --pipeline unknown.yaml", "unknown retriever plugin 'bm99'");
  std::string no_corpus = testing::read_all(dir_ / "pipeline.yaml");
  no_corpus.replace(no_corpus.find("root: repo"), 10, "root: nowhere");
  dir_.write("nocorpus.yaml", no_corpus);
  expect_error("index --pipeline nocorpus.yaml", "corpus folder nowhere");
  expect_error("index --pipeline pipeline.yaml --max_chunk_size 0", "--max_chunk_size must be a positive");
  expect_error("index --pipeline pipeline.yaml --max_chunk_size 500 --set 'chunkers[0].options.max_chunk_size=700'",
               "both set a chunk size: give one");
  expect_error("index --pipeline pipeline.yaml --bogus", "unrecognised option '--bogus'");

  expect_error("search hello --pipeline pipeline.yaml", "no index at index");
  ASSERT_EQ(rag("index --pipeline pipeline.yaml").status, 0);
  expect_error("search '   ' --pipeline pipeline.yaml", "the query is empty");
  expect_error("search hello --k 0 --pipeline pipeline.yaml", "--k must be between 1 and 1000");
  expect_error("search hello --k -1 --pipeline pipeline.yaml", "--k must be between");
  expect_error("search hello --k many --pipeline pipeline.yaml", "invalid");
  // An override of what the index holds has an index of its own, built by its own command.
  expect_error("search hello --pipeline pipeline.yaml --max_chunk_size 999", "no index at index@");
  EXPECT_THAT(rag("search hello --pipeline pipeline.yaml --max_chunk_size 999").err,
              HasSubstr("run `rag index --pipeline pipeline.yaml --set 'chunkers[*].options.max_chunk_size=999'` first"));

  dir_.write("bad.json", "{not json");
  expect_error("search_dataset --dataset_path bad.json --save_directory out --pipeline pipeline.yaml", "not valid JSON");
  dir_.write("dup.json", R"({"rag_questions": [{"question_id": "a", "question": "x"}, {"question_id": "a", "question": "y"}]})");
  expect_error("search_dataset --dataset_path dup.json --save_directory out --pipeline pipeline.yaml", "duplicate question_id a");
  dir_.write("empty_q.json", R"({"rag_questions": [{"question_id": "a", "question": "  "}]})");
  expect_error("search_dataset --dataset_path empty_q.json --save_directory out --pipeline pipeline.yaml", "is empty");
  dir_.write("ok.json", R"({"rag_questions": [{"question_id": "a", "question": "port"}]})");
  expect_error("search_dataset --dataset_path ok.json --save_directory out --k 11 --pipeline pipeline.yaml", "--k must be between 1 and 10");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out"));
  expect_error("evaluate missing.json ok.json", "missing.json: file not found");

  // A damaged index: `rag check` reads every file whole and names the damage and the mend.
  const json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  const std::string chunks = "index/" + manifest["segments"][0]["name"].get<std::string>() + "/chunks.bin";
  std::string bytes = testing::read_all(dir_ / chunks);
  bytes[bytes.size() / 2] ^= 0x01;
  dir_.write(chunks, bytes);
  const Outcome checked = rag("check --pipeline pipeline.yaml --format text");
  EXPECT_EQ(checked.status, 1) << checked.err;  // a script notices
  EXPECT_THAT(checked.out, HasSubstr("fails its checksum"));
  EXPECT_THAT(checked.out, HasSubstr(": damaged: "));  // not "stale", which the next `rag index` mends
  EXPECT_THAT(checked.out, HasSubstr("(`rag index --pipeline pipeline.yaml --full` rebuilds it)"));
  const Outcome checked_json = rag("check --pipeline pipeline.yaml --format json");
  EXPECT_EQ(checked_json.status, 1);
  EXPECT_EQ(json::parse(checked_json.out)["index"]["damaged"], true);
  // `rag index` does not call it up to date: the file written since the manifest is read whole,
  // and the index built again.
  EXPECT_THAT(expect_success("index --pipeline pipeline.yaml").err,
              AllOf(HasSubstr("building from scratch"), HasSubstr("checksum"), Not(HasSubstr("to rebuild it"))));
  EXPECT_EQ(rag("check --pipeline pipeline.yaml --format text").status, 0);
  // A file whose time moved but whose bytes did not (a copy without -p) is read once: its new
  // time is recorded, and the index is up to date.
  const json rebuilt = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  const std::string first_file = "index/" + rebuilt["files"][0]["path"].get<std::string>();
  std::filesystem::last_write_time(dir_ / first_file, std::filesystem::last_write_time(dir_ / first_file) + std::chrono::hours(1));
  EXPECT_THAT(expect_success("index --pipeline pipeline.yaml").err, HasSubstr("is up to date"));
  EXPECT_NE(json::parse(testing::read_all(dir_ / "index/manifest.json"))["files"][0]["modified"], rebuilt["files"][0]["modified"]);
  expect_success("index --full --pipeline pipeline.yaml");
  const Outcome mended = rag("check --pipeline pipeline.yaml --format text");
  EXPECT_EQ(mended.status, 0) << mended.err;
  EXPECT_THAT(mended.out, HasSubstr(": current ("));
  json old = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  old["format"] = 0;
  dir_.write("index/manifest.json", old.dump());
  expect_error("search hello --pipeline pipeline.yaml", "has format 0");
  // A corpus that is not a folder is what `rag index` would stop at: said as it is, exit 1.
  dir_.write("a-file.txt", "x");
  const Outcome file_corpus = rag("check --pipeline pipeline.yaml --set corpus.root=a-file.txt --format text");
  EXPECT_EQ(file_corpus.status, 1);
  EXPECT_THAT(file_corpus.out, HasSubstr("a-file.txt, which is a file, not a folder; set corpus.root"));
  const Outcome missing_corpus = rag("check --pipeline pipeline.yaml --set corpus.root=nowhere --format json");
  EXPECT_EQ(missing_corpus.status, 1);
  EXPECT_EQ(json::parse(missing_corpus.out)["corpus"]["exists"], false);
}

// Segment folders in the index: one after a build, one more per update, one again after --full;
// nothing of a generation the manifest no longer names is left.
TEST_F(CliTest, UpdatesAddSegmentsAndFullRebuildsLeaveOne) {
  const auto segments = [&] {
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir_ / "index"))
      n += entry.path().filename().string().rfind("seg-", 0) == 0;
    return n;
  };
  ASSERT_EQ(rag("index --pipeline pipeline.yaml").status, 0);
  EXPECT_EQ(segments(), 1u);
  EXPECT_THAT(rag("index --pipeline pipeline.yaml").err, HasSubstr("index is up to date (3 files, "));
  EXPECT_EQ(segments(), 1u);
  dir_.write("repo/notes.txt", testing::read_all(dir_ / "repo/notes.txt") + "\nThe port is configurable.\n");
  const Outcome updated = rag("index --pipeline pipeline.yaml");
  EXPECT_THAT(updated.err, HasSubstr("updated index in "));
  EXPECT_THAT(updated.err, HasSubstr(": 1 changed, 0 added, 0 removed -> 3 files, "));
  EXPECT_EQ(segments(), 2u);
  EXPECT_THAT(rag("search configurable --pipeline pipeline.yaml --format text").out, HasSubstr("repo/notes.txt"));
  const Outcome full = rag("index --full --pipeline pipeline.yaml");
  EXPECT_THAT(full.err, HasSubstr("indexed 3 files into "));
  EXPECT_EQ(segments(), 1u);
  EXPECT_EQ(rag("search port --pipeline pipeline.yaml").status, 0);
}

// The retrievers a fusion is made of made the index too: each one's version is recorded, and
// another version of one of them makes the index stale.
TEST_F(CliTest, TheMembersOfAFusionAreRecordedWithTheirVersions) {
  std::string fused = testing::read_all(dir_ / "pipeline.yaml");
  fused.replace(fused.find("plugin: bm25"), 12,
                "{plugin: fusion, options: {retrievers: [{plugin: bm25, options: {k1: 1.5}}, {plugin: tfidf}]}}");
  fused.replace(fused.find("index: index"), 12, "index: index-fused");
  dir_.write("fused.yaml", fused);
  ASSERT_EQ(rag("index --pipeline fused.yaml").status, 0);
  json manifest = json::parse(testing::read_all(dir_ / "index-fused/manifest.json"));
  json member;
  for (const json& p : manifest["plugins"])
    if (p["stage"] == "retriever.retrievers[1]") member = p;
  ASSERT_EQ(member.value("plugin", ""), "tfidf") << manifest["plugins"].dump();
  EXPECT_THAT(rag("check --pipeline fused.yaml --format text").out,
              AllOf(HasSubstr("retriever.retrievers[0] bm25 "), HasSubstr("retriever.retrievers[1] tfidf ")));
  for (json& p : manifest["plugins"])
    if (p["stage"] == "retriever.retrievers[1]") p["version"] = "0.0.1";
  dir_.write("index-fused/manifest.json", manifest.dump());
  EXPECT_THAT(rag("check --pipeline fused.yaml --format text").out,
              HasSubstr("was built with tfidf 0.0.1 (retriever.retrievers[1]); this is tfidf " + member["version"].get<std::string>()));
  EXPECT_THAT(expect_success("index --pipeline fused.yaml").err, HasSubstr("building from scratch"));
}

// An index of another format is refused by search with the command that rebuilds it, and that
// command rebuilds it, saying why; so is an update with a retriever that cannot update.
TEST_F(CliTest, OldFormatsAndRetrieversThatCannotUpdateAreRebuilt) {
  ASSERT_EQ(rag("index --pipeline pipeline.yaml").status, 0);
  json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  manifest["format"] = 3;
  dir_.write("index/manifest.json", manifest.dump());
  expect_error("search port --pipeline pipeline.yaml",
               "the index at index has format 3, this rag reads format " + std::to_string(kIndexFormat) + "; run `rag index --pipeline pipeline.yaml` to rebuild it");
  EXPECT_THAT(expect_success("index --pipeline pipeline.yaml").err,
              HasSubstr("note: building from scratch: the index at index has format 3, this rag reads format " + std::to_string(kIndexFormat) + "\n"));
  EXPECT_EQ(rag("search port --pipeline pipeline.yaml").status, 0);

  // Another version of a chunker made the chunks (the manifest says which): they are made again.
  manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  ASSERT_EQ(manifest["plugins"][0]["stage"], "chunkers[0]");
  ASSERT_EQ(manifest["plugins"][0]["plugin"], "python");
  const std::string version = manifest["plugins"][0]["version"];
  manifest["plugins"][0]["version"] = "0.0.1";
  dir_.write("index/manifest.json", manifest.dump());
  const std::string why = "the index at index was built with python 0.0.1 (chunkers[0]); this is python " + version;
  EXPECT_THAT(rag("check --pipeline pipeline.yaml --format text").out, HasSubstr(why));
  expect_error("search port --pipeline pipeline.yaml", why + "; run `rag index --pipeline pipeline.yaml` to rebuild it");
  EXPECT_THAT(expect_success("index --pipeline pipeline.yaml").err, HasSubstr("note: building from scratch: " + why + "\n"));
  manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  manifest.erase("plugins");
  dir_.write("index/manifest.json", manifest.dump());
  EXPECT_THAT(expect_success("index --pipeline pipeline.yaml").err,
              HasSubstr("building from scratch: the index at index does not record its plugins' versions (an older rag built it)"));
  EXPECT_THAT(expect_success("index --pipeline pipeline.yaml").err, HasSubstr("is up to date"));

  std::string fixed = testing::read_all(dir_ / "pipeline.yaml");
  fixed.replace(fixed.find("plugin: bm25"), 12, "{plugin: throwing_retriever, options: {updatable: false}}");
  fixed.replace(fixed.find("index: index"), 12, "index: index-fixed");
  fixed += "plugin_paths: ['" + std::string(RAG_BINARY_DIR) + "/tests/bad_plugins/throwing_retriever']\n";
  dir_.write("fixed.yaml", fixed);
  expect_success("index --pipeline fixed.yaml");
  EXPECT_THAT(expect_success("index --pipeline fixed.yaml").err, HasSubstr("is up to date"));
  dir_.write("repo/notes.txt", testing::read_all(dir_ / "repo/notes.txt") + "\nMore.\n");
  EXPECT_THAT(expect_success("index --pipeline fixed.yaml").err,
              HasSubstr("note: building from scratch: the throwing_retriever retriever cannot update an index\n"));
}

TEST_F(CliTest, TuneChoosesByCrossValidationAndWritesThePipeline) {
  std::string questions = R"({"rag_questions": [)";
  const std::vector<std::pair<std::string, std::string>> asked = {
      {"How is the TCP port number parsed?", "repo/pkg/server.py"}, {"Which flag loads AWQ checkpoints?", "repo/docs/guide.md"},
      {"How do I install the package?", "repo/docs/guide.md"}, {"What does start do?", "repo/pkg/server.py"},
      {"Where are the notes?", "repo/notes.txt"}};
  for (std::size_t i = 0; i < asked.size(); ++i)
    questions += std::string(i ? "," : "") + R"({"question_id": "q)" + std::to_string(i) + R"(", "question": ")" +
                 asked[i].first + R"(", "sources": [{"file_path": ")" + asked[i].second +
                 R"(", "first_character_index": 0, "last_character_index": 60}]})";
  dir_.write("answered.json", questions + "]}");
  dir_.write("configs/default.yaml", testing::read_all(dir_ / "pipeline.yaml"));
  const Outcome r = rag("tune --dataset answered.json --grid retriever.options.k1=0.5,2 --grid "
                        "retriever.options.b=0.3 --folds 3 --output configs/tuned.yaml --json tune.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("configuration 3 of 3: retriever.options.k1=2 retriever.options.b=0.3"));
  EXPECT_THAT(r.out, HasSubstr("held-out folds (3; questions about one file kept in one fold)"));
  EXPECT_THAT(r.out, HasSubstr("  retriever.options.k1=0.5 retriever.options.b=0.3\n"));  // whole, however long
  EXPECT_THAT(r.out, HasSubstr("chosen on all questions: "));
  const json report = json::parse(testing::read_all(dir_ / "tune.json"));
  EXPECT_EQ(report["configurations"].size(), 3u);
  EXPECT_EQ(report["held_out"][0]["tuned"].size(), 3u);
  // The chosen pipeline is a pipeline, named after its file, on the index it was measured with.
  const Outcome checked = rag("check --pipeline tuned --format json");
  ASSERT_EQ(checked.status, 0) << checked.err;
  EXPECT_EQ(json::parse(checked.out)["pipeline"]["name"], "tuned");
  EXPECT_EQ(json::parse(checked.out)["index"]["state"], "current");
  // A grid value equal to the pipeline's own is the pipeline as written: tried once.
  const Outcome same = rag("tune --dataset answered.json --grid 'chunkers[0].options.max_chunk_size=400,500' --folds 3");
  ASSERT_EQ(same.status, 0) << same.err;
  EXPECT_THAT(same.err, HasSubstr("note: chunkers[0].options.max_chunk_size=400 is the pipeline as written; it is tried once"));
  EXPECT_THAT(same.err, HasSubstr("configuration 2 of 2: chunkers[0].options.max_chunk_size=500"));
  // Numbers are compared as numbers: 1.20 is the 1.2 of the pipeline (here its --set).
  const Outcome spelt = rag("tune --dataset answered.json --set retriever.options.k1=1.2 --grid retriever.options.k1=1.20,0.9 --folds 3");
  ASSERT_EQ(spelt.status, 0) << spelt.err;
  EXPECT_THAT(spelt.err, HasSubstr("note: retriever.options.k1=1.20 is the pipeline as written; it is tried once"));
  // Tuned again, it says its latest tuning once.
  ASSERT_EQ(rag("tune tuned --dataset answered.json --grid retriever.options.b=0.3,0.5 --folds 3 --output configs/again.yaml").status, 0);
  const std::string description = json::parse(rag("check --pipeline again --format json").out)["pipeline"]["description"];
  EXPECT_EQ(description.find("tuned by rag tune"), description.rfind("tuned by rag tune")) << description;
  // Bad requests say what to give.
  expect_error("tune --dataset answered.json", "give the values to try (--grid KEY=V1,V2,...)");
  expect_error("tune --dataset answered.json --grid k1", "expected KEY=VALUE,VALUE,...");
  expect_error("tune --dataset answered.json --grid retriever.options.k1=1, --folds 2", "an empty value");
  expect_error("tune --dataset answered.json --grid retriever.options.k1=1.2,1.2", "1.2 is given twice");
  expect_error("tune --dataset answered.json --grid retriever.options.k1=0.9,0.90", "0.90 (0.9) is given twice");
  expect_error("tune --dataset answered.json --grid retriever.options.k1=1 --grid retriever.options.k1=2",
               "--grid retriever.options.k1 is given twice: give its values in one --grid");
  expect_error("tune --dataset answered.json --grid retriever.options.k1=1 --folds 1", "--folds must be between 2 and 20");
  expect_error("tune --dataset answered.json --grid retriever.options.k1=1 --folds 4", "cannot make 4 folds of 3 groups");
  expect_error("tune --dataset answered.json --grid retriever.options.k1=1 --output /tmp/elsewhere.yaml",
               "write the tuned pipeline where its relative paths mean what the pipeline's own do");
  // A pipeline someone wrote is not replaced; one rag tune wrote is, and ./ or .. spell configs/ too.
  dir_.write("configs/mine.yaml", testing::read_all(dir_ / "pipeline.yaml"));
  expect_error("tune --dataset answered.json --grid retriever.options.k1=0.5 --folds 3 --output configs/mine.yaml",
               "--output configs/mine.yaml is a pipeline rag tune did not write; name a new file");
  EXPECT_EQ(rag("tune --dataset answered.json --grid retriever.options.k1=0.5 --folds 3 --output ./configs/../configs/tuned.yaml").status, 0);
  expect_error("tune --dataset answered.json --grid retriever.options.k1=high", "k1");
}

TEST_F(CliTest, CompareTwoPipelines) {
  std::string tfidf = testing::read_all(dir_ / "pipeline.yaml");
  tfidf.replace(tfidf.find("plugin: bm25"), 12, "plugin: tfidf");
  tfidf.replace(tfidf.find("index: index"), 12, "index: index-tfidf");
  dir_.write("tfidf.yaml", tfidf);
  dir_.write("answered.json", R"({"rag_questions": [
    {"question_id": "q1", "question": "How is the TCP port number parsed?",
     "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 85, "last_character_index": 300}]},
    {"question_id": "q2", "question": "Which flag loads AWQ checkpoints?",
     "sources": [{"file_path": "repo/docs/guide.md", "first_character_index": 200, "last_character_index": 330}]}]})");
  const Outcome r = rag("compare pipeline.yaml tfidf.yaml --dataset answered.json --json cmp.json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("recall@5"));
  EXPECT_THAT(r.out, HasSubstr("nDCG@10"));
  EXPECT_THAT(r.out, HasSubstr("paired bootstrap"));
  EXPECT_THAT(r.out, HasSubstr("sign test"));
  // Neither index existed: each is built, and nothing says to run `rag index`.
  EXPECT_THAT(r.err, HasSubstr("A (pipeline): building its index (none yet at index)"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("run `rag index")));
  const json report = json::parse(testing::read_all(dir_ / "cmp.json"));
  EXPECT_EQ(report["pipelines"].size(), 2u);
  EXPECT_EQ(report["datasets"][0]["results"][0]["recall@5"], 1.0);
  EXPECT_TRUE(report["datasets"][0]["comparisons"][0].contains("ci95"));
  // A second run reuses both indexes.
  const Outcome again = rag("compare pipeline.yaml tfidf.yaml --dataset answered.json");
  EXPECT_EQ(again.status, 0);
  EXPECT_THAT(again.err, ::testing::Not(HasSubstr("building")));
  EXPECT_THAT(again.out, HasSubstr("(reused)"));
  // A file edited: both indexes are updated, and their index time is still their full build's.
  const json first = json::parse(testing::read_all(dir_ / "cmp.json"));
  std::ofstream(dir_ / "repo/notes.txt", std::ios::app) << "one more line\n";
  const Outcome updated = rag("compare pipeline.yaml tfidf.yaml --dataset answered.json --json cmp2.json");
  ASSERT_EQ(updated.status, 0) << updated.err;
  EXPECT_THAT(updated.err, HasSubstr("A (pipeline): bringing its index up to date"));
  EXPECT_THAT(updated.out, HasSubstr("(updated)"));
  const json second = json::parse(testing::read_all(dir_ / "cmp2.json"));
  EXPECT_EQ(second["pipelines"][0]["index_seconds"], first["pipelines"][0]["index_seconds"]);
  EXPECT_EQ(second["pipelines"][0]["index_updated"], true);

  // One pipeline against itself with an option changed: labelled by file and override, each
  // with its own index.
  const Outcome ab = rag("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.5 --dataset answered.json "
                         "--json ab.json");
  ASSERT_EQ(ab.status, 0) << ab.err;
  EXPECT_THAT(ab.err, HasSubstr("A: pipeline.yaml (pipeline.yaml)"));
  EXPECT_THAT(ab.err, HasSubstr("B: pipeline.yaml retriever.options.k1=0.5 (pipeline.yaml with --set retriever.options.k1=0.5)"));
  EXPECT_THAT(ab.err, HasSubstr("B (pipeline.yaml retriever.options.k1=0.5): building its index"));
  EXPECT_THAT(ab.err, ::testing::Not(HasSubstr("A (pipeline.yaml): building")));  // A's index is the one built above
  const json ab_report = json::parse(testing::read_all(dir_ / "ab.json"));
  EXPECT_EQ(ab_report["pipelines"][1]["column"], "pipeline.yaml retriever.options.k1=0.5");
  EXPECT_THAT(ab.out, HasSubstr("B: pipeline.yaml retriever.options.k1=0.5"));  // the whole label heads its column
  EXPECT_EQ(ab_report["pipelines"][1]["overrides"][0], "retriever.options.k1=0.5");
  // Two files that share a name: labelled by file.
  std::string renamed = testing::read_all(dir_ / "tfidf.yaml");
  renamed.replace(renamed.find("index: index-tfidf"), 18, "index: index-copy");
  dir_.write("copy.yaml", "name: tfidf\n" + renamed);
  dir_.write("tfidf-named.yaml", "name: tfidf\n" + testing::read_all(dir_ / "tfidf.yaml"));
  const Outcome same_name = rag("compare tfidf-named.yaml copy.yaml --dataset answered.json");
  ASSERT_EQ(same_name.status, 0) << same_name.err;
  EXPECT_THAT(same_name.out, HasSubstr("A: tfidf-named.yaml"));
  EXPECT_THAT(same_name.out, HasSubstr("B: copy.yaml"));
  expect_error("compare pipeline.yaml pipeline.yaml --set C:retriever.options.k1=0.5 --dataset answered.json",
               "--set C:retriever.options.k1=0.5 names pipeline C, but there are only 2 (A to B)");

  expect_error("compare pipeline.yaml --dataset answered.json", "at least two pipelines");
  expect_error("compare pipeline.yaml tfidf.yaml", "at least one --dataset");
  expect_error("compare pipeline.yaml tfidf.yaml --dataset answered.json --show -2", "--show must be 0 or more");
  std::string clash = tfidf;
  clash.replace(clash.find("index: index-tfidf"), 18, "index: index");
  dir_.write("clash.yaml", clash);
  expect_error("compare pipeline.yaml clash.yaml --dataset answered.json", "use the same index folder");
}

TEST_F(CliTest, SeveralGranularitiesNeverRepeatTheSameText) {
  // Markdown is chunked twice, by sections and in 300-character windows; results must not list
  // two spans of one file that mostly overlap.
  dir_.write("two.yaml", R"(
corpus: {root: repo}
chunkers:
  - {plugin: markdown, files: "**/*.md", options: {max_chunk_size: 400}, continue: true}
  - {plugin: text, files: "**/*.md", options: {max_chunk_size: 300}}
  - {plugin: text, files: "**"}
retriever: {plugin: bm25}
index: index-two
)");
  ASSERT_EQ(rag("index --pipeline two.yaml").status, 0);
  const Outcome r = rag("search 'guide quantization installation awq' --k 10 --pipeline two.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  const json hits = json::parse(r.out)["retrieved_chunks"];
  ASSERT_GE(hits.size(), 2u);
  for (std::size_t i = 0; i < hits.size(); ++i)
    for (std::size_t j = i + 1; j < hits.size(); ++j) {
      if (hits[i]["file_path"] != hits[j]["file_path"]) continue;
      const auto a0 = hits[i]["first_character_index"].get<std::size_t>(), a1 = hits[i]["last_character_index"].get<std::size_t>();
      const auto b0 = hits[j]["first_character_index"].get<std::size_t>(), b1 = hits[j]["last_character_index"].get<std::size_t>();
      const std::size_t overlap = std::min(a1, b1) > std::max(a0, b0) ? std::min(a1, b1) - std::max(a0, b0) : 0;
      EXPECT_LE(2 * overlap, std::min(a1 - a0, b1 - b0)) << i << " and " << j;
    }
}

TEST_F(CliTest, PluginsListsWhatItFound) {
  const Outcome r = rag("plugins");
  ASSERT_EQ(r.status, 0);
  EXPECT_THAT(r.out, HasSubstr("retriever\tbm25"));
  EXPECT_THAT(r.out, HasSubstr("chunker\tpython"));
  EXPECT_THAT(r.out, HasSubstr("libmarkdown.so"));
  // RAG_PLUGIN_PATH adds folders; a library there that is not a plugin is reported, not fatal.
  const std::string bad = std::string(RAG_BINARY_DIR) + "/tests/bad_plugins";
  const Outcome extra = rag("plugins", "RAG_PLUGIN_PATH='" + bad + "/throwing_retriever:" + bad + "/no_entry' ");
  ASSERT_EQ(extra.status, 0);
  EXPECT_THAT(extra.out, HasSubstr("retriever\tthrowing_retriever\t0.0.1"));
  EXPECT_THAT(extra.out, HasSubstr("problem: " + bad + "/no_entry/libno_entry.so: not a rag plugin"));

  // A folder of the path holding a plugin named as a built-in one comes first: said, and its
  // messages name its library.
  const std::filesystem::path mine = dir_ / "mine";
  std::filesystem::create_directories(mine);
  std::filesystem::copy_file(std::string(RAG_BINARY_DIR) + "/rag-plugins/chunker/libtext.so", mine / "libtext.so");
  const std::string path = "RAG_PLUGIN_PATH='" + mine.string() + "' ";
  EXPECT_THAT(rag("plugins", path).out, HasSubstr("libtext.so: not used: the chunker plugin 'text' comes first from " +
                                                  (mine / "libtext.so").string()));
  const Outcome bad_option = rag("check --pipeline pipeline.yaml --set 'chunkers[2].options.colour=red'", path);
  EXPECT_THAT(bad_option.err, HasSubstr("unknown option 'colour'"));
  EXPECT_THAT(bad_option.err, HasSubstr("(the text plugin 1.0.0 of " + (mine / "libtext.so").string() + ")"));
  EXPECT_THAT(rag("check --pipeline pipeline.yaml --set 'chunkers[2].options.colour=red'").err, Not(HasSubstr("plugin 1.0.0 of")));
}

}  // namespace
}  // namespace rag
