#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rag/binary_file.hpp"
#include "rag/chunk_store.hpp"
#include "rag/corpus.hpp"
#include "rag/dataset.hpp"
#include "rag/file_io.hpp"
#include "rag/source_file.hpp"
#include "rag/utf8.hpp"
#include "test_support.hpp"

namespace rag {
namespace {

using ::testing::HasSubstr;

TEST(BinaryFile, RoundTrip) {
  testing::TempDir dir;
  BinaryWriter out("demo", 3);
  out.u32(7);
  out.f64(2.5);
  out.str("héllo");
  const std::vector<std::uint32_t> values = {1, 2, 3};
  out.array<std::uint32_t>(values);
  out.save(dir / "f.bin");
  BinaryReader in(dir / "f.bin", "demo", 3);
  EXPECT_EQ(in.u32(), 7u);
  EXPECT_EQ(in.f64(), 2.5);
  EXPECT_EQ(in.str(), "héllo");
  EXPECT_EQ(in.array<std::uint32_t>(), values);
  in.expect_end();
}

std::string read_error(const std::filesystem::path& file, std::string_view kind = "demo", std::uint32_t version = 1) {
  try {
    BinaryReader in(file, kind, version);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(BinaryFile, DetectsDamageAndOtherVersions) {
  testing::TempDir dir;
  BinaryWriter out("demo", 1);
  out.str(std::string(1000, 'x'));
  out.save(dir / "f.bin");
  const std::string good = testing::read_all(dir / "f.bin");

  std::string flipped = good;
  flipped[500] ^= 0x10;
  dir.write("flipped.bin", flipped);
  EXPECT_THAT(read_error(dir / "flipped.bin"), HasSubstr("checksum"));
  EXPECT_THAT(read_error(dir / "flipped.bin"), HasSubstr("rag index"));

  dir.write("short.bin", good.substr(0, good.size() / 2));
  EXPECT_THAT(read_error(dir / "short.bin"), HasSubstr("truncated"));
  EXPECT_THAT(read_error(dir / "f.bin", "demo", 2), HasSubstr("format 1"));
  EXPECT_THAT(read_error(dir / "f.bin", "other"), HasSubstr("'demo'"));
  EXPECT_THAT(read_error(dir / "missing.bin"), HasSubstr("missing"));
  dir.write("text.bin", "hello world, not ours");
  EXPECT_THAT(read_error(dir / "text.bin"), HasSubstr("not an index file"));
}

TEST(ChunkStore, RoundTrip) {
  testing::TempDir dir;
  const std::vector<Chunk> chunks = {
      {"data/a.py", "python", "a.f", 0, 10, 0, 10, "def f(): 1", 1, 1},
      {"data/a.py", "python", "a", 12, 20, 12, 22, "x = 'é é'", 3, 3},
      {"data/b.md", "markdown", "T > S", 5, 9, 5, 9, "te\nxt", 2, 3},
  };
  save_chunks(dir / "chunks.bin", chunks);
  const auto loaded = load_chunks(dir / "chunks.bin");
  ASSERT_EQ(loaded.size(), chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(loaded[i].file_path, chunks[i].file_path);
    EXPECT_EQ(loaded[i].kind, chunks[i].kind);
    EXPECT_EQ(loaded[i].section, chunks[i].section);
    EXPECT_EQ(loaded[i].first_char, chunks[i].first_char);
    EXPECT_EQ(loaded[i].last_char, chunks[i].last_char);
    EXPECT_EQ(loaded[i].last_byte, chunks[i].last_byte);
    EXPECT_EQ(loaded[i].text, chunks[i].text);
    EXPECT_EQ(loaded[i].first_line, chunks[i].first_line);
    EXPECT_EQ(loaded[i].last_line, chunks[i].last_line);
  }
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
  CorpusSnapshot snapshot;
  for (const auto& entry : then.files) snapshot.files.push_back({entry.relative_path, entry.size, entry.modified, read_source(entry).digest});
  snapshot.save(dir / "corpus.bin");
  const CorpusSnapshot loaded = CorpusSnapshot::load(dir / "corpus.bin");
  ASSERT_EQ(loaded.files.size(), 4u);
  EXPECT_EQ(loaded.files[0].digest, snapshot.files[0].digest);
  EXPECT_TRUE(compare_corpus(loaded, list_corpus(pipeline)).empty());

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

TEST(Utf8, PrefixBytesCountsWholeCodePoints) {
  EXPECT_EQ(utf8::prefix_bytes("\xC3\xA9t\xC3\xA9", 2), 3u);  // "ét" of "été"
  EXPECT_EQ(utf8::prefix_bytes("\xC3\xA9t\xC3\xA9", 9), 5u);
  EXPECT_EQ(utf8::prefix_bytes("abc", 0), 0u);
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
