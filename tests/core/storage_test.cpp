#include <gmock/gmock.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <thread>

#include "rag/binary_file.hpp"
#include "rag/corpus.hpp"
#include "rag/dataset.hpp"
#include "rag/file_io.hpp"
#include "rag/index.hpp"
#include "rag/score_accumulator.hpp"
#include "rag/segment_store.hpp"
#include "rag/source_file.hpp"
#include "rag/utf8.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;

TEST(BinaryFile, SectionsAreReadInPlace) {
  testing::TempDir dir;
  BinaryWriter out(dir / "f.bin", "demo", 3);
  const std::vector<std::uint32_t> values = {1, 2, 3};
  out.section<std::uint32_t>(values);
  out.section("héllo");  // 6 bytes: the next section starts at a multiple of 8 all the same
  out.begin_section();
  const std::vector<double> first = {2.5}, second = {-1.0, 4.0};
  out.append<double>(first);
  out.append<double>(second);
  out.end_section();
  EXPECT_FALSE(std::filesystem::exists(dir / "f.bin"));  // appears whole, at commit
  out.commit();
  const BinaryReader in(dir / "f.bin", "demo", 3);
  ASSERT_EQ(in.section_count(), 3u);
  const auto u = in.array<std::uint32_t>(0);
  EXPECT_EQ(std::vector<std::uint32_t>(u.begin(), u.end()), values);
  EXPECT_EQ(in.bytes(1), "héllo");
  const auto d = in.array<double>(2);
  EXPECT_EQ(std::vector<double>(d.begin(), d.end()), (std::vector<double>{2.5, -1.0, 4.0}));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(d.data()) % 8, 0u);
  in.verify();
  EXPECT_THROW(in.array<std::uint64_t>(1), Error);  // 6 bytes are no whole number of them
  EXPECT_THROW(in.bytes(3), Error);
}

std::string open_error(const std::filesystem::path& file, std::string_view kind = "demo", std::uint32_t version = 1,
                       bool verify = false) {
  try {
    const BinaryReader in(file, kind, version);
    if (verify) in.verify();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(BinaryFile, DetectsDamageAndOtherVersions) {
  testing::TempDir dir;
  BinaryWriter out(dir / "f.bin", "demo", 1);
  out.section(std::string(1000, 'x'));
  out.commit();
  const std::string good = testing::read_all(dir / "f.bin");

  // A flipped byte is found by its checksum, which opening does not read.
  std::string flipped = good;
  flipped[500] ^= 0x10;
  dir.write("flipped.bin", flipped);
  EXPECT_EQ(open_error(dir / "flipped.bin"), "");
  EXPECT_THAT(open_error(dir / "flipped.bin", "demo", 1, true), HasSubstr("fails its checksum"));
  EXPECT_THAT(open_error(dir / "flipped.bin", "demo", 1, true), HasSubstr("rag index"));
  EXPECT_THROW(verify_binary_file(dir / "flipped.bin"), Error);
  verify_binary_file(dir / "f.bin");

  dir.write("short.bin", good.substr(0, good.size() / 2));
  EXPECT_THAT(open_error(dir / "short.bin"), HasSubstr("truncated"));
  std::string lying = good;  // the footer's table points past the end
  lying[lying.size() - 32] = 0x7f;
  dir.write("lying.bin", lying);
  EXPECT_THAT(open_error(dir / "lying.bin"), HasSubstr("inconsistent"));
  EXPECT_THAT(open_error(dir / "f.bin", "demo", 2), HasSubstr("format 1"));
  EXPECT_THAT(open_error(dir / "f.bin", "other"), HasSubstr("'demo'"));
  EXPECT_THAT(open_error(dir / "missing.bin"), HasSubstr("missing"));
  dir.write("text.bin", "hello world, not ours, and long enough to hold a header and a footer");
  EXPECT_THAT(open_error(dir / "text.bin"), HasSubstr("not an index file"));
}

TEST(SegmentStore, FilesAndChunksReadInPlace) {
  testing::TempDir dir;
  const std::string a = "def f(): 1\n\nx = 'é é'\n";
  StoredFile python{"data/a.py", 5, a.size(), 17, 99, "", a, {}};
  python.chunks = {{"", "python", "a.f", 0, 10, 0, 10, "", 1, 1}, {"", "python", "a", 12, 21, 12, 23, "", 3, 3}};
  StoredFile binary{"data/z.bin", 5, 8, 18, 7, "skipped, binary (NUL bytes)", "", {}};
  const std::string b = "# T\n\n## S\n\nte\nxt\n";
  StoredFile markdown{"data/b.md", 5, b.size(), 19, 42, "", b, {{"", "markdown", "T > S", 11, 16, 11, 16, "", 5, 6}}};
  write_segment_store(dir / "chunks.bin", std::vector<StoredFile>{python, binary, markdown});
  const SegmentStore store(dir / "chunks.bin");
  store.verify();
  ASSERT_EQ(store.size(), 3u);
  ASSERT_EQ(store.file_count(), 3u);
  const ChunkView c = store.chunk(1);
  EXPECT_EQ(c.file_path, "data/a.py");
  EXPECT_EQ(c.relative_path, "a.py");
  EXPECT_EQ(c.kind, "python");
  EXPECT_EQ(c.section, "a");
  EXPECT_EQ(c.text, "x = 'é é'");
  EXPECT_EQ(c.first_char, 12u);
  EXPECT_EQ(c.last_byte, 23u);
  EXPECT_EQ(c.first_line, 3u);
  EXPECT_EQ(store.chunk(2).text, "te\nxt");
  EXPECT_EQ(store.chunk(2).section, "T > S");
  EXPECT_EQ(store.file_of(2), 2u);
  const SegmentStore::File f = store.file(1);
  EXPECT_EQ(f.name, "data/z.bin");
  EXPECT_EQ(f.note, "skipped, binary (NUL bytes)");
  EXPECT_EQ(f.chunk_count, 0u);
  EXPECT_EQ(f.digest, 7u);
  EXPECT_EQ(store.file_text(2), b);
  EXPECT_EQ(store.find_file("data/b.md"), std::optional<std::uint32_t>(2));
  EXPECT_EQ(store.find_file("data/c.md"), std::nullopt);
  // A chunk outside its file's text is refused when written.
  StoredFile bad = python;
  bad.chunks[0].last_byte = 1000;
  EXPECT_THROW(write_segment_store(dir / "bad.bin", std::vector<StoredFile>{bad}), Error);
}

TEST(CorpusSnapshot, ChangesAreDecidedByContent) {
  testing::TempDir dir;
  dir.write("repo/same.md", "same");
  dir.write("repo/touched.md", "touched");
  dir.write("repo/edited.md", "before");
  dir.write("repo/gone.md", "gone");
  Pipeline pipeline;
  pipeline.corpus_root = "repo";
  pipeline.corpus_dir = dir / "repo";
  const CorpusListing then = list_corpus(pipeline);
  CorpusSnapshot loaded;
  for (const auto& entry : then.files) loaded.files.push_back({entry.relative_path, entry.size, entry.changed, read_source(entry).digest});
  ASSERT_EQ(loaded.files.size(), 4u);
  EXPECT_TRUE(compare_corpus(loaded, list_corpus(pipeline)).empty());
  // Sizes as std::filesystem gives them, times as stat's status change time.
  for (const auto& entry : then.files) {
    EXPECT_EQ(entry.size, std::filesystem::file_size(entry.path));
    struct stat status {};
    ASSERT_EQ(::stat(entry.path.c_str(), &status), 0);
    EXPECT_EQ(entry.changed, file_time(status.st_ctim.tv_sec, status.st_ctim.tv_nsec));
  }

  const auto later = std::filesystem::last_write_time(dir / "repo/touched.md") + std::chrono::hours(1);
  std::filesystem::last_write_time(dir / "repo/touched.md", later);
  dir.write("repo/edited.md", "after!");  // the same size, other bytes
  std::filesystem::last_write_time(dir / "repo/edited.md", later);
  std::filesystem::remove(dir / "repo/gone.md");
  dir.write("repo/new.md", "new");
  const CorpusChanges changes = compare_corpus(loaded, list_corpus(pipeline));
  EXPECT_EQ(changes.changed, std::vector<std::string>{"edited.md"});
  EXPECT_EQ(changes.added, std::vector<std::string>{"new.md"});
  EXPECT_EQ(changes.removed, std::vector<std::string>{"gone.md"});
  EXPECT_EQ(changes.describe(), "1 changed (edited.md), 1 added (new.md), 1 removed (gone.md)");
  EXPECT_EQ((CorpusChanges{{"a", "b", "c", "d"}, {}, {}}).describe(2), "4 changed (a, b, ...)");
}

TEST(FileIo, AtomicWriteReplacesWholeAndLeavesNoTemporaries) {
  testing::TempDir dir;
  EXPECT_THROW(write_file_atomically(dir / "sub/out.json", "first"), Error);  // no such folder: not made silently
  create_folder(dir / "sub");
  write_file_atomically(dir / "sub/out.json", "first");
  write_file_atomically(dir / "sub/out.json", "second");
  EXPECT_EQ(read_file(dir / "sub/out.json"), "second");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir / "sub")) ++files;
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(write_file_atomically("/proc/no/such/place/out.json", "x"), Error);
  EXPECT_THROW(read_file(dir / "absent"), Error);
}

TEST(FileIo, ALinkIsFollowedAndAPipeWrittenIntoNeverReplaced) {
  testing::TempDir dir;
  write_file_atomically(dir / "real.json", "old");
  std::filesystem::create_symlink(dir / "real.json", dir / "link.json");
  write_file_atomically(dir / "link.json", "new");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  EXPECT_EQ(read_file(dir / "real.json"), "new");
  // A pipe (as /dev/stdout may be): its reader gets the bytes, and it stays a pipe.
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(dir / "pipe", std::ios::binary);
    got.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  write_file_atomically(dir / "pipe", "through the pipe");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(std::filesystem::is_fifo(dir / "pipe"));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 3u);  // no temporary file left beside them
  EXPECT_THROW(write_file_atomically(dir.path(), "x"), Error);  // a folder is not a file to write
}

TEST(FileIo, TemporariesAreHiddenAndAKilledWritersAreRemovedByTheNext) {
  testing::TempDir dir;
  const pid_t child = ::fork();  // a process that is gone: what a killed writer was
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);
  const std::string pid = std::to_string(child);
  const std::string dead = ".out.json.tmp-" + pid + "-7", older_rags = "out.json.tmp-" + pid + "-9";
  const std::string recent = ".out.json.tmp-" + pid + "-10";             // written a moment ago
  const std::string alive = ".out.json.tmp-" + std::to_string(::getpid()) + "-8";  // a writer at work
  const std::string other = ".out.json.tmp-" + pid + "-7.json";          // not a temporary of out.json
  const auto long_ago = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  for (const std::string& name : {dead, older_rags, recent, alive, other}) {
    dir.write(name, "half");
    if (name != recent) std::filesystem::last_write_time(dir / name, long_ago);
  }
  EXPECT_TRUE(is_temporary_of(dead, "out.json"));
  EXPECT_TRUE(is_temporary_of(older_rags, "out.json"));
  EXPECT_FALSE(is_temporary_of(other, "out.json"));
  EXPECT_FALSE(is_temporary_of(".a.json.tmp-5-1", "out.json"));
  {
    AtomicFile file(dir / "out.json");
    file.write("whole");
    // Its own temporary is hidden: a glob of *.json or *out* (a grader's) never takes it.
    std::size_t hidden = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      const std::string name = entry.path().filename().string();
      EXPECT_FALSE(name.starts_with("out.json.tmp-") && name != older_rags) << name;
      hidden += name.starts_with(".out.json.tmp-" + std::to_string(::getpid()) + "-") && name != alive;
    }
    EXPECT_EQ(hidden, 1u);
    file.commit();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / dead));
  EXPECT_FALSE(std::filesystem::exists(dir / older_rags));
  EXPECT_TRUE(std::filesystem::exists(dir / recent));  // its writer may live where its PID means another
  EXPECT_TRUE(std::filesystem::exists(dir / alive));
  EXPECT_TRUE(std::filesystem::exists(dir / other));
  EXPECT_EQ(read_file(dir / "out.json"), "whole");
}

TEST(FileIo, APipeIsReadToItsEnd) {
  // `rag evaluate <(cat results.json) answered.json`: a pipe has no size to seek to.
  testing::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
  const std::string text(100000, 'x');
  // A read that fails leaves the writer without a reader: it must end, not kill the tests.
  const auto previous = std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] {
    std::ofstream out(dir / "pipe", std::ios::binary);
    out << text;
  });
  std::string read;
  try {
    read = read_file(dir / "pipe");
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
  }
  writer.join();
  std::signal(SIGPIPE, previous);
  EXPECT_EQ(read, text);
}

TEST(ResultsFile, SaveWritesTheJsonOfResultsToJsonALineAQuestion) {
  testing::TempDir dir;
  ResultsFile results;
  results.k = 3;
  SearchResult first;
  first.question_id = "q1";
  first.question = "Où est \"le\" port?";
  auto source = [](std::string file, std::size_t begin, std::size_t end, double score, std::string type,
                   std::string section) {
    RetrievedSource r;
    r.span = {std::move(file), begin, end};
    r.score = score;
    r.file_type = std::move(type);
    r.section = std::move(section);
    return r;
  };
  first.sources.push_back(source("repo/a.md", 0, 120, 1.5, "markdown", "Guide > Port"));
  first.sources.push_back(source("repo/b.py", 7, 9, 0.5, "python", ""));
  first.search_time_ms = 0.25;
  SearchResult second;
  second.question_id = "q2";
  second.question = "nothing";
  results.results = {first, second};
  save_results(dir / "r.json", results);
  const std::string text = read_file(dir / "r.json");
  EXPECT_EQ(nlohmann::ordered_json::parse(text), results_to_json(results));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7);  // a line per question
  const ResultsFile loaded = load_results(dir / "r.json");
  ASSERT_EQ(loaded.results.size(), 2u);
  EXPECT_EQ(loaded.k, 3u);
  EXPECT_EQ(loaded.results[0].question, "Où est \"le\" port?");
  EXPECT_EQ(loaded.results[0].sources[1].span.file_path, "repo/b.py");

  save_results(dir / "empty.json", ResultsFile{});
  EXPECT_EQ(nlohmann::ordered_json::parse(read_file(dir / "empty.json")), results_to_json(ResultsFile{}));
}

TEST(ZeroedMemory, IsZeroWhenItGrowsAndHugeOnesStartOnA2MBBoundary) {
  const auto all_zero = [](const ZeroedMemory& m) {
    return std::all_of(m.data(), m.data() + m.size(), [](std::byte b) { return b == std::byte{0}; });
  };
  ZeroedMemory memory;
  EXPECT_EQ(memory.size(), 0u);
  memory.grow(100);
  ASSERT_GE(memory.size(), 100u);
  EXPECT_TRUE(all_zero(memory));
  memory.data()[99] = std::byte{7};
  memory.grow(50);  // already large enough: kept as it is
  EXPECT_EQ(memory.data()[99], std::byte{7});
  memory.grow(ZeroedMemory::kHugeFrom + 1);
  ASSERT_GE(memory.size(), ZeroedMemory::kHugeFrom + 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(memory.data()) % (std::uintptr_t{2} << 20), 0u);
  EXPECT_EQ(memory.size() % (std::size_t{2} << 20), 0u);
  EXPECT_TRUE(all_zero(memory));
  memory.data()[memory.size() - 1] = std::byte{1};  // every byte is writable
  ZeroedMemory moved = std::move(memory);
  EXPECT_EQ(memory.data(), nullptr);
  EXPECT_EQ(moved.data()[moved.size() - 1], std::byte{1});
}

// Scores start at zero in a fresh accumulator, also after an earlier one on the same thread
// used and left its memory.
TEST(ScoreAccumulator, StartsAtZeroAgain) {
  {
    ScoreAccumulator first(1000);
    first.add(5, 2.0);
    first.add(999, 1.0);
  }
  ScoreAccumulator second(400000);  // grows past the first's memory
  EXPECT_FALSE(second.has(5));
  EXPECT_EQ(second.score(999), 0.0);
  second.add(399999, 3.0);
  EXPECT_EQ(second.score(399999), 3.0);
  ScoreAccumulator third(10);  // another scratch, while the second holds its own
  EXPECT_FALSE(third.has(5));
}

TEST(ScoreAccumulator, TopIsTheBestKWithEqualScoresInIdOrder) {
  ScoreAccumulator scores(100);
  for (std::uint32_t c = 0; c < 100; ++c) scores.add((c * 37) % 100, static_cast<double>(c % 10));
  scores.add(3, 0.5);
  const auto ids = [](const std::vector<Hit>& hits) {
    std::vector<std::uint32_t> out;
    for (const Hit& h : hits) out.push_back(h.chunk);
    return out;
  };
  // Score 9 went to c = 9, 19, ..., 99, i.e. ids (37 c) % 100: 33, 3 (lifted to 9.5), 73, ...
  const std::vector<Hit> top = scores.top(4);
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top[0].chunk, 3u);
  EXPECT_EQ(top[0].score, 9.5);
  EXPECT_EQ(ids(top), (std::vector<std::uint32_t>{3, 13, 23, 33}));
  EXPECT_TRUE(scores.top(0).empty());
  const std::vector<Hit> all = scores.top(1000);
  ASSERT_EQ(all.size(), 100u);
  for (std::size_t i = 1; i < all.size(); ++i)
    EXPECT_TRUE(all[i - 1].score > all[i].score || (all[i - 1].score == all[i].score && all[i - 1].chunk < all[i].chunk));
  // The first k of the whole order, whatever k.
  for (const std::size_t k : {1u, 7u, 10u, 11u, 55u, 99u})
    EXPECT_EQ(ids(scores.top(k)), ids(std::vector<Hit>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k)))) << k;
}

TEST(ScoreAccumulator, AddingAListIsAddingEachInTurn) {
  const std::vector<std::uint32_t> chunks = {7, 3, 7, 9, 3, 1};
  const std::vector<double> values = {0.5, 1.25, 0.25, 2.0, 0.125, 3.0};
  ScoreAccumulator one_by_one(10);
  one_by_one.add(4, 1.0);
  for (std::size_t i = 0; i < chunks.size(); ++i) one_by_one.add(chunks[i], values[i]);
  const std::vector<std::uint32_t> touched_one_by_one = one_by_one.touched();
  const std::vector<Hit> expected = one_by_one.top(10);
  {
    ScoreAccumulator listed(10);
    listed.add(4, 1.0);
    listed.add(chunks, values);
    EXPECT_EQ(listed.touched(), touched_one_by_one);  // each chunk once, where first scored
    const std::vector<Hit> top = listed.top(10);
    ASSERT_EQ(top.size(), expected.size());
    for (std::size_t i = 0; i < top.size(); ++i) {
      EXPECT_EQ(top[i].chunk, expected[i].chunk);
      EXPECT_EQ(top[i].score, expected[i].score);
    }
    const std::uint8_t* scored = listed.scored_flags();
    for (std::uint32_t c = 0; c < 10; ++c) EXPECT_EQ(scored[c], listed.has(c) ? 1 : 0) << c;
    EXPECT_TRUE(listed.has(9));
    EXPECT_FALSE(listed.has(2));
    listed.add_to_scored(9, 0.5);
    EXPECT_EQ(listed.score(9), 2.5);
    EXPECT_EQ(listed.touched().size(), touched_one_by_one.size());
  }
  // The next accumulator of the thread starts clean, whatever the last one held.
  ScoreAccumulator next(10);
  EXPECT_TRUE(next.touched().empty());
  for (std::uint32_t c = 0; c < 10; ++c) {
    EXPECT_FALSE(next.has(c));
    EXPECT_EQ(next.score(c), 0.0);
  }
}

TEST(BestHits, OfferedOneByOneAreTheBestKOfAll) {
  // Scores with ties, offered in an order that puts better hits late.
  std::vector<Hit> hits;
  for (std::uint32_t c = 0; c < 200; ++c) hits.push_back({c, static_cast<double>((c * 7919) % 23)});
  std::vector<Hit> all = hits;
  std::sort(all.begin(), all.end(), [](const Hit& x, const Hit& y) {
    return x.score != y.score ? x.score > y.score : x.chunk < y.chunk;
  });
  for (const std::size_t k : {0u, 1u, 5u, 30u, 199u, 200u, 500u}) {
    BestHits best(k, nullptr);
    for (const Hit& h : hits) best.offer(h);
    const std::vector<Hit> top = best.take();
    ASSERT_EQ(top.size(), std::min<std::size_t>(k, all.size())) << k;
    for (std::size_t i = 0; i < top.size(); ++i) {
      EXPECT_EQ(top[i].chunk, all[i].chunk) << k << " " << i;
      EXPECT_EQ(top[i].score, all[i].score) << k << " " << i;
    }
    const std::vector<Hit> listed = best_hits(hits, k);
    ASSERT_EQ(listed.size(), top.size());
    for (std::size_t i = 0; i < top.size(); ++i) EXPECT_EQ(listed[i].chunk, top[i].chunk);
  }
}

TEST(Utf8, PrefixBytesCountsWholeCodePoints) {
  EXPECT_EQ(utf8::prefix_bytes("\xC3\xA9t\xC3\xA9", 2), 3u);  // "ét" of "été"
  EXPECT_EQ(utf8::prefix_bytes("\xC3\xA9t\xC3\xA9", 9), 5u);
  EXPECT_EQ(utf8::prefix_bytes("abc", 0), 0u);
}

TEST(Utf8, RepairedReplacesEachMalformedSequence) {
  EXPECT_EQ(utf8::repaired("caf\xC3\xA9"), "caf\xC3\xA9");  // valid: as it is
  EXPECT_EQ(utf8::repaired("a\xFF\xFE" "b"), "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
  EXPECT_EQ(utf8::repaired("\xC3"), "\xEF\xBF\xBD");  // cut short at the end
  EXPECT_TRUE(utf8::is_valid(utf8::repaired("\xED\xA0\x80 \xC0\xAF \xF4\x90\x80\x80")));  // surrogate, overlong, past U+10FFFF
}

TEST(SourceFile, CodePointOffsets) {
  // "aé€😀b": 1 + 2 + 3 + 4 + 1 bytes, 5 code points.
  const SourceFile f("x", "x", "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80" "b");
  EXPECT_EQ(f.char_offset(0), 0u);
  EXPECT_EQ(f.char_offset(1), 1u);
  EXPECT_EQ(f.char_offset(3), 2u);
  EXPECT_EQ(f.char_offset(6), 3u);
  EXPECT_EQ(f.char_offset(10), 4u);
  EXPECT_EQ(f.char_offset(11), 5u);
  EXPECT_EQ(f.byte_offset(4), 10u);
  EXPECT_EQ(f.byte_offset(5), 11u);
  EXPECT_THROW(SourceFile("bad", "bad", "\xC3("), Error);
  EXPECT_THROW(SourceFile("overlong", "overlong", "\xC0\xAF"), Error);
}

TEST(ChunkFile, SpansOutOfRangeOrInsideACharacterAreRefused) {
  // A chunker plugin's spans, as given: each one checked before the index converts it.
  struct Fixed : Chunker {
    std::vector<ChunkSpan> spans;
    std::vector<ChunkSpan> chunk(const SourceFile&) const override { return spans; }
  } chunker;
  const SourceFile f("repo/x.md", "x.md", "a\xC3\xA9" "b");  // "aéb": é is bytes [1, 3)
  chunker.spans = {{{0, 1}, ""}, {{1, 4}, ""}};
  const std::vector<Chunk> chunks = chunk_file(f, chunker, "fixed");
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1].first_char, 1u);
  EXPECT_EQ(chunks[1].last_char, 3u);
  const auto refused = [&](ByteRange r) {
    chunker.spans = {{r, ""}};
    try {
      chunk_file(f, chunker, "fixed");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(refused({0, 2}), ::testing::HasSubstr("span [0, 2) for repo/x.md that cuts a UTF-8 character"));
  EXPECT_THAT(refused({2, 4}), ::testing::HasSubstr("cuts a UTF-8 character"));
  EXPECT_THAT(refused({0, 5}), ::testing::HasSubstr("the fixed chunker returned an invalid span [0, 5)"));
  EXPECT_THAT(refused({3, 3}), ::testing::HasSubstr("invalid span [3, 3)"));
}

TEST(SourceFile, LineNumbersCountLineFeeds) {
  // Lines end at "\n" (a CRLF's CR belongs to its line); the last line needs no line end.
  const SourceFile f("x", "x", "one\r\ntwo\n\nfour");
  EXPECT_EQ(f.line_of(0), 1u);
  EXPECT_EQ(f.line_of(4), 1u);  // the \n of line 1
  EXPECT_EQ(f.line_of(5), 2u);
  EXPECT_EQ(f.line_of(9), 3u);  // the empty line 3
  EXPECT_EQ(f.line_of(10), 4u);
  EXPECT_EQ(f.lines_of({0, 5}), (std::pair<std::size_t, std::size_t>{1, 1}));  // ends with its line end
  EXPECT_EQ(f.lines_of({5, 14}), (std::pair<std::size_t, std::size_t>{2, 4}));
}

}  // namespace
}  // namespace rag
