// Incremental indexing through the real binary: random sequences of edits, additions, removals
// and renames, after each of which the updated index must hold the same chunks and rank every
// query exactly as an index built from scratch (scores to the last bit); enough steps that
// segments merge. And `rag index --watch` following a corpus as it is edited.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <chrono>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/rag_process.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
namespace fs = std::filesystem;
using testing::Outcome;
using testing::run_rag;

// One corpus, two indexes: `updated` is brought up to date after each step, `rebuilt` is built
// from scratch each time. BM25F with page titles: per-field statistics too must be those of what
// remains.
constexpr const char* kPipeline = R"(
name: %s
corpus: {root: corpus}
chunkers:
  - {plugin: python, files: "**/*.py", options: {max_chunk_size: 300}}
  - {plugin: markdown, files: "**/*.md", options: {max_chunk_size: 300, pack_sections: true}, continue: true}
  - {plugin: text, files: "**/*.md", options: {max_chunk_size: 200, overlap: 40}}
  - {plugin: text, files: "**", options: {max_chunk_size: 300}}
retriever:
  plugin: bm25
  options: {file_weight: 0.15, feedback: {documents: 2, terms: 4}, index_title: true, path_weight: 0.2,
            fields: {path: {weight: 2, b: 0.3}, section: {weight: 1.5}}}
index: %s
)";

const std::vector<std::string> kWords = {"paged", "attention", "kernel", "cache", "block", "server", "token", "model",
                                         "quantized", "weights", "scheduler", "batch", "prefix", "sampler", "lora",
                                         "adapter", "tensor", "parallel", "pipeline", "stage", "engine", "request"};
const std::vector<std::string> kQueries = {"paged attention kernel", "how does the scheduler batch requests",
                                           "lora adapter tensor parallel", "engine", "def f3"};

class Incremental : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, index] : {std::pair{"updated", "index-updated"}, std::pair{"rebuilt", "index-rebuilt"}}) {
      char text[1024];
      std::snprintf(text, sizeof text, kPipeline, name, index);
      dir_.write(std::string(name) + ".yaml", text);
    }
  }

  std::string words(std::mt19937& random, std::size_t n) const {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += kWords[random() % kWords.size()] + (i % 12 == 11 ? ".\n" : " ");
    return out;
  }
  // A file of one of three kinds, of a random size.
  std::string content(const std::string& path, std::mt19937& random) const {
    if (path.ends_with(".py")) {
      std::string py = "\"\"\"" + words(random, 8) + "\"\"\"\n\n";
      for (std::size_t f = 0, n = 1 + random() % 5; f < n; ++f)
        py += "def f" + std::to_string(f) + "(x):\n    \"\"\"" + words(random, 5 + random() % 30) + "\"\"\"\n    return x\n\n\n";
      return py;
    }
    if (path.ends_with(".md")) {
      std::string md = "# " + words(random, 3) + "\n\n";
      for (std::size_t s = 0, n = 1 + random() % 4; s < n; ++s) md += "## " + words(random, 2) + "\n\n" + words(random, 10 + random() % 60) + "\n\n";
      return md;
    }
    return words(random, 5 + random() % 80) + "\n";
  }

  Outcome rag(const std::string& args) const { return run_rag(dir_.path(), args); }

  // The index's chunks as sorted lines without their ids: what it holds, whatever its order.
  std::vector<std::string> chunks(const std::string& pipeline) const {
    const Outcome r = rag("chunks --export " + pipeline + ".jsonl --pipeline " + pipeline + ".yaml");
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<std::string> lines;
    std::istringstream in(testing::read_all(dir_ / (pipeline + ".jsonl")));
    for (std::string line; std::getline(in, line);) {
      json chunk = json::parse(line);
      chunk.erase("id");
      lines.push_back(chunk.dump());
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  // Ranked results: file, span and score (its bits) of each.
  std::string ranking(const std::string& pipeline, const std::string& query) const {
    const Outcome r = rag("search '" + query + "' -k 12 --format json --pipeline " + pipeline + ".yaml");
    EXPECT_EQ(r.status, 0) << r.err;
    const json result = json::parse(r.out);  // kept: a range-for over a part of a temporary would dangle
    std::string out;
    for (const auto& hit : result.at("retrieved_chunks"))
      out += hit["file_path"].get<std::string>() + ":" + std::to_string(hit["first_character_index"].get<long>()) + "-" +
             std::to_string(hit["last_character_index"].get<long>()) + " " + hit["score"].dump() + "\n";
    return out;
  }

  testing::TempDir dir_;
};

TEST_F(Incremental, RandomEditsRankAsAFullRebuild) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  std::set<std::string> files;
  const auto new_path = [&] {
    static const char* const kinds[] = {".py", ".md", ".txt"};
    return "corpus/" + std::string(random() % 2 ? "docs/" : "pkg/sub/") + "f" + std::to_string(random() % 1000) +
           kinds[random() % 3];
  };
  for (int i = 0; i < 12; ++i) {
    const std::string path = new_path();
    dir_.write(path, content(path, random));
    files.insert(path);
  }
  int merges = 0;
  for (int step = 0; step < 24; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    // One to three changes: edit, add, remove, rename, or touch (no change at all).
    for (std::size_t change = 0, n = 1 + random() % 3; change < n; ++change) {
      const std::vector<std::string> list(files.begin(), files.end());
      const std::string some = list[random() % list.size()];
      switch (random() % 5) {
        case 0:
          dir_.write(some, content(some, random));
          break;
        case 1: {
          const std::string path = new_path();
          dir_.write(path, content(path, random));
          files.insert(path);
          break;
        }
        case 2:
          if (files.size() > 3) {
            fs::remove(dir_ / some);
            files.erase(some);
          }
          break;
        case 3: {
          const std::string path = new_path();
          if (files.count(path)) break;
          fs::create_directories((dir_ / path).parent_path());
          fs::rename(dir_ / some, dir_ / path);
          files.erase(some);
          files.insert(path);
          break;
        }
        default:
          fs::last_write_time(dir_ / some, fs::last_write_time(dir_ / some) + std::chrono::seconds(1 + step));
      }
    }
    const Outcome updated = rag("index --pipeline updated.yaml");
    ASSERT_EQ(updated.status, 0) << updated.err;
    if (step > 0) {
      EXPECT_THAT(updated.err, ::testing::AnyOf(HasSubstr("updated index-updated"), HasSubstr("is up to date")));
    }
    merges += updated.err.find("merged") != std::string::npos;
    ASSERT_EQ(rag("index --full --pipeline rebuilt.yaml").status, 0);
    ASSERT_EQ(chunks("updated"), chunks("rebuilt"));
    for (const std::string& query : kQueries) EXPECT_EQ(ranking("updated", query), ranking("rebuilt", query)) << query;
  }
  const json manifest = json::parse(testing::read_all(dir_ / "index-updated/manifest.json"));
  std::printf("[ incremental ] 24 steps, %d with merges, %zu segments at the end\n", merges, manifest["segments"].size());
  EXPECT_GT(merges, 0) << "no step merged segments: the test did not reach merging";
}

// `rag index` killed while it updates an index leaves the previous generation or the new one,
// and the next run finishes the job.
TEST_F(Incremental, AKilledUpdateLeavesAWholeGeneration) {
  std::mt19937 random(7);
  for (int i = 0; i < 60; ++i) {
    const std::string path = "corpus/docs/f" + std::to_string(i) + ".md";
    dir_.write(path, content(path, random));
  }
  ASSERT_EQ(rag("index --pipeline updated.yaml").status, 0);
  const std::vector<std::string> before = chunks("updated");
  for (int round = 0; round < 8; ++round) {
    for (int i = 0; i < 60; i += 3) {
      const std::string path = "corpus/docs/f" + std::to_string(i) + ".md";
      dir_.write(path, content(path, random));
    }
    {
      testing::BackgroundRag indexing(dir_.path(), "index --pipeline updated.yaml");
      std::this_thread::sleep_for(std::chrono::milliseconds(random() % 60));
      indexing.kill_now();
      indexing.wait();
    }
    const Outcome searched = rag("search paged attention --pipeline updated.yaml");
    EXPECT_EQ(searched.status, 0) << "round " << round << ": " << searched.err;
  }
  ASSERT_EQ(rag("index --pipeline updated.yaml").status, 0);
  ASSERT_EQ(rag("index --full --pipeline rebuilt.yaml").status, 0);
  EXPECT_EQ(chunks("updated"), chunks("rebuilt"));
  EXPECT_NE(chunks("updated"), before);
}

// `rag index` deletes in its folder only what it wrote there: a folder that is not an index is
// refused before anything is written, and others' files beside an index are left alone.
TEST_F(Incremental, AnIndexFolderKeepsFilesThatAreNotTheIndexs) {
  dir_.write("corpus/a.md", "# paged attention\n\nkernel cache\n");
  dir_.write("photos/seg-holiday/beach.jpg", "jpeg");
  dir_.write("photos/seg-000001-notes.txt", "notes");
  const Outcome refused = rag("index --pipeline updated.yaml --set index=photos");
  EXPECT_NE(refused.status, 0);
  EXPECT_THAT(refused.err, HasSubstr("holds files that are not a rag index's"));
  EXPECT_EQ(testing::read_all(dir_ / "photos/seg-holiday/beach.jpg"), "jpeg");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "photos/manifest.json"));
  EXPECT_THAT(rag("index --pipeline updated.yaml --set index=.").err, HasSubstr("not the project"));
  EXPECT_THAT(rag("index --pipeline updated.yaml --set index=/").err, HasSubstr("a folder that holds the corpus"));

  ASSERT_EQ(rag("index --pipeline updated.yaml").status, 0);
  dir_.write("index-updated/seg-holiday/beach.jpg", "jpeg");
  dir_.write("index-updated/gen-notes.txt", "notes");
  dir_.write("corpus/b.md", "# scheduler\n\nbatch requests\n");
  ASSERT_EQ(rag("index --pipeline updated.yaml").status, 0);
  ASSERT_EQ(rag("index --full --pipeline updated.yaml").status, 0);
  EXPECT_EQ(testing::read_all(dir_ / "index-updated/seg-holiday/beach.jpg"), "jpeg");
  EXPECT_EQ(testing::read_all(dir_ / "index-updated/gen-notes.txt"), "notes");
}

// A file touched (its time moved, its bytes did not) is read once and keeps its chunks: no new
// segment and the same generation (chunk ids a server handed out still hold), and the next update
// is a no-op; an edit after that is seen, in a new generation.
TEST_F(Incremental, ATouchedFileKeepsItsChunks) {
  dir_.write("corpus/docs/a.md", "# Paged attention\n\nThe kernel reads the cache.\n");
  dir_.write("corpus/pkg/b.py", "def f(x):\n    \"\"\"The scheduler batches requests.\"\"\"\n    return x\n");
  ASSERT_EQ(rag("index --pipeline updated.yaml").status, 0);
  const auto manifest = [&] { return json::parse(testing::read_all(dir_ / "index-updated/manifest.json")); };
  const json before = manifest();
  fs::last_write_time(dir_ / "corpus/pkg/b.py", fs::last_write_time(dir_ / "corpus/pkg/b.py") + std::chrono::hours(1));
  const Outcome touched = rag("index --pipeline updated.yaml");
  ASSERT_EQ(touched.status, 0) << touched.err;
  EXPECT_THAT(touched.err, HasSubstr("0 changed, 0 added, 0 removed"));
  const json after = manifest();
  EXPECT_EQ(after["segments"], before["segments"]);  // nothing chunked again
  EXPECT_EQ(after["generation"], before["generation"]);
  EXPECT_TRUE(after["retimed"].contains("pkg/b.py"));
  EXPECT_THAT(rag("index --pipeline updated.yaml").err, HasSubstr("is up to date"));
  EXPECT_THAT(rag("check --pipeline updated.yaml --format text").out, HasSubstr(": current"));
  const Outcome search = rag("search scheduler batches --pipeline updated.yaml");
  EXPECT_EQ(search.status, 0);
  EXPECT_THAT(search.err, Not(HasSubstr("changed since")));
  // Edited now, to the same size: seen, and no longer retimed.
  dir_.write("corpus/pkg/b.py", "def g(y):\n    \"\"\"The scheduler batches requests.\"\"\"\n    return y\n");
  EXPECT_THAT(rag("index --pipeline updated.yaml").err, HasSubstr("1 changed"));
  EXPECT_FALSE(manifest()["retimed"].contains("pkg/b.py"));
  EXPECT_NE(manifest()["generation"], before["generation"]);
  // The index's build time (compare's "index time" of a reused index) is the full build's; an
  // update records its own apart.
  EXPECT_EQ(manifest()["build_seconds"], before["build_seconds"]);
  EXPECT_TRUE(manifest()["update_seconds"].is_number());
  ASSERT_EQ(rag("index --full --pipeline rebuilt.yaml").status, 0);
  EXPECT_EQ(chunks("updated"), chunks("rebuilt"));
  // Edited to the same size with its modification time set back (cp -p, rsync -t, tar x do so):
  // its status change time still moves, and the edit is seen by check, search and index.
  const auto time = fs::last_write_time(dir_ / "corpus/pkg/b.py");
  dir_.write("corpus/pkg/b.py", "def h(z):\n    \"\"\"The scheduler batches requests.\"\"\"\n    return z\n");
  fs::last_write_time(dir_ / "corpus/pkg/b.py", time);
  EXPECT_THAT(rag("check --pipeline updated.yaml --format text").out, HasSubstr("stale"));
  EXPECT_THAT(rag("search scheduler batches --pipeline updated.yaml").err, HasSubstr("changed since"));
  EXPECT_THAT(rag("index --pipeline updated.yaml").err, HasSubstr("1 changed"));
  ASSERT_EQ(rag("index --full --pipeline rebuilt.yaml").status, 0);
  EXPECT_EQ(chunks("updated"), chunks("rebuilt"));
}

// A file name that is not UTF-8 (Latin-1 "café.txt") can be touched, edited and reported: the
// manifest's JSON cannot hold it as a retimed key, nor `rag check --format json` fail on it.
TEST_F(Incremental, AFileNameThatIsNotUtf8CanBeTouchedAndReported) {
  const std::string latin1 = "corpus/caf\xe9.txt";
  dir_.write("corpus/a.txt", "alpha beta gamma\n");
  dir_.write(latin1, "latin name file words\n");
  ASSERT_EQ(rag("index --pipeline updated.yaml").status, 0);
  for (const std::string& f : {std::string("corpus/a.txt"), latin1})
    fs::last_write_time(dir_ / f, fs::last_write_time(dir_ / f) + std::chrono::hours(1));
  Outcome r = rag("index --pipeline updated.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("0 changed"));
  dir_.write("corpus/a.txt", "alpha omega\n");
  r = rag("index --pipeline updated.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("1 changed"));
  dir_.write(latin1, "latin name file words, more of them\n");
  r = rag("check --pipeline updated.yaml --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(json::parse(r.out)["index"]["why"].get<std::string>(), HasSubstr("1 changed (caf\xef\xbf\xbd.txt)"));
  // A results file names it as every output does, rather than failing on it after the search.
  ASSERT_EQ(rag("index --pipeline updated.yaml").status, 0);
  dir_.write("q.json", R"({"rag_questions": [{"question_id": "a", "question": "latin name file words"}]})");
  r = rag("search_dataset --dataset_path q.json --save_directory out --pipeline updated.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(testing::read_all(dir_ / "out/q.json"))["search_results"][0]["retrieved_sources"][0]["file_path"],
            "corpus/caf\xef\xbf\xbd.txt");
}

TEST_F(Incremental, AFilePassedOverStaysCountedWhenItChanges) {
  // A binary file edited and still binary: an update records it again, as a full build does.
  dir_.write("corpus/docs/a.md", "# Paged attention\n\nThe kernel reads the cache.\n");
  dir_.write("corpus/data.bin", std::string("bin\0ary", 7));
  ASSERT_EQ(rag("index --pipeline updated.yaml").status, 0);
  dir_.write("corpus/data.bin", std::string("bin\0ary, longer", 15));
  const Outcome updated = rag("index --pipeline updated.yaml");
  ASSERT_EQ(updated.status, 0) << updated.err;
  EXPECT_THAT(updated.err, HasSubstr("(1 file passed over"));
  const Outcome again = rag("index --pipeline updated.yaml -v");
  EXPECT_THAT(again.err, HasSubstr("is up to date"));
  EXPECT_THAT(again.out + again.err, HasSubstr("data.bin"));  // -v lists it
  ASSERT_EQ(rag("index --full --pipeline rebuilt.yaml").status, 0);
  const auto skipped = [&](const char* index) {
    return json::parse(testing::read_all(dir_ / index / "manifest.json"))["corpus"]["skipped"].get<int>();
  };
  EXPECT_EQ(skipped("index-updated"), skipped("index-rebuilt"));
  EXPECT_EQ(chunks("updated"), chunks("rebuilt"));
}

// `rag index --watch` follows edits, new files in new folders and removals, each searchable
// within moments, and stops cleanly on SIGINT.
TEST_F(Incremental, WatchFollowsTheCorpus) {
  std::mt19937 random(11);
  for (int i = 0; i < 20; ++i) {
    const std::string path = "corpus/docs/f" + std::to_string(i) + ".md";
    dir_.write(path, content(path, random));
  }
  testing::BackgroundRag watching(dir_.path(), "index --watch --pipeline updated.yaml", (dir_ / "watch.err").string());
  // The watch is in place before the first build: once there is an index, changes are seen.
  const auto until = [&](const std::function<bool()>& done) {
    const auto start = std::chrono::steady_clock::now();
    while (!done()) {
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) return -1.0;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  ASSERT_GE(until([&] { return fs::exists(dir_ / "index-updated/manifest.json"); }), 0) << "no index after 10 s";
  const auto finds = [&](const std::string& word, const std::string& file) {
    return ranking("updated", word).find(file) != std::string::npos;
  };
  dir_.write("corpus/docs/f3.md", testing::read_all(dir_ / "corpus/docs/f3.md") + "\nZanzibar quokka.\n");
  const double edit = until([&] { return finds("zanzibar quokka", "corpus/docs/f3.md"); });
  EXPECT_GE(edit, 0) << "an edit was not indexed within 10 s";
  dir_.write("corpus/new/deeper/g.txt", "xylophone marimba\n");
  const double added = until([&] { return finds("xylophone", "corpus/new/deeper/g.txt"); });
  EXPECT_GE(added, 0) << "a file in a new folder was not indexed within 10 s";
  fs::remove(dir_ / "corpus/docs/f3.md");
  const double removed = until([&] { return !finds("zanzibar quokka", "corpus/docs/f3.md"); });
  EXPECT_GE(removed, 0) << "a removal was not indexed within 10 s";
  // A file cut short by its path (truncate(2): no open, no close, only a modification).
  dir_.write("corpus/docs/cut.txt", "kestrel heron\nwombat dingo\n");
  ASSERT_GE(until([&] { return finds("wombat dingo", "corpus/docs/cut.txt"); }), 0);
  fs::resize_file(dir_ / "corpus/docs/cut.txt", 14);
  EXPECT_GE(until([&] { return !finds("wombat dingo", "corpus/docs/cut.txt"); }), 0) << "a truncation was not indexed within 10 s";
  // An update that finds another writer at work runs once that one is done.
  const int lock = ::open((dir_ / "index-updated/.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);
  dir_.write("corpus/docs/f4.md", testing::read_all(dir_ / "corpus/docs/f4.md") + "\nOkapi pangolin.\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_FALSE(finds("okapi pangolin", "corpus/docs/f4.md"));
  ::close(lock);
  EXPECT_GE(until([&] { return finds("okapi pangolin", "corpus/docs/f4.md"); }), 0) << "an update that met a lock was dropped";
  // An edit of the pipeline's file is said once: the watch follows the pipeline it started with.
  fs::last_write_time(dir_ / "updated.yaml", fs::last_write_time(dir_ / "updated.yaml") + std::chrono::seconds(5));
  dir_.write("corpus/docs/f5.md", testing::read_all(dir_ / "corpus/docs/f5.md") + "\nNarwhal tapir.\n");
  EXPECT_GE(until([&] { return finds("narwhal tapir", "corpus/docs/f5.md"); }), 0);
  EXPECT_THAT(testing::read_all(dir_ / "watch.err"), HasSubstr("warning: updated.yaml changed since the watch began"));
  std::printf("[ watch ] searchable after %.2f s (edit), %.2f s (new folder), %.2f s (removal)\n", edit, added, removed);
  watching.signal(SIGINT);
  EXPECT_EQ(watching.wait(), 0);
  ASSERT_EQ(rag("index --full --pipeline rebuilt.yaml").status, 0);
  EXPECT_EQ(chunks("updated"), chunks("rebuilt"));
}

// A link in the corpus to a file outside it: the listing reads the file, so the watch follows
// its edits, an editor's save (a new file renamed over it) included.
TEST_F(Incremental, WatchFollowsFilesLinkedFromOutsideTheCorpus) {
  dir_.write("corpus/a.md", "# alpha\n\nlocal notes\n");
  dir_.write("elsewhere/shared.md", "# shared\n\ncapybara\n");
  fs::create_symlink("../elsewhere/shared.md", dir_ / "corpus/shared.md");
  testing::BackgroundRag watching(dir_.path(), "index --watch --pipeline updated.yaml", (dir_ / "watch.err").string());
  const auto until = [&](const std::function<bool()>& done) {
    for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return done();
  };
  ASSERT_TRUE(until([&] { return testing::read_all(dir_ / "watch.err").find("Ctrl-C stops") != std::string::npos; }));
  EXPECT_THAT(testing::read_all(dir_ / "watch.err"), HasSubstr("and a file outside it that a link points to"));
  const auto finds = [&](const std::string& word) { return ranking("updated", word).find("corpus/shared.md") != std::string::npos; };
  dir_.write("elsewhere/shared.md", "# shared\n\nwombat\n");
  EXPECT_TRUE(until([&] { return finds("wombat"); })) << "an edit of the linked file was not followed";
  dir_.write("elsewhere/shared.md.tmp", "# shared\n\nnarwhal\n");
  fs::rename(dir_ / "elsewhere/shared.md.tmp", dir_ / "elsewhere/shared.md");
  EXPECT_TRUE(until([&] { return finds("narwhal"); })) << "a save by rename was not followed";
  dir_.write("elsewhere/shared.md", "# shared\n\npangolin\n");
  EXPECT_TRUE(until([&] { return finds("pangolin"); })) << "the link's new target was not watched";
  // Pointed elsewhere (ln -sfn: a new link renamed over it), the link's new file is followed.
  dir_.write("elsewhere/other.md", "# other\n\nokapi\n");
  fs::create_symlink("../elsewhere/other.md", dir_ / "corpus/shared.md.new");
  fs::rename(dir_ / "corpus/shared.md.new", dir_ / "corpus/shared.md");
  EXPECT_TRUE(until([&] { return finds("okapi"); })) << "the retargeted link was not read";
  dir_.write("elsewhere/other.md", "# other\n\nquokka\n");
  EXPECT_TRUE(until([&] { return finds("quokka"); })) << "the retargeted link's file was not watched";
  watching.signal(SIGINT);
  EXPECT_EQ(watching.wait(), 0);
}

// A folder the corpus excludes whole (.git) is neither read nor watched: what git writes there
// starts no update.
TEST_F(Incremental, WatchLeavesExcludedFoldersAlone) {
  std::string text = testing::read_all(dir_ / "updated.yaml");
  text.replace(text.find("corpus: {root: corpus}"), 22, "corpus: {root: corpus, exclude: [\"**/.git/**\"]}");
  dir_.write("updated.yaml", text);
  dir_.write("corpus/a.md", "# alpha\n\nlocal notes\n");
  dir_.write("corpus/.git/objects/ab/cdef", "blob");
  dir_.write("corpus/.git/refs/heads/main", "0123");
  dir_.write("corpus/sub/.git/HEAD", "ref");
  testing::BackgroundRag watching(dir_.path(), "index --watch --pipeline updated.yaml", (dir_ / "watch.err").string());
  const auto until = [&](const std::function<bool()>& done) {
    for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return done();
  };
  const auto log = [&] { return testing::read_all(dir_ / "watch.err"); };
  ASSERT_TRUE(until([&] { return log().find("Ctrl-C stops") != std::string::npos; }));
  EXPECT_THAT(log(), HasSubstr("(2 folders)"));  // corpus/ and corpus/sub/
  const std::size_t updates = log().size();
  dir_.write("corpus/.git/objects/12/3456", "another blob");
  dir_.write("corpus/sub/.git/HEAD", "ref: main");
  fs::create_directories(dir_ / "corpus/.git/new/deeper");
  std::this_thread::sleep_for(std::chrono::milliseconds(900));  // past the watch's settling time
  EXPECT_EQ(log().size(), updates) << log();
  dir_.write("corpus/sub/b.md", "# beta\n\nwombat\n");
  EXPECT_TRUE(until([&] { return ranking("updated", "wombat").find("corpus/sub/b.md") != std::string::npos; }));
  watching.signal(SIGINT);
  EXPECT_EQ(watching.wait(), 0);
}

// Ctrl-C during a watch's update says it stops once the update is done, and does; a second
// Ctrl-C stops at once, leaving an index the next run brings up to date.
TEST_F(Incremental, CtrlCDuringAWatchUpdateIsHeard) {
  std::mt19937 random(5);
  for (int i = 0; i < 3000; ++i) {
    const std::string path = "corpus/many/f" + std::to_string(i) + ".md";
    dir_.write(path, content(path, random));
  }
  // The update is under way while its lock is held: /proc/locks lists it, by the lock file's
  // inode (taking the lock to find out would make the watch's own update find it busy).
  const auto updating = [&](const std::string& index) {
    struct stat file {};
    if (::stat((dir_ / index / ".lock").c_str(), &file) != 0) return false;
    std::istringstream locks(testing::read_all("/proc/locks"));
    const std::string inode = ":" + std::to_string(file.st_ino) + " ";
    for (std::string line; std::getline(locks, line);)
      if (line.find("FLOCK") != std::string::npos && line.find(inode) != std::string::npos) return true;
    return false;
  };
  const auto when_updating = [&](testing::BackgroundRag& watch, const std::string& index) {
    for (int i = 0; i < 2000 && !updating(index) && !watch.finished(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  {
    testing::BackgroundRag watching(dir_.path(), "index --watch --pipeline updated.yaml", (dir_ / "watch.err").string());
    when_updating(watching, "index-updated");
    watching.signal(SIGINT);
    EXPECT_EQ(watching.wait(), 0);
    const std::string said = testing::read_all(dir_ / "watch.err");
    EXPECT_THAT(said, HasSubstr("stopping once this update is done (Ctrl-C again stops now)"));
    EXPECT_THAT(said, HasSubstr("stopped watching"));
    EXPECT_TRUE(fs::exists(dir_ / "index-updated/manifest.json")) << "the update was not finished";
  }
  {
    testing::BackgroundRag watching(dir_.path(), "index --watch --pipeline rebuilt.yaml", (dir_ / "watch2.err").string());
    when_updating(watching, "index-rebuilt");
    watching.signal(SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    watching.signal(SIGINT);
    EXPECT_EQ(watching.wait(), 130);
    EXPECT_THAT(testing::read_all(dir_ / "watch2.err"), HasSubstr("stopped during an update"));
  }
  ASSERT_EQ(rag("index --pipeline rebuilt.yaml").status, 0);
  EXPECT_EQ(chunks("updated"), chunks("rebuilt"));
}

}  // namespace
}  // namespace rag
