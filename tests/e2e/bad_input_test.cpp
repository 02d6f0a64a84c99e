// The catalogue of bad inputs, each run through the real `rag` binary. An error is a non-zero
// exit (not a signal), exactly one line on stderr starting with "error:" that names the problem,
// and no output file, whole or partial. Inputs that are not errors (a binary corpus file, k above
// the number of chunks) give a note or a warning and the run goes on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <thread>

#include "e2e/fixture_repo_test.hpp"
#include "rag/index.hpp"

namespace rag {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;
namespace fs = std::filesystem;
using testing::Outcome;
using testing::run_rag;


// Code points of UTF-8 text, for comparing spans with Python's string indexing.
std::u32string decode(const std::string& text) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

class BadInput : public testing::FixtureRepoTest {
 protected:
  // Root ignores file permissions: tests of unreadable or unwritable paths drop to `nobody`.
  static std::string unprivileged() {
    return ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups --" : "";
  }

  std::string segment_file(const std::string& name) const {
    const json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
    return "index/" + manifest["segments"][0]["name"].get<std::string>() + "/" + name;
  }
  /// An update of the index, so that it has two segments and a file of removals.
  void update() const {
    dir_.write("repo/notes.txt", testing::read_all(dir_ / "repo/notes.txt") + "\nThe port is configurable.\n");
    index();
  }

};

// --- corpus -----------------------------------------------------------------------------------

TEST_F(BadInput, CorpusFolderMissing) {
  write_variant("p.yaml", "root: repo", "root: nowhere");
  expect_error("index --pipeline p.yaml", "corpus folder nowhere (corpus.root in p.yaml) does not exist");
  EXPECT_FALSE(fs::exists(dir_ / "index"));
}

TEST_F(BadInput, CorpusFolderIsAFile) {
  write_variant("p.yaml", "root: repo", "root: repo/notes.txt");
  expect_error("index --pipeline p.yaml", "is not a folder");
}

TEST_F(BadInput, CorpusFolderEmpty) {
  fs::create_directories(dir_ / "empty");
  write_variant("p.yaml", "root: repo", "root: empty");
  expect_error("index --pipeline p.yaml", "gave no chunks (0 files matched corpus.include)");
  EXPECT_FALSE(fs::exists(dir_ / "index/manifest.json"));
}

TEST_F(BadInput, CorpusOfOnlyBinaryFiles) {
  dir_.write("bin/a.py", std::string("\x7f" "ELF\0\0\x01", 7));
  dir_.write("bin/b.md", "caf\xe9");
  write_variant("p.yaml", "root: repo", "root: bin");
  expect_error("index --pipeline p.yaml", "2 files matched corpus.include, 2 passed over, e.g. a.py: skipped, binary");
}

TEST_F(BadInput, CorpusTheChunkersReturnNothingFor) {
  // Read, but nothing to cut: the message points at the chunkers, not at corpus.include.
  dir_.write("blank/a.py", "");
  dir_.write("blank/b.md", "\n\n   \n");
  write_variant("p.yaml", "root: repo", "root: blank");
  expect_error("index --pipeline p.yaml", "2 files matched corpus.include; the chunkers returned none for 2, e.g. a.py); "
                                          "check the chunkers of p.yaml");
  EXPECT_FALSE(fs::exists(dir_ / "index")) << "a folder the failed run made is left behind";
  // A folder that was there before stays, whatever it holds.
  fs::create_directories(dir_ / "index");
  expect_error("index --pipeline p.yaml", "the chunkers returned none for 2");
  EXPECT_TRUE(fs::exists(dir_ / "index"));
}

TEST_F(BadInput, BinaryAndNonUtf8FilesArePassedOverWithANote) {
  dir_.write("repo/blob.md", std::string("# Title\n\0\0\0", 11));
  dir_.write("repo/latin1.py", "name = 'caf\xe9'\n");
  dir_.write("repo/overlong.txt", "\xc0\xaf");  // an overlong '/' is not UTF-8
  const Outcome r = expect_success("index --pipeline pipeline.yaml -v", "note: blob.md: skipped, binary (NUL bytes)");
  EXPECT_THAT(r.err, HasSubstr("note: latin1.py: skipped, not valid UTF-8"));
  EXPECT_THAT(r.err, HasSubstr("note: overlong.txt: skipped, not valid UTF-8"));
  EXPECT_THAT(r.err, HasSubstr("(3 files passed over)"));
  // Without -v, one line says how many and how to see them.
  EXPECT_THAT(expect_success("index --pipeline pipeline.yaml").err, HasSubstr("3 files passed over; -v lists them"));
}

TEST_F(BadInput, UnreadableFileIsPassedOverWithANote) {
  dir_.write("repo/secret.md", "# Secret\nnothing to see\n");
  fs::permissions(dir_ / "repo/secret.md", fs::perms::none);
  fs::create_directories(dir_ / "index");
  fs::permissions(dir_ / "index", fs::perms::all);
  const Outcome r = rag("index --pipeline pipeline.yaml -v", unprivileged());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("note: secret.md: skipped, "));
  EXPECT_THAT(r.err, HasSubstr("Permission denied"));
  // Still unreadable, it is not read again at every update.
  EXPECT_THAT(rag("index --pipeline pipeline.yaml", unprivileged()).err, HasSubstr("up to date"));
  // Made readable, it is read at the next update (a chmod moves its status change time);
  // `rag check` says so first, as the update sees it.
  EXPECT_THAT(rag("check --pipeline pipeline.yaml --format text", unprivileged()).out, HasSubstr(": current"));
  // Another user (here root) can read it though nothing of the file moved: said as well.
  EXPECT_THAT(rag("check --pipeline pipeline.yaml --format text").out,
              HasSubstr("files the index passed over as unreadable that can be read now"));
  fs::permissions(dir_ / "repo/secret.md", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  EXPECT_THAT(rag("check --pipeline pipeline.yaml --format text", unprivileged()).out,
              HasSubstr("stale: the corpus at repo changed since the index was built: 1 changed (secret.md)"));
  const Outcome again = rag("index --pipeline pipeline.yaml -v", unprivileged());
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_THAT(again.err, Not(HasSubstr("secret.md: skipped")));
  EXPECT_THAT(rag("search 'nothing to see' --k 1 --pipeline pipeline.yaml").out, HasSubstr("repo/secret.md"));
}

// An index kept inside its corpus (a corpus that is the whole repository) is not read as corpus.
TEST_F(BadInput, AnIndexInsideTheCorpusIsNotIndexed) {
  write_variant("p.yaml", "index: index", "index: repo/.rag/");
  expect_success("index --pipeline p.yaml", "indexed 3 files");
  expect_success("index --pipeline p.yaml", "up to date");
  EXPECT_THAT(rag("check --pipeline p.yaml --format text").out, HasSubstr(": current ("));
  EXPECT_THAT(rag("search 'chunks files segments manifest' --k 50 --pipeline p.yaml").out, Not(HasSubstr(".rag")));
}

TEST_F(BadInput, SymlinkLoopIsNotFollowed) {
  fs::create_directory_symlink("..", dir_ / "repo/pkg/loop");
  fs::create_symlink("self", dir_ / "repo/self");  // a link to itself
  const Outcome r = expect_success("index --pipeline pipeline.yaml -v", "indexed 3 files");
  EXPECT_THAT(r.err, Not(HasSubstr("loop")));
}

// A link to a file is the file, under the link's name, unless the file is in the corpus under its
// own name (then the link is passed over with a note: the same text twice would take two places
// of every result list); a link to a folder is not followed; a link that leads to no file
// (dangling, or a loop) and a pipe are passed over with a note; a folder that cannot be read is
// left out.
TEST_F(BadInput, LinksAndUnreadableFolders) {
  fs::create_symlink("notes.txt", dir_ / "repo/linked.txt");
  dir_.write("outside.txt", "The espresso grinder hums before dawn.\n");
  fs::create_symlink("../outside.txt", dir_ / "repo/outside_link.txt");
  fs::create_symlink("../outside.txt", dir_ / "repo/outside_second.txt");  // the same file again
  fs::create_symlink("outside_link.txt", dir_ / "repo/via_link.txt");      // and through a link
  fs::create_directory_symlink("pkg", dir_ / "repo/pkg_link");
  fs::create_symlink("gone.md", dir_ / "repo/dangling.md");
  fs::create_symlink("loop_b", dir_ / "repo/loop_a");
  fs::create_symlink("loop_a", dir_ / "repo/loop_b");
  ASSERT_EQ(::mkfifo((dir_ / "repo/pipe.txt").c_str(), 0600), 0);
  dir_.write("repo/closed/hidden.md", "# Hidden\nnot listed\n");
  fs::permissions(dir_ / "repo/closed", fs::perms::none);
  fs::create_directories(dir_ / "index");
  fs::permissions(dir_ / "index", fs::perms::all);
  const Outcome r = rag("index --pipeline pipeline.yaml -v", unprivileged());
  fs::permissions(dir_ / "repo/closed", fs::perms::all);  // so that the folder can be removed
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("indexed 4 files"));
  EXPECT_THAT(r.err, HasSubstr("note: linked.txt: skipped, a symbolic link to notes.txt, indexed under its own name"));
  EXPECT_THAT(r.err, HasSubstr("note: outside_second.txt: skipped, a symbolic link to the file outside_link.txt also "
                               "leads to, indexed as outside_link.txt"));
  EXPECT_THAT(r.err, HasSubstr("note: via_link.txt: skipped, a symbolic link to the file outside_link.txt also "
                               "leads to, indexed as outside_link.txt"));
  EXPECT_THAT(r.err, Not(HasSubstr("pkg_link")));
  EXPECT_THAT(r.err, HasSubstr("note: dangling.md: skipped, a symbolic link that leads to no file (No such file or directory)"));
  EXPECT_THAT(r.err, HasSubstr("note: loop_a: skipped, a symbolic link that leads to no file (Too many levels of symbolic links)"));
  EXPECT_THAT(r.err, HasSubstr("note: pipe.txt: skipped, not a regular file"));
  // Counted as they are now on a run that finds nothing to do (they are not in the fingerprint).
  fs::create_symlink("gone_too.md", dir_ / "repo/dangling_too.md");
  const Outcome again = rag("index --pipeline pipeline.yaml -v", unprivileged());
  EXPECT_THAT(again.err, HasSubstr("note: dangling_too.md: skipped"));
  const auto notes = static_cast<std::size_t>(std::count(again.err.begin(), again.err.end(), '\n')) - 1;
  std::string counted = std::to_string(notes);  // appended: "(" + temporary trips GCC 12's -Wrestrict
  counted += " files passed over)";
  EXPECT_THAT(again.err, HasSubstr(counted));
  // A folder that cannot be read is part of the corpus left out: said (unless excluded whole).
  EXPECT_THAT(r.err, HasSubstr("note: skipped a folder: closed (Permission denied)"));
  const Outcome scheduler = rag("search 'scheduler batches prefill requests' --k 10 --pipeline pipeline.yaml");
  EXPECT_EQ(scheduler.status, 0) << scheduler.err;
  EXPECT_THAT(scheduler.out, HasSubstr("repo/notes.txt"));
  EXPECT_THAT(scheduler.out, Not(HasSubstr("repo/linked.txt")));
  const Outcome espresso = rag("search 'espresso grinder' --k 10 --pipeline pipeline.yaml");
  EXPECT_THAT(espresso.out, HasSubstr("repo/outside_link.txt"));
  EXPECT_THAT(espresso.out, Not(HasSubstr("outside_second")));
}

TEST_F(BadInput, HugeFileIsPassedOverWithANote) {
  // Sparse: 100 MB on paper, nothing on disk. Over the default corpus.max_file_size (10 MB).
  std::ofstream(dir_ / "repo/huge.md").close();
  fs::resize_file(dir_ / "repo/huge.md", 100'000'000);
  const Outcome r = expect_success("index --pipeline pipeline.yaml -v",
                                   "note: huge.md: skipped, 100000000 bytes is over corpus.max_file_size");
  EXPECT_THAT(r.err, HasSubstr("indexed 3 files"));
}

TEST_F(BadInput, BomCrlfAndLoneCrKeepOffsetsInCodePoints) {
  const std::string bom = "\xEF\xBB\xBF# Caf\xC3\xA9 notes\r\n\r\nThe espresso machine warms up.\r\n";
  const std::string lone_cr = "first line\rsecond line mentions the grinder\rthird\r";
  const std::string crlf_py = "def brew(cups):\r\n    \"\"\"Brew coffee with the kettle.\"\"\"\r\n    return cups\r\n";
  dir_.write("repo/bom.md", bom);
  dir_.write("repo/lone_cr.txt", lone_cr);
  dir_.write("repo/crlf.py", crlf_py);
  index();
  const Outcome found = expect_success("search 'espresso machine' --pipeline pipeline.yaml --k 1");
  EXPECT_EQ(json::parse(found.out)["retrieved_chunks"][0]["file_path"], "repo/bom.md");
  ASSERT_EQ(rag("chunks --export chunks.jsonl --pipeline pipeline.yaml").status, 0);
  std::ifstream lines(dir_ / "chunks.jsonl");
  std::size_t checked = 0;
  for (std::string line; std::getline(lines, line);) {
    const json c = json::parse(line);
    const std::string file = c["file_path"];
    // Python's open(f, newline='').read()[first:last]: the BOM is a code point, CR is kept.
    const std::u32string all = decode(testing::read_all(dir_ / file));
    const auto first = c["first_character_index"].get<std::size_t>();
    const auto last = c["last_character_index"].get<std::size_t>();
    ASSERT_LE(last, all.size()) << file;
    EXPECT_EQ(all.substr(first, last - first), decode(c["text"])) << file;
    checked += file == "repo/bom.md" || file == "repo/lone_cr.txt" || file == "repo/crlf.py";
  }
  EXPECT_GE(checked, 3u);
}

TEST_F(BadInput, FilesChangingOrVanishingWhileIndexing) {
  // A writer rewrites, truncates, deletes and recreates files while `index` runs: every run ends
  // with success or one clear error, and whatever index is committed loads and answers.
  for (int i = 0; i < 60; ++i)
    dir_.write("repo/churn/f" + std::to_string(i) + ".md", "# File " + std::to_string(i) + "\n" + std::string(3000, 'x') + " port\n");
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::mt19937 random(7);
    while (!stop) {
      const auto file = dir_ / ("repo/churn/f" + std::to_string(random() % 60) + ".md");
      std::error_code ec;
      switch (random() % 3) {
        case 0: fs::remove(file, ec); break;
        case 1: std::ofstream(file, std::ios::trunc) << "# Rewritten\n" << std::string(random() % 5000, 'y') << " port\n"; break;
        default: fs::resize_file(file, random() % 2000, ec); break;
      }
    }
  });
  for (int run = 0; run < 5; ++run) {
    const Outcome r = rag("index --pipeline pipeline.yaml -v");
    EXPECT_LT(r.status, 128) << r.err;
    if (r.status != 0) {
      EXPECT_THAT(r.err, StartsWith("error: "));
    }
  }
  stop = true;
  writer.join();
  const Outcome searched = rag("search port --pipeline pipeline.yaml");
  EXPECT_EQ(searched.status, 0) << searched.err;
}

// --- pipeline files ---------------------------------------------------------------------------

TEST_F(BadInput, PipelineFileMissingOrAFolder) {
  expect_error("index --pipeline missing.yaml", "missing.yaml: pipeline file not found");
  fs::create_directories(dir_ / "folder.yaml");
  expect_error("index --pipeline folder.yaml", "folder.yaml: is a folder; pass a pipeline file");
  dir_.write("locked.yaml", testing::read_all(dir_ / "pipeline.yaml"));
  fs::permissions(dir_ / "locked.yaml", fs::perms::none);
  expect_error("check --pipeline locked.yaml", "locked.yaml: cannot read the pipeline file (Permission denied)", unprivileged());
}

TEST_F(BadInput, PipelineNotYaml) {
  dir_.write("broken.yaml", "corpus: [unclosed\n");
  expect_error("index --pipeline broken.yaml", "broken.yaml: not valid YAML");
  dir_.write("binary.yaml", std::string("\x00\x01\xff\xfe", 4));
  expect_error("index --pipeline binary.yaml", "binary.yaml");
  dir_.write("scalar.yaml", "just some words\n");
  expect_error("index --pipeline scalar.yaml", "a pipeline must be a YAML mapping");
  dir_.write("empty.yaml", "");
  expect_error("index --pipeline empty.yaml", "a pipeline must be a YAML mapping");
  dir_.write("tabs.yaml", "corpus:\n  root: repo\nretriever:\n\tplugin: bm25\n");
  expect_error("index --pipeline tabs.yaml", "(line 4 is indented with a tab: YAML indents with spaces only)");
}

TEST_F(BadInput, AnalysisOfAKindNoChunkerMakes) {
  expect_error("search port --pipeline pipeline.yaml --set 'retriever.options.analysis={markdwn: {stemmer: none}}'",
               "retriever.options.analysis: 'markdwn' is no kind of chunk of this pipeline; a kind is the name of a "
               "chunker's plugin (here: default, markdown, python, text)");
  EXPECT_FALSE(fs::exists(dir_ / "index"));
}

TEST_F(BadInput, PipelineUnknownKey) {
  write_variant("p.yaml", "index: index", "index: index\nretreiver: {plugin: bm25}");
  expect_error("index --pipeline p.yaml", "p.yaml: unknown key 'retreiver'");
  write_variant("q.yaml", "plugin: bm25", "plugin: bm25\n  options: {k1: 1.2, kl: 3}");
  expect_error("index --pipeline q.yaml", "unknown option 'kl'");
}

TEST_F(BadInput, PipelineDuplicateKey) {
  write_variant("p.yaml", "index: index", "index: index\nindex: other");
  expect_error("index --pipeline p.yaml", "p.yaml: index is given twice");
  write_variant("q.yaml", "{max_chunk_size: 400}}", "{max_chunk_size: 400, max_chunk_size: 90}}");
  expect_error("index --pipeline q.yaml", "max_chunk_size: is given twice");
}

TEST_F(BadInput, PipelineWrongType) {
  write_variant("p.yaml", "root: repo", "root: [a, b]");
  expect_error("index --pipeline p.yaml", "p.yaml: corpus.root must be a string");
  write_variant("q.yaml", "{max_chunk_size: 400}}", "{max_chunk_size: big}}");
  expect_error("index --pipeline q.yaml", "chunkers[0].options.max_chunk_size: must be a whole number, got");
  write_variant("r.yaml", "retriever:\n  plugin: bm25", "retriever: bm25");
  expect_error("index --pipeline r.yaml", "retriever must be a mapping");
}

TEST_F(BadInput, PipelineUnknownPlugin) {
  write_variant("p.yaml", "plugin: bm25", "plugin: bm99");
  EXPECT_THAT(expect_error("index --pipeline p.yaml", "unknown retriever plugin 'bm99' (known: ").err, HasSubstr("bm25"));
  write_variant("q.yaml", "plugin: text", "plugin: txt");
  expect_error("index --pipeline q.yaml", "unknown chunker plugin 'txt'");
}

TEST_F(BadInput, PipelinePluginFileMissing) {
  // plugin_paths names a folder where the plugin's library is not (deleted, never built).
  fs::create_directories(dir_ / "my-plugins");
  write_variant("p.yaml", "plugin: bm25", "plugin: mine");
  std::ofstream(dir_ / "p.yaml", std::ios::app) << "plugin_paths: [my-plugins]\n";
  expect_error("index --pipeline p.yaml", "unknown retriever plugin 'mine'");
  EXPECT_THAT(rag("index --pipeline p.yaml").err, HasSubstr("plugins are looked for in: my-plugins"));
}

TEST_F(BadInput, PipelineBrokenPluginLibraries) {
  const std::string bad = std::string(RAG_BINARY_DIR) + "/tests/bad_plugins/";
  for (const std::string name : {"no_entry", "bad_abi", "throwing_retriever"}) {
    write_variant(name + ".yaml", "plugin: bm25", "plugin: " + name + "\n  options: {fail_at: constructor, exception: local}");
    std::ofstream(dir_ / (name + ".yaml"), std::ios::app) << "plugin_paths: [" << bad << name << "]\n";
  }
  expect_error("index --pipeline no_entry.yaml", "libno_entry.so: not a rag plugin (no 'rag_plugin' entry point)");
  expect_error("index --pipeline bad_abi.yaml", "libbad_abi.so: built for plugin ABI 7, this rag uses ABI 6; rebuild the plugin");
  expect_error("index --pipeline throwing_retriever.yaml",
               "retriever.options: the throwing_retriever plugin failed to start: boom in constructor");
  EXPECT_FALSE(fs::exists(dir_ / "index/manifest.json"));
}

TEST_F(BadInput, MaxChunkSizeZeroOrNegative) {
  write_variant("zero.yaml", "{max_chunk_size: 400}}", "{max_chunk_size: 0}}");
  expect_error("index --pipeline zero.yaml", "chunkers[0].options.max_chunk_size: must be between 1 and 1000000, got 0");
  write_variant("negative.yaml", "{max_chunk_size: 400}}", "{max_chunk_size: -3}}");
  expect_error("index --pipeline negative.yaml", "must be between 1 and 1000000, got -3");
  expect_error("index --pipeline pipeline.yaml --max_chunk_size 0", "--max_chunk_size must be a positive number");
  expect_error("index --pipeline pipeline.yaml --max_chunk_size -5", "--max_chunk_size must be a positive number");
  EXPECT_FALSE(fs::exists(dir_ / "index/manifest.json"));
}

// --- datasets and results ---------------------------------------------------------------------

class BadData : public BadInput {
 protected:
  void SetUp() override {
    BadInput::SetUp();
    index();
  }
  // search_dataset on `content`: an error mentioning `expected`, and no results file.
  void expect_dataset_error(const std::string& content, const std::string& expected) {
    dir_.write("questions.json", content);
    expect_error("search_dataset --dataset_path questions.json --save_directory out --pipeline pipeline.yaml", expected);
    EXPECT_FALSE(fs::exists(dir_ / "out/questions.json")) << content;
  }
};

TEST_F(BadData, DatasetNotJson) {
  expect_dataset_error("{\"rag_questions\": [", "questions.json: not valid JSON");
  expect_dataset_error("", "questions.json: not valid JSON");
  expect_dataset_error("{\"rag_questions\": [], \"k\": 1e740}", "questions.json: not valid JSON");  // beyond a double
  expect_dataset_error("{\"rag_questions\": [{\"question_id\": \"a\", \"question\": \"caf\xe9\"}]}", "not valid JSON");
  expect_dataset_error("42", "expected {\"rag_questions\": [...]} or a list of questions");
  expect_error("search_dataset --dataset_path nothing.json --save_directory out --pipeline pipeline.yaml",
               "nothing.json: file not found");
}

TEST_F(BadData, AnOutputThatWouldReplaceItsInputIsRefused) {
  const std::string dataset = R"({"rag_questions": [{"question_id": "a", "question": "TCP port"}]})";
  dir_.write("in/questions.json", dataset);
  for (const std::string folder : {"in", "in/", "./in/../in"}) {
    expect_error("search_dataset --dataset_path in/questions.json --save_directory " + folder + " --pipeline pipeline.yaml",
                 "would replace it: choose another folder");
    expect_error("answer_dataset --dataset_path in/questions.json --save_directory " + folder + " --pipeline pipeline.yaml",
                 "would replace it: choose another folder");
  }
  EXPECT_EQ(testing::read_all(dir_ / "in/questions.json"), dataset);
  expect_success("search_dataset --dataset_path in/questions.json --save_directory out --pipeline pipeline.yaml");
}

TEST_F(BadData, DatasetMissingFieldsAndWrongTypes) {
  expect_dataset_error(R"({"questions": []})", "expected a 'rag_questions' list");
  expect_dataset_error(R"({"rag_questions": {"a": 1}})", "'rag_questions' must be a list");
  expect_dataset_error(R"({"rag_questions": [{"question": "x"}]})", "question 1: 'question_id' is missing");
  expect_dataset_error(R"({"rag_questions": [{"question_id": "a"}]})", "question 1 (a): 'question' is missing");
  expect_dataset_error(R"({"rag_questions": [{"question_id": "a", "question": null}]})", "question 1 (a): 'question' is missing");
  expect_dataset_error(R"({"rag_questions": [{"question_id": "", "question": "x"}]})", "question 1: 'question_id' is empty");
  expect_dataset_error(R"({"rag_questions": [{"question_id": "a", "question": "x", "sources": [{"file_path": "",
      "first_character_index": 0, "last_character_index": 5}]}]})", "question 1, source 1: 'file_path' is empty");
  expect_dataset_error(R"({"rag_questions": [{"question_id": 5, "question": "x"}]})", "'question_id' must be a string");
  expect_dataset_error(R"({"rag_questions": [{"question_id": "a", "question": ["x"]}]})", "'question' must be a string");
  expect_dataset_error(R"({"rag_questions": ["a"]})", "question 1: expected an object");
  expect_dataset_error(R"({"rag_questions": [{"question_id": "a", "question": "x", "sources": [{"file_path": "f",
                          "first_character_index": -4, "last_character_index": 2}]}]})",
                       "source 1: 'first_character_index' must be a non-negative integer");
}

TEST_F(BadData, DatasetDuplicateIdsAndEmptyQuestions) {
  expect_dataset_error(R"({"rag_questions": [{"question_id": "a", "question": "x"}, {"question_id": "a", "question": "y"}]})",
                       "question 2: duplicate question_id a");
  expect_dataset_error(R"({"rag_questions": [{"question_id": "a", "question": ""}]})", "question 1 (a) is empty");
  expect_dataset_error(R"({"rag_questions": [{"question_id": "a", "question": " \t\n "}]})", "question 1 (a) is empty");
}

TEST_F(BadData, ResultsFileProblems) {
  dir_.write("answered.json", R"({"rag_questions": [{"question_id": "a", "question": "port",
    "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 85, "last_character_index": 300}]}]})");
  const auto expect_results_error = [&](const std::string& content, const std::string& expected) {
    dir_.write("results.json", content);
    expect_error("evaluate results.json answered.json", expected);
  };
  expect_results_error("[1, 2", "results.json: not valid JSON");
  expect_results_error(R"({"search_results": []})", "'k' is missing");
  expect_results_error(R"({"search_results": [], "k": "5"})", "'k' must be a non-negative integer");
  expect_results_error(R"({"search_results": [], "k": 5.5})", "'k' must be a non-negative integer");
  // A whole number written as 10.0 is one, as the grader reads it.
  dir_.write("results.json", R"({"search_results": [{"question_id": "a", "question_str": "port", "retrieved_sources": [
    {"file_path": "repo/pkg/server.py", "first_character_index": 85.0, "last_character_index": 300}]}], "k": 10.0})");
  EXPECT_THAT(expect_success("evaluate results.json answered.json").out, HasSubstr("recall@1   1.0000"));
  expect_results_error(R"({"search_results": [], "k": 11})", "k is 11, the grader accepts 1 to 10");
  expect_results_error(R"({"search_results": [{"question_id": "a", "retrieved_sources": []}], "k": 5})",
                       "search result 1: 'question_str' is missing");
  expect_results_error(R"({"search_results": [{"question_id": "a", "question_str": "q", "retrieved_sources": {}}], "k": 5})",
                       "'retrieved_sources' must be a list");
  expect_results_error(R"({"search_results": [{"question_id": "a", "question_str": "q", "retrieved_sources": []},
                          {"question_id": "a", "question_str": "q", "retrieved_sources": []}], "k": 5})",
                       "search result 2: duplicate question_id a");
  // An id the answered set does not have is the grader's crash: here a clear error.
  expect_results_error(R"({"search_results": [{"question_id": "zzz", "question_str": "q", "retrieved_sources": []}], "k": 5})",
                       "question_id zzz, which is not in the dataset");
  expect_results_error(R"({"search_results": [{"question_id": "a", "question_str": "q", "retrieved_sources": [
                          {"file_path": "f", "first_character_index": 0, "last_character_index": 2001}]}], "k": 5})",
                       "longer than 2000 characters");
  // An unanswered dataset cannot score anything.
  dir_.write("unanswered.json", R"({"rag_questions": [{"question_id": "a", "question": "port"}]})");
  dir_.write("results.json", R"({"search_results": [], "k": 5})");
  expect_error("evaluate results.json unanswered.json", "pass an answered dataset");
  // The two files given in each other's places: said so, not "'k' is missing".
  expect_error("evaluate answered.json results.json",
               "answered.json: a dataset of questions (rag_questions), not a results file (search_results, which "
               "search_dataset writes): is it given in the place of the results?");
  expect_error("answer_dataset --student_search_results_path answered.json --save_directory out --pipeline pipeline.yaml",
               "is it given in the place of the results?");
  expect_error("search_dataset --dataset_path results.json --save_directory out --pipeline pipeline.yaml",
               "results.json: expected a 'rag_questions' list (this is a results file, which search_dataset writes: "
               "is it given in the place of the dataset?)");
}

TEST_F(BadData, FiftyMegabyteFiles) {
  // An answered dataset of 50 MB (long reference answers): searched, then scored against itself.
  json questions = json::array();
  const std::string answer(50'000, 'a');
  for (int i = 0; i < 1000; ++i) {
    const std::string n = std::to_string(i);
    questions.push_back({{"question_id", "q" + n},
                         {"question", "How is the TCP port number parsed? " + n},
                         {"answer", answer},
                         {"sources", {{{"file_path", "repo/pkg/server.py"}, {"first_character_index", 85}, {"last_character_index", 300}}}}});
  }
  dir_.write("big.json", json{{"rag_questions", questions}}.dump());
  ASSERT_GT(fs::file_size(dir_ / "big.json"), 50'000'000u);
  expect_success("search_dataset --dataset_path big.json --save_directory out --k 3 --pipeline pipeline.yaml");
  const json saved = json::parse(testing::read_all(dir_ / "out/big.json"));
  ASSERT_EQ(saved["search_results"].size(), 1000u);
  EXPECT_EQ(saved["search_results"][999]["retrieved_sources"][0]["file_path"], "repo/pkg/server.py");
  const Outcome scored = expect_success("evaluate out/big.json big.json --json");
  EXPECT_EQ(json::parse(scored.out)["questions"], 1000);
  EXPECT_DOUBLE_EQ(json::parse(scored.out)["recall@5"].get<double>(), 1.0);
}

// --- search -----------------------------------------------------------------------------------

class BadSearch : public BadInput {
 protected:
  void SetUp() override {
    BadInput::SetUp();
    dir_.write("repo/docs/intl.md", "# Модели\n\nСервер загружает модель при запуске. Веса модели читаются с диска.\n\n# 模型\n\n推理服务器在启动时加载模型。模型的权重保存在磁盘上，服务器读取它们，把它们放进显存，然后开始接收请求。\n");
    index();
  }
};

TEST_F(BadSearch, EmptyAndWhitespaceQueries) {
  expect_error("search '' --pipeline pipeline.yaml", "the query is empty");
  expect_error("search ' \t  ' --pipeline pipeline.yaml", "the query is empty");
  expect_error("search --pipeline pipeline.yaml", "no query given");
  // Read from a folder, standard input would look empty: said instead of searching nothing.
  expect_error("search - --pipeline pipeline.yaml < repo", "standard input is a folder; give a file or a pipe");
  expect_error("answer - --pipeline pipeline.yaml < repo", "standard input is a folder");
  // An input that never ends a question (a device of zeros, a binary stream) is refused once it
  // passes 1 MiB, rather than read until memory runs out.
  expect_error("search - --pipeline pipeline.yaml < /dev/zero", "standard input holds a line of more than 1 MiB");
  expect_error("answer - --pipeline pipeline.yaml < /dev/zero", "standard input holds a question of more than 1 MiB");
  // A line or a question of exactly 1 MiB is still one, whatever line break ends it.
  dir_.write("long.txt", std::string(1 << 20, 'x') + "\r\n");
  expect_success("search - --pipeline pipeline.yaml --k 1 < long.txt");
  expect_success("answer - --pipeline pipeline.yaml --k 1 < long.txt");
  dir_.write("longer.txt", std::string(1 << 20, 'x') + "\r\ny");
  expect_error("answer - --pipeline pipeline.yaml < longer.txt", "standard input holds a question of more than 1 MiB");
}

TEST_F(BadSearch, GibberishFindsNothingWithANote) {
  const Outcome r = expect_success("search 'qzxv wplk ~~ %% )(' --pipeline pipeline.yaml",
                                   "note: no chunk of the index matches any word of the query");
  EXPECT_TRUE(json::parse(r.out)["retrieved_chunks"].empty());
}

TEST_F(BadSearch, InvalidUtf8Query) {
  expect_error("search \"$(printf 'caf\\351 port')\" --pipeline pipeline.yaml", "the query is not valid UTF-8");
}

TEST_F(BadSearch, NonLatinScripts) {
  const Outcome ru = expect_success("search 'Сервер загружает модель' --pipeline pipeline.yaml --k 1");
  EXPECT_EQ(json::parse(ru.out)["retrieved_chunks"][0]["section"], "Модели");
  const Outcome zh = expect_success("search '推理服务器在启动时加载模型' --pipeline pipeline.yaml --k 1");
  EXPECT_EQ(json::parse(zh.out)["retrieved_chunks"][0]["section"], "模型");
  expect_success("search '🙂 ∑ ⊕' --pipeline pipeline.yaml", "note: no chunk");
}

TEST_F(BadSearch, HugeQueries) {
  // The kernel caps one argument at 128 KiB: the largest query a command line can carry...
  std::string words;
  while (words.size() < 120'000) words += "port range ";
  const Outcome r = expect_success("search '" + words + "' --pipeline pipeline.yaml --k 2");
  EXPECT_EQ(json::parse(r.out)["retrieved_chunks"].size(), 2u);
  // ... and a 1 MB question goes through a dataset.
  while (words.size() < 1'000'000) words += "port range ";
  dir_.write("one.json", json{{"rag_questions", {{{"question_id", "big"}, {"question", words}}}}}.dump());
  expect_success("search_dataset --dataset_path one.json --save_directory out --pipeline pipeline.yaml");
  EXPECT_EQ(json::parse(testing::read_all(dir_ / "out/one.json"))["search_results"][0]["retrieved_sources"][0]["file_path"],
            "repo/pkg/server.py");
}

TEST_F(BadSearch, KOutOfRange) {
  expect_error("search port --k 0 --pipeline pipeline.yaml", "--k must be between 1 and 1000, got 0");
  expect_error("search port --k -1 --pipeline pipeline.yaml", "--k must be between 1 and 1000, got -1");
  // 10000 is refused rather than clamped: a typo'd k should not pass silently.
  expect_error("search port --k 10000 --pipeline pipeline.yaml", "--k must be between 1 and 1000, got 10000");
  expect_error("search port --k 99999999999999999999 --pipeline pipeline.yaml", "--k");
  dir_.write("one.json", R"({"rag_questions": [{"question_id": "a", "question": "port"}]})");
  expect_error("search_dataset --dataset_path one.json --save_directory out --k 10000 --pipeline pipeline.yaml",
               "--k must be between 1 and 10, got 10000");
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(BadSearch, KAboveTheNumberOfChunksIsAWarning) {
  const Outcome r = expect_success("search port --k 1000 --pipeline pipeline.yaml", "warning: --k 1000 is more than the ");
  const auto hits = json::parse(r.out)["retrieved_chunks"].size();
  EXPECT_GT(hits, 0u);
  EXPECT_LT(hits, 1000u);
  // Not for the default k, which nobody asked for: an index of one chunk is searched quietly.
  dir_.write("tiny/a.txt", "The port number.\n");
  dir_.write("tiny.yaml", "corpus:\n  root: tiny\nchunkers:\n  - {plugin: text, files: \"**\"}\nretriever:\n"
                          "  plugin: bm25\nindex: tiny-index\n");
  index("tiny.yaml");
  EXPECT_THAT(expect_success("search port --pipeline tiny.yaml").err, Not(HasSubstr("is more than the")));
}

TEST_F(BadSearch, TruthSpansAreChecked) {
  expect_error("search port --truth repo/pkg/server.py:50:20 --pipeline pipeline.yaml",
               "--truth repo/pkg/server.py:50:20: the first character must come before the last");
  expect_error("search port --truth repo/pkg/server.py:5:5 --pipeline pipeline.yaml", "must come before the last");
  for (const std::string span : {"-1:50", "0:+50", "0:", "a:5", "0:5x"})
    expect_error("search port --truth 'repo/pkg/server.py:" + span + "' --pipeline pipeline.yaml",
                 "--truth wants FILE:FIRST:LAST (code points, counted from 0), got 'repo/pkg/server.py:" + span + "'");
  // A path without the results' prefix matches nothing: said, with the file it may mean.
  const Outcome r = expect_success("search port --truth pkg/server.py:0:50 --pipeline pipeline.yaml",
                                   "warning: --truth names pkg/server.py, which matches no file of the index");
  EXPECT_THAT(r.err, HasSubstr("did you mean repo/pkg/server.py?"));
  EXPECT_EQ(json::parse(r.out)["metrics"]["recall@5"], 0.0);
  // So are a dataset's, where recall is measured over many questions: compare, tune, chunks --oracle.
  dir_.write("unprefixed.json", R"({"rag_questions": [{"question_id": "a", "question": "port",
      "sources": [{"file_path": "pkg/server.py", "first_character_index": 0, "last_character_index": 50}]},
      {"question_id": "b", "question": "notes", "sources": [{"file_path": "notes.txt", "first_character_index": 0,
      "last_character_index": 10}]}]})");
  for (const std::string command :
       {"compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset unprefixed.json",
        "tune pipeline.yaml --dataset unprefixed.json --folds 2 --grid retriever.options.k1=0.9",
        "chunks --pipeline pipeline.yaml --oracle unprefixed.json"}) {
    const Outcome run = rag(command);
    EXPECT_THAT(run.err, HasSubstr("warning: unprefixed.json names pkg/server.py, which matches no file of the index"))
        << command;
    EXPECT_THAT(run.err, HasSubstr("did you mean repo/pkg/server.py?")) << command;
  }
  // Against each corpus compared: B leaves the file out.
  dir_.write("prefixed.json", R"({"rag_questions": [{"question_id": "a", "question": "port",
      "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 0, "last_character_index": 50}]}]})");
  const Outcome two = rag("compare pipeline.yaml pipeline.yaml --set 'B:corpus.exclude=[\"**/server.py\"]' "
                          "--set B:index=index-b --dataset prefixed.json");
  EXPECT_THAT(two.err, HasSubstr("warning: prefixed.json (B) names repo/pkg/server.py, which matches no file of the index"));
  EXPECT_THAT(two.err, Not(HasSubstr("warning: prefixed.json names")));
  // A span past its file's end, or empty, cannot be found either.
  dir_.write("far.json", R"({"rag_questions": [{"question_id": "a", "question": "port",
      "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 90000, "last_character_index": 90050}]},
      {"question_id": "b", "question": "notes", "sources": [{"file_path": "repo/notes.txt", "first_character_index": 7,
      "last_character_index": 7}]}]})");
  const Outcome far = rag("chunks --pipeline pipeline.yaml --oracle far.json");
  EXPECT_THAT(far.err, HasSubstr("warning: far.json gives repo/pkg/server.py the span [90000, 90050), which ends past the "
                                 "file's end: recall cannot find it"));
  EXPECT_THAT(far.err, HasSubstr("warning: far.json gives repo/notes.txt the span [7, 7), which is empty"));
}

TEST_F(BadSearch, FewerSourcesThanAskedIsANote) {
  dir_.write("few.json", R"({"rag_questions": [{"question_id": "a", "question": "port"},
                                               {"question_id": "b", "question": "zzqx wvvk"}]})");
  expect_success("search_dataset --dataset_path few.json --save_directory out --k 10 --pipeline pipeline.yaml",
                 "note: 2 of the questions got fewer than 10 sources");
}

TEST_F(BadSearch, CommandsWithoutAPipelineSaySo) {
  dir_.write("answered.json", R"({"rag_questions": [{"question_id": "a", "question": "port",
      "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 0, "last_character_index": 50}]}]})");
  expect_error("evaluate answered.json answered.json --pipeline pipeline.yaml", "evaluate reads the files it is given and uses no pipeline");
  expect_error("evaluate_answers answered.json answered.json --pipeline pipeline.yaml", "uses no pipeline");
  expect_error("evaluate answered.json answered.json --k -5", "--k values must be between 1 and 10, got -5");
  expect_error("evaluate answered.json answered.json --k 1 11", "got 11");
}

// A search looks at the files of the results it shows (it costs the same at any corpus size);
// `rag check` compares the whole corpus.
TEST_F(BadSearch, CorpusChangedOrGoneIsAWarning) {
  // Touched, or the same bytes written back: not a change.
  const std::string guide = testing::read_all(dir_ / "repo/docs/guide.md");
  fs::last_write_time(dir_ / "repo/pkg/server.py", fs::last_write_time(dir_ / "repo/pkg/server.py") + std::chrono::hours(1));
  dir_.write("repo/docs/guide.md", guide);
  EXPECT_THAT(expect_success("search port quantization --pipeline pipeline.yaml").err, Not(HasSubstr("warning")));
  // Results from a changed or removed file say so, naming it.
  dir_.write("repo/docs/guide.md", guide + "\nOne more line.\n");
  dir_.write("repo/new.md", "# New\n");
  dir_.write("repo/newer.md", "# Newer\n");
  fs::remove(dir_ / "repo/notes.txt");
  EXPECT_THAT(expect_success("search awq flag --pipeline pipeline.yaml --k 1").err,
              HasSubstr("warning: 1 file of these results changed since indexing or is gone (repo/docs/guide.md); "
                        "results may point at old text (run `rag index --pipeline pipeline.yaml`)"));
  EXPECT_THAT(rag("check --pipeline pipeline.yaml --format text").out,
              HasSubstr(": stale: the corpus at repo changed since the index was built: 1 changed (docs/guide.md), "
                        "2 added (new.md, newer.md), 1 removed (notes.txt)"));
  fs::rename(dir_ / "repo", dir_ / "elsewhere");  // the index holds the text: search goes on
  const Outcome r = expect_success("search port --pipeline pipeline.yaml --k 1", "(repo/pkg/server.py); results may point");
  EXPECT_EQ(json::parse(r.out)["retrieved_chunks"][0]["file_path"], "repo/pkg/server.py");
}

TEST(BadSearchIndex, NoIndexYet) {
  testing::TempDir dir;
  fs::copy(std::string(RAG_TEST_FIXTURES) + "/repo", dir / "repo", fs::copy_options::recursive);
  dir.write("pipeline.yaml", testing::kFixturePipeline);
  const Outcome r = run_rag(dir.path(), "search port --pipeline pipeline.yaml");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: no index at index; run `rag index --pipeline pipeline.yaml` first\n");
  EXPECT_FALSE(fs::exists(dir / "index"));
}

TEST_F(BadSearch, IndexFromAnOlderFormat) {
  json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  manifest["format"] = 0;
  dir_.write("index/manifest.json", manifest.dump());
  expect_error("search port --pipeline pipeline.yaml", "has format 0, this rag reads format " + std::to_string(kIndexFormat) +
                                                         "; run `rag index --pipeline pipeline.yaml`");
  manifest["format"] = "one";
  dir_.write("index/manifest.json", manifest.dump());
  expect_error("search port --pipeline pipeline.yaml", "run `rag index --pipeline pipeline.yaml`");
  // A binary file from another format: its own header says so.
  index();
  const std::string chunks = segment_file("chunks.bin");
  std::string bytes = testing::read_all(dir_ / chunks);
  bytes[8 + 16] = 0;  // the version, after the magic and the kind
  dir_.write(chunks, bytes);
  expect_error("search port --pipeline pipeline.yaml", "written in format 0, this program reads format 3; run `rag index --full`");
}

TEST_F(BadSearch, TextThatADamagedIndexHoldsShowsAsReplacementCharacters) {
  // A byte of a chunk's text turned into one that is not UTF-8 (search reads the index in place,
  // without its checksums): the output stays JSON, the byte shown as U+FFFD.
  const std::string chunks = segment_file("chunks.bin");
  std::string bytes = testing::read_all(dir_ / chunks);
  const std::size_t at = bytes.find("AWQ keeps weights");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 1] = static_cast<char>(0xFF);
  dir_.write(chunks, bytes);
  const Outcome r = expect_success("search awq keeps weights --pipeline pipeline.yaml --k 3");
  const json out = json::parse(r.out);
  std::string texts;
  for (const auto& c : out["retrieved_chunks"]) texts += c["text"].get<std::string>();
  EXPECT_THAT(texts, HasSubstr("A\xEF\xBF\xBDQ keeps weights"));
}

TEST_F(BadSearch, DamagedManifest) {
  const std::string text = testing::read_all(dir_ / "index/manifest.json");
  // Cut short, emptied, or not an object: search refuses it, and check fails on it.
  for (const std::string& broken : {text.substr(0, text.size() / 2), std::string(), std::string("[1, 2]")}) {
    dir_.write("index/manifest.json", broken);
    expect_error("search port --pipeline pipeline.yaml", "manifest.json is damaged; run `rag index --pipeline pipeline.yaml`");
    const Outcome checked = rag("check --pipeline pipeline.yaml --format text");
    EXPECT_EQ(checked.status, 1) << broken;
    EXPECT_THAT(checked.out, HasSubstr("damaged")) << broken;
  }
  json manifest = json::parse(text);
  manifest["segments"] = 7;
  dir_.write("index/manifest.json", manifest.dump());
  expect_error("search port --pipeline pipeline.yaml", "is damaged; run `rag index --pipeline pipeline.yaml`");
  manifest = json::parse(text);
  manifest["segments"][0]["name"] = "../../repo";
  dir_.write("index/manifest.json", manifest.dump());
  expect_error("search port --pipeline pipeline.yaml", "is damaged; run `rag index --pipeline pipeline.yaml`");
  manifest = json::parse(text);
  manifest["files"] = "none";
  dir_.write("index/manifest.json", manifest.dump());
  expect_error("search port --pipeline pipeline.yaml", "is damaged; run `rag index --pipeline pipeline.yaml`");
  EXPECT_EQ(rag("check --pipeline pipeline.yaml").status, 1) << "a manifest of the wrong shape";
  manifest["files"] = json::parse(text)["files"];
  manifest["segments"] = 7;
  dir_.write("index/manifest.json", manifest.dump());
  EXPECT_EQ(rag("check --pipeline pipeline.yaml").status, 1);
  // A segment list emptied, or a segment named twice: the chunks no longer add up.
  manifest = json::parse(text);
  manifest["segments"] = json::array();
  dir_.write("index/manifest.json", manifest.dump());
  expect_error("search port --pipeline pipeline.yaml", "is damaged; run `rag index --pipeline pipeline.yaml`");
  EXPECT_THAT(rag("check --pipeline pipeline.yaml --format text").out, Not(HasSubstr(": current")));
  manifest = json::parse(text);
  manifest["segments"].push_back(manifest["segments"][0]);
  dir_.write("index/manifest.json", manifest.dump());
  expect_error("search port --pipeline pipeline.yaml", "is damaged; run `rag index --pipeline pipeline.yaml`");
  expect_success("index --pipeline pipeline.yaml");  // mends it
  expect_success("search port --pipeline pipeline.yaml");
}

// An update meets a damaged index as a search does, and builds it again from scratch.
TEST_F(BadSearch, AnUpdateRebuildsAnIndexWithAFileMissingOrOutside) {
  update();
  json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  const std::string path = manifest["files"][0]["path"].get<std::string>();
  std::filesystem::remove(dir_ / "index" / path);
  Outcome r = rag("index --pipeline pipeline.yaml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("note: building from scratch: the index is damaged (" + path + " is missing)"));
  manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  manifest["files"][0]["path"] = "../outside.bin";
  dir_.write("outside.bin", "");
  manifest["files"][0]["size"] = 0;
  dir_.write("index/manifest.json", manifest.dump());
  r = rag("index --pipeline pipeline.yaml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("(../outside.bin is outside the index folder)"));
  expect_success("search port --pipeline pipeline.yaml");
}

// New segments are named from the manifest's next_segment: one a run cannot have written (edited
// by hand) could name a kept segment's files, so the update builds from scratch instead.
TEST_F(BadSearch, AnUpdateRebuildsAnIndexWhoseNextSegmentIsWrong) {
  update();  // two segments, seg-000001 and seg-000002
  const std::string text = testing::read_all(dir_ / "index/manifest.json");
  ASSERT_EQ(json::parse(text)["segments"].size(), 2u);
  // Without the key (a manifest of an earlier version), numbers go on above the segments named.
  json keyless = json::parse(text);
  keyless.erase("next_segment");
  dir_.write("index/manifest.json", keyless.dump());
  dir_.write("repo/more.txt", "Another note on the port.\n");
  Outcome r = rag("index --pipeline pipeline.yaml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("building from scratch")));
  expect_success("search port --pipeline pipeline.yaml");
  // At or below a segment it names (1, 2), or no number a run writes: built from scratch.
  for (const json& wrong : {json(1), json(2), json(-1), json(0), json("7"), json(std::uint64_t{1} << 62)}) {
    json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
    manifest["next_segment"] = wrong;
    dir_.write("index/manifest.json", manifest.dump());
    r = rag("index --pipeline pipeline.yaml");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("note: building from scratch: the index is damaged (next_segment is " + wrong.dump() + ")"));
    const json rebuilt = json::parse(testing::read_all(dir_ / "index/manifest.json"));
    EXPECT_TRUE(rebuilt["next_segment"].is_number_unsigned()) << wrong;
    EXPECT_LT(rebuilt["next_segment"].get<std::uint64_t>(), 100u) << wrong;
    expect_success("search port --pipeline pipeline.yaml");
  }
}

TEST_F(BadSearch, TruncatedIndexFiles) {
  update();
  const json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  ASSERT_GE(manifest["files"].size(), 5u);  // two segments, their retriever files, a file of removals
  for (const auto& f : manifest["files"]) {
    const std::string path = "index/" + f["path"].get<std::string>();
    const std::string bytes = testing::read_all(dir_ / path);
    dir_.write(path, bytes.substr(0, bytes.size() / 2));
    expect_error("search port --pipeline pipeline.yaml",
                 "is not the size it was written with); run `rag index --pipeline pipeline.yaml` to rebuild it");
    // Truncated and the manifest's size made to agree: the file's own footer catches it.
    json lying = manifest;
    for (auto& g : lying["files"])
      if (g["path"] == f["path"]) g["size"] = bytes.size() / 2;
    dir_.write("index/manifest.json", lying.dump());
    expect_error("search port --pipeline pipeline.yaml", ": the index is damaged; run `rag index --full`");
    dir_.write(path, bytes);
    dir_.write("index/manifest.json", manifest.dump());
  }
  expect_success("search port --pipeline pipeline.yaml");
}

// A kept file's header overwritten with its time put back, then an update: the manifest goes on
// saying the file is rag's own (not read again from the damaged file), so check still finds it.
TEST_F(BadSearch, AnUpdateKeepsAKeptFileMarkedAsRags) {
  const std::string path = segment_file("retriever/bm25.bin");
  const auto written = fs::last_write_time(dir_ / path);
  std::string bytes = testing::read_all(dir_ / path);
  bytes[0] = static_cast<char>(bytes[0] ^ 0x10);
  dir_.write(path, bytes);
  fs::last_write_time(dir_ / path, written);
  dir_.write("repo/more.txt", "more words about the port\n");
  expect_success("index --pipeline pipeline.yaml");
  const json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
  for (const auto& f : manifest["files"]) {
    if ("index/" + f["path"].get<std::string>() == path) {
      EXPECT_TRUE(f["binary"].get<bool>()) << path;
    }
  }
  const Outcome checked = rag("check --pipeline pipeline.yaml --format text");
  EXPECT_EQ(checked.status, 1);
  EXPECT_THAT(checked.out, HasSubstr("is not an index file of this program"));
}

// Search reads only what it needs, so a flipped byte may go unseen by it (never a crash);
// `rag check` reads every file whole and finds it, and `rag index --full` mends it.
TEST_F(BadSearch, FlippedByteInEveryIndexFile) {
  update();
  const std::size_t files = json::parse(testing::read_all(dir_ / "index/manifest.json"))["files"].size();
  for (std::size_t i = 0; i < files; ++i) {
    const json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
    const std::string path = "index/" + manifest["files"][i]["path"].get<std::string>();
    const std::string bytes = testing::read_all(dir_ / path);
    // At 0: the header, without which a file of ours looked like a retriever's own (Xapian's).
    for (const std::size_t at : {std::size_t{0}, std::size_t{40}, bytes.size() / 2, bytes.size() - 40}) {
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
      dir_.write(path, flipped);
      const Outcome searched = rag("search port --pipeline pipeline.yaml");
      EXPECT_TRUE(searched.status == 0 || (searched.status == 1 && searched.err.rfind("error: ", 0) == 0))
          << path << " at " << at << ": " << searched.status << " " << searched.err;
      const Outcome checked = rag("check --pipeline pipeline.yaml --format text");
      EXPECT_EQ(checked.status, 1) << path << " at " << at;
      EXPECT_THAT(checked.out, HasSubstr("the index is damaged")) << path << " at " << at;
      EXPECT_THAT(checked.out, HasSubstr("--full` rebuilds it")) << path << " at " << at;
    }
    expect_success("index --full --pipeline pipeline.yaml");
    EXPECT_THAT(rag("check --pipeline pipeline.yaml --format text").out, HasSubstr(": current"));
    update();  // the same files again, for the next round
  }
}

// --- output -----------------------------------------------------------------------------------

class BadOutput : public BadInput {
 protected:
  void SetUp() override {
    BadInput::SetUp();
    index();
    dir_.write("one.json", R"({"rag_questions": [{"question_id": "a", "question": "port"}]})");
  }
};

TEST_F(BadOutput, SaveDirectoryCannotBeCreated) {
  dir_.write("a-file", "x");
  expect_error("search_dataset --dataset_path one.json --save_directory a-file/out --pipeline pipeline.yaml",
               "a-file/out: cannot create folder (Not a directory); choose a folder you can write to");
  expect_error("chunks --export a-file/chunks.jsonl --pipeline pipeline.yaml", "a-file: not a folder");
}

// An empty name ('' from an unset shell variable) is said to be empty, not looked for as a file.
TEST_F(BadOutput, EmptyNamesAreSaidToBeEmpty) {
  expect_error("search_dataset --dataset_path one.json --save_directory '' --pipeline pipeline.yaml",
               "rag search_dataset: --save_directory is empty; give a value");
  expect_error("chunks --export '' --pipeline pipeline.yaml", "--export is empty");
  expect_error("evaluate '' one.json", "is empty; give a value");
  expect_error("search port --pipeline ''", "--pipeline is empty");
  expect_error("search port --set '' --pipeline pipeline.yaml", "--set is empty");
}

TEST_F(BadOutput, FilesGoOnlyIntoFoldersThatExist) {
  // A mistyped folder is an error, not a folder made where nobody looks.
  expect_error("chunks --export nowhere/deep/x.jsonl --pipeline pipeline.yaml", "nowhere/deep: no such folder");
  EXPECT_FALSE(fs::exists(dir_ / "nowhere"));
  dir_.write("answered.json", R"({"rag_questions": [{"question_id": "a", "question": "port",
      "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 0, "last_character_index": 50}]}]})");
  ASSERT_EQ(rag("search_dataset --dataset_path one.json --save_directory made/here --pipeline pipeline.yaml").status, 0)
      << "a --save_directory is made when missing";
  dir_.write("made/here/answered.json", testing::read_all(dir_ / "made/here/one.json"));
  expect_error("evaluate made/here/answered.json answered.json --per_question nowhere/q.json", "nowhere: no such folder");
  // Said before the work, not after it: nothing is searched or indexed for a file that cannot be written.
  expect_error("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset answered.json "
               "--json nowhere/c.json", "nowhere: no such folder");
  expect_error("tune pipeline.yaml --dataset answered.json --grid retriever.options.k1=0.9 --json nowhere/t.json",
               "nowhere: no such folder");
  for (const auto& entry : fs::directory_iterator(dir_.path()))  // k1=0.9 would have had an index of its own
    EXPECT_NE(entry.path().filename().string().rfind("index@", 0), 0u) << entry.path();
}

// An output is never a file the command reads, nor a folder, nor another output's file; all
// said before any work, and the inputs are left as they were.
TEST_F(BadOutput, OutputsAreNeverTheInputsNorEachOther) {
  dir_.write("answered.json", R"({"rag_questions": [{"question_id": "a", "question": "port",
      "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 0, "last_character_index": 50}]}]})");
  ASSERT_EQ(rag("search_dataset --dataset_path answered.json --save_directory results --pipeline pipeline.yaml").status, 0);
  const std::string dataset = testing::read_all(dir_ / "answered.json");
  const std::string pipeline = testing::read_all(dir_ / "pipeline.yaml");
  expect_error("evaluate results/answered.json answered.json --per_question answered.json",
               "--per_question answered.json is a file this command reads");
  expect_error("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset answered.json --json answered.json",
               "--json answered.json is a file this command reads");
  expect_error("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset answered.json --json pipeline.yaml",
               "--json pipeline.yaml is a file this command reads");
  expect_error("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset answered.json --json c.out "
               "--markdown c.out", "--json and --markdown name the same file");
  expect_error("tune pipeline.yaml --dataset answered.json --grid retriever.options.k1=0.9 --output pipeline.yaml",
               "--output pipeline.yaml is a file this command reads");
  expect_error("tune pipeline.yaml --dataset answered.json --grid retriever.options.k1=0.9 --json answered.json",
               "--json answered.json is a file this command reads");
  fs::create_directories(dir_ / "adir");
  expect_error("tune pipeline.yaml --dataset answered.json --grid retriever.options.k1=0.9 --json adir", "--json adir: a folder");
  // Nor the index or the corpus a pipeline of the command reads (a helper's probe wrote chunks
  // over a dataset, a pipeline, an index's manifest and a corpus file).
  const std::string manifest = testing::read_all(dir_ / "index/manifest.json");
  const std::string source = testing::read_all(dir_ / "repo/pkg/server.py");
  expect_error("chunks --pipeline pipeline.yaml --oracle answered.json --export answered.json",
               "--export answered.json is a file this command reads");
  expect_error("chunks --pipeline pipeline.yaml --export pipeline.yaml", "--export pipeline.yaml is a file this command reads");
  expect_error("chunks --pipeline pipeline.yaml --export repo/pkg/server.py", "is inside the corpus of");
  expect_error("chunks --pipeline pipeline.yaml --export index/manifest.json", "is inside the index folder of");
  expect_error("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset answered.json "
               "--json index/manifest.json", "is inside the index folder of");
  fs::create_directories(dir_ / "index@tuned");  // where a tuned variant's index would be
  expect_error("tune pipeline.yaml --dataset answered.json --grid retriever.options.k1=0.9 --json index@tuned/t.json",
               "is inside the index folder of");
  fs::remove(dir_ / "index@tuned");
  expect_error("search_dataset --dataset_path answered.json --save_directory repo/pkg --pipeline pipeline.yaml",
               "is inside the corpus of");
  expect_error("serve --pipeline pipeline.yaml --log pipeline.yaml", "is the pipeline file");
  EXPECT_EQ(testing::read_all(dir_ / "index/manifest.json"), manifest);
  EXPECT_EQ(testing::read_all(dir_ / "repo/pkg/server.py"), source);
  EXPECT_EQ(testing::read_all(dir_ / "answered.json"), dataset);
  EXPECT_EQ(testing::read_all(dir_ / "pipeline.yaml"), pipeline);
  EXPECT_FALSE(fs::exists(dir_ / "c.out"));
  for (const auto& entry : fs::directory_iterator(dir_.path()))  // said before any index of k1=0.9 was made
    EXPECT_NE(entry.path().filename().string().rfind("index@", 0), 0u) << entry.path();
  // A dataset with no questions is said so, not met halfway through the table.
  dir_.write("empty.json", R"({"rag_questions": []})");
  expect_error("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset empty.json",
               "empty.json: the dataset has no questions");
  // A dataset given twice would count its questions twice (in tune, its vote too).
  expect_error("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset answered.json --dataset ./answered.json",
               "--dataset ./answered.json is given twice (as answered.json): its questions would count twice; give each file once");
  expect_error("tune pipeline.yaml --dataset answered.json answered.json --grid retriever.options.k1=0.9",
               "--dataset answered.json is given twice: its questions would count twice");
}

TEST_F(BadOutput, SaveDirectoryCannotBeWritten) {
  fs::create_directories(dir_ / "locked");
  fs::permissions(dir_ / "locked", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                      fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  expect_error("search_dataset --dataset_path one.json --save_directory locked --pipeline pipeline.yaml",
               "locked/one.json: cannot write (Permission denied); choose a folder you can write to", unprivileged());
  // Said before the work, for the outputs a command writes at its end.
  dir_.write("answered.json", R"({"rag_questions": [{"question_id": "a", "question": "port",
      "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 0, "last_character_index": 50}]}]})");
  expect_error("compare pipeline.yaml pipeline.yaml --set B:retriever.options.k1=0.9 --dataset answered.json "
               "--json locked/c.json", "--json locked/c.json: the folder locked cannot be written (Permission denied)",
               unprivileged());
  EXPECT_TRUE(fs::is_empty(dir_ / "locked"));
}

// Indexes that are current are read, not written: a project the user cannot write can be tuned on
// them (as compare does).
TEST_F(BadOutput, TuneReadsCurrentIndexesWithoutWritingThem) {
  dir_.write("answered.json", R"({"rag_questions": [
      {"question_id": "a", "question": "port", "sources": [{"file_path": "repo/pkg/server.py", "first_character_index": 0, "last_character_index": 50}]},
      {"question_id": "b", "question": "notes", "sources": [{"file_path": "repo/notes.txt", "first_character_index": 0, "last_character_index": 10}]}]})");
  const std::string tune = "tune pipeline.yaml --dataset answered.json --folds 2 --grid retriever.options.k1=0.9";
  ASSERT_EQ(rag(tune).status, 0);  // builds the k1=0.9 index
  const Outcome again = rag(tune, unprivileged());
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("k1"));
}

TEST_F(BadOutput, DiskFullWhileSavingResults) {
  // `ulimit -f 1`: no file may grow past 1 KiB, as when the disk fills up.
  dir_.write("many.json", [] {
    json q = json::array();
    for (int i = 0; i < 50; ++i) q.push_back({{"question_id", std::to_string(i)}, {"question", "port server"}});
    return json{{"rag_questions", q}}.dump();
  }());
  expect_error("search_dataset --dataset_path many.json --save_directory out --pipeline pipeline.yaml",
               "out/many.json: cannot write (File too large); the disk is full or a file-size limit was reached", "ulimit -f 1 &&");
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_error("chunks --export chunks.jsonl --pipeline pipeline.yaml", "chunks.jsonl: cannot write (File too large)",
               "ulimit -f 1 &&");
  EXPECT_FALSE(fs::exists(dir_ / "chunks.jsonl"));
  // What a command prints cut short is an error too, not exit 0 with half a JSON document.
  for (const std::string command : {"search port --json --pipeline pipeline.yaml", "check --pipeline pipeline.yaml",
                                    "answer port --json --pipeline pipeline.yaml"})
    expect_error(command + " >/dev/full", "the output could not be written whole (No space left on device)");
  expect_error("search port --json -k 10 --pipeline pipeline.yaml >out/search.json",
               "the output could not be written whole (File too large)", "ulimit -f 1 &&");
}

TEST_F(BadOutput, DiskFullWhileIndexingKeepsTheOldIndex) {
  const std::string before = testing::read_all(dir_ / "index/manifest.json");
  dir_.write("repo/more.md", "# More\n\n" + std::string(5000, 'm') + "\n");
  expect_error("index --pipeline pipeline.yaml", "cannot write (File too large)", "ulimit -f 2 &&");
  EXPECT_EQ(testing::read_all(dir_ / "index/manifest.json"), before);
  std::size_t segments = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "index")) segments += entry.path().filename().string().rfind("seg-", 0) == 0;
  EXPECT_EQ(segments, 1u) << "the failed segment was left behind";
  const Outcome r = rag("search port --pipeline pipeline.yaml");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(rag("check --pipeline pipeline.yaml --format text").out,
              HasSubstr("the corpus at repo changed since the index was built: 1 added (more.md)"));
}

}  // namespace
}  // namespace rag
