// Crash safety of the index folder, with the real `rag` binary: `rag index` killed with SIGKILL
// at random moments while it rebuilds an index leaves the old index or the new one, never a mix;
// searches running during a rebuild always open a whole index; two rebuilds of one folder do not
// destroy each other's work.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <sys/file.h>


#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "e2e/rag_process.hpp"
#include "rag/file_io.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
namespace fs = std::filesystem;
using testing::BackgroundRag;
using testing::Outcome;
using testing::run_rag;

constexpr const char* kPipeline = R"(
corpus: {root: corpus}
chunkers:
  - {plugin: python, files: "**/*.py", options: {max_chunk_size: 600}}
  - {plugin: markdown, files: "**/*.md", options: {max_chunk_size: 600}}
retriever: {plugin: bm25}
index: %s
)";

class CrashSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    write_pipeline("pipeline.yaml", "index");
    write_pipeline("reference.yaml", "reference-index");
    // The two versions of the corpus the index is rebuilt between, and what each index holds.
    for (const char version : {'A', 'B'}) {
      write_corpus(version);
      const Outcome r = rag("index --pipeline reference.yaml");
      ASSERT_EQ(r.status, 0) << r.err;
      expected_[version] = export_chunks("reference.yaml");
      ASSERT_FALSE(expected_[version].empty());
    }
    ASSERT_NE(expected_['A'], expected_['B']);
    write_corpus('A');
    const auto start = std::chrono::steady_clock::now();
    const Outcome r = rag("index --pipeline pipeline.yaml");
    // How long a rebuild takes here: kills are spread over that (and a little past it).
    build_time_ = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(r.status, 0) << r.err;
  }

  void write_pipeline(const std::string& name, const std::string& index) const {
    char text[512];
    std::snprintf(text, sizeof text, kPipeline, index.c_str());
    dir_.write(name, text);
  }

  // About 1.5 MB of Python and Markdown. The versions differ in every file's words and in B's extra
  // files, so that any mix of the two indexes would show in the exported chunks.
  void write_corpus(char version) const {
    std::error_code ec;
    fs::remove_all(dir_ / "corpus", ec);
    std::mt19937 random(version == 'A' ? 1 : 2);
    const std::string suffix = version == 'A' ? "alpha" : "bravo";
    const auto word = [&] {
      const std::string number = std::to_string(random() % 3000);
      return "w" + number + suffix;
    };
    const int files = version == 'A' ? 60 : 66;
    for (int f = 0; f < files; ++f) {
      const std::string file = std::to_string(f);
      std::string md = "# Topic " + file + "\n\n";
      std::string py = "\"\"\"Module " + file + ".\"\"\"\n\n";
      for (int s = 0; s < 12; ++s) {
        const std::string section = std::to_string(s);
        md += "## Section " + section + "\n\n";
        for (int w = 0; w < 90; ++w) md += word() + (w % 15 == 14 ? ".\n" : " ");
        md += "\n\n";
        py += "def f" + section + "(x):\n    \"\"\"";
        for (int w = 0; w < 40; ++w) py += word() + " ";
        py += "\"\"\"\n    return x + " + section + "\n\n\n";
      }
      dir_.write("corpus/docs/page" + file + ".md", md);
      dir_.write("corpus/pkg/mod" + file + ".py", py);
    }
  }

  Outcome rag(const std::string& args) const { return run_rag(dir_.path(), args); }

  // Every chunk of the pipeline's index as JSON Lines; "" (and a failure) when it does not load.
  std::string export_chunks(const std::string& pipeline) const {
    const Outcome r = rag("chunks --export exported.jsonl --pipeline " + pipeline);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? testing::read_all(dir_ / "exported.jsonl") : "";
  }

  // Which version the index holds, checking that it is wholly one of them and answers a query
  // about it; 0 after a failure.
  char loaded_version() const {
    const std::string chunks = export_chunks("pipeline.yaml");
    const char version = chunks == expected_.at('A') ? 'A' : chunks == expected_.at('B') ? 'B' : 0;
    EXPECT_NE(version, 0) << "the index is neither the old one nor the new one";
    if (version == 0) return 0;
    const std::string marker = version == 'A' ? "w17alpha" : "w17bravo";
    const Outcome r = rag("search " + marker + " --k 1 --pipeline pipeline.yaml");
    EXPECT_EQ(r.status, 0) << r.err;
    if (r.status == 0) {
      EXPECT_THAT(json::parse(r.out)["retrieved_chunks"][0]["text"].get<std::string>(), HasSubstr(marker));
    }
    return version;
  }

  // Manifests being written (or left by killed runs), hidden or of an older rag.
  std::size_t manifests_being_written() const {
    std::size_t n = 0;
    for (const auto& entry : fs::directory_iterator(dir_ / "index")) n += is_temporary_of(entry.path().filename().string(), "manifest.json");
    return n;
  }

  // What the index folder holds that its manifest does not name: segments and removals of
  // generations gone, files of runs that were killed.
  std::vector<std::string> leftovers() const {
    const json manifest = json::parse(testing::read_all(dir_ / "index/manifest.json"));
    std::set<std::string> named;
    for (const auto& f : manifest["files"]) named.insert(f["path"].get<std::string>());
    std::vector<std::string> extra;
    for (const auto& entry : fs::recursive_directory_iterator(dir_ / "index")) {
      const std::string path = entry.path().lexically_relative(dir_ / "index").generic_string();
      if (entry.is_regular_file() && path != "manifest.json" && path != ".lock" && !named.count(path)) extra.push_back(path);
    }
    return extra;
  }

  testing::TempDir dir_;
  std::map<char, std::string> expected_;
  std::chrono::steady_clock::duration build_time_{};
};

TEST_F(CrashSafety, KilledRebuildLeavesTheOldOrTheNewIndex) {
  constexpr int kRounds = 10;
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 random(seed);
  std::uniform_int_distribution<long long> moment(0, std::chrono::duration_cast<std::chrono::microseconds>(build_time_).count() * 3 / 2);
  char version = 'A';
  int committed = 0;
  for (int round = 0; round < kRounds; ++round) {
    const char next = version == 'A' ? 'B' : 'A';
    write_corpus(next);
    {
      BackgroundRag indexing(dir_.path(), "index --pipeline pipeline.yaml");
      ASSERT_TRUE(indexing.started());
      std::this_thread::sleep_for(std::chrono::microseconds(moment(random)));
      indexing.kill_now();
      indexing.wait();
    }
    const char now = loaded_version();
    ASSERT_NE(now, 0) << "round " << round;
    committed += now == next;
    version = now;
  }
  std::printf("[ crash    ] %d kills, %d after the commit, %d before\n", kRounds, committed, kRounds - committed);
  // A run that completes cleans up whatever the killed ones left.
  write_corpus(version == 'A' ? 'B' : 'A');
  ASSERT_EQ(rag("index --pipeline pipeline.yaml").status, 0);
  EXPECT_EQ(leftovers(), std::vector<std::string>{});
  EXPECT_EQ(manifests_being_written(), 0u);
  EXPECT_NE(loaded_version(), version);
}

TEST_F(CrashSafety, AnUpdateWithNothingToDoAlsoRemovesWhatAKilledRunLeft) {
  // What a killed run leaves (a segment no manifest names, a manifest being written): gone after
  // the next `rag index`, even one that finds nothing changed.
  ASSERT_EQ(rag("index --pipeline pipeline.yaml").status, 0);
  dir_.write("index/seg-999999/chunks.bin", "left by a killed run");
  dir_.write("index/manifest.json.tmp-1-2", "{");   // an older rag's
  dir_.write("index/.manifest.json.tmp-1-3", "{");
  const Outcome r = rag("index --pipeline pipeline.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("is up to date"));
  EXPECT_EQ(leftovers(), std::vector<std::string>{});
  EXPECT_EQ(manifests_being_written(), 0u);
}

TEST_F(CrashSafety, SearchesDuringARebuildSeeAWholeIndex) {
  char version = 'A';
  int searches = 0;
  for (int rebuild = 0; rebuild < 3; ++rebuild) {
    version = version == 'A' ? 'B' : 'A';
    write_corpus(version);
    BackgroundRag indexing(dir_.path(), "index --pipeline pipeline.yaml");
    ASSERT_TRUE(indexing.started());
    do {
      // Either version may answer, but always from one whole index.
      const Outcome r = rag("search 'w42alpha w42bravo' --k 5 --pipeline pipeline.yaml");
      ASSERT_EQ(r.status, 0) << r.err;
      const json hits = json::parse(r.out)["retrieved_chunks"];
      ASSERT_FALSE(hits.empty());
      std::set<char> versions;  // of the hits that name one (a docstring like "Module 42." names none)
      for (const auto& hit : hits) {
        const std::string text = hit["text"];
        if (text.find("alpha") != std::string::npos) versions.insert('A');
        if (text.find("bravo") != std::string::npos) versions.insert('B');
      }
      EXPECT_EQ(versions.size(), 1u) << "a mix of two indexes: " << hits.dump();
      ++searches;
    } while (!indexing.finished());
    ASSERT_EQ(indexing.wait(), 0);
    EXPECT_EQ(loaded_version(), version);
  }
  std::printf("[ crash    ] %d searches during 3 rebuilds\n", searches);
}

TEST_F(CrashSafety, OneRebuildOfAFolderAtATime) {
  // While one `rag index` holds the folder's lock, another is refused at once...
  const int fd = ::open((dir_ / "index/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const Outcome refused = rag("index --pipeline pipeline.yaml");
  EXPECT_EQ(refused.status, 1);
  EXPECT_EQ(refused.err, "error: another `rag index` is writing index right now; wait for it to finish and run again\n");
  ::close(fd);
  EXPECT_EQ(loaded_version(), 'A');
  // ... and two started together leave one whole index, whichever wins.
  write_corpus('B');
  for (int round = 0; round < 3; ++round) {
    BackgroundRag first(dir_.path(), "index --pipeline pipeline.yaml");
    BackgroundRag second(dir_.path(), "index --pipeline pipeline.yaml");
    const int a = first.wait();
    const int b = second.wait();
    EXPECT_TRUE(a == 0 || b == 0) << a << " " << b;
    EXPECT_EQ(loaded_version(), 'B');
    EXPECT_EQ(leftovers(), std::vector<std::string>{});
  }
}

}  // namespace
}  // namespace rag
