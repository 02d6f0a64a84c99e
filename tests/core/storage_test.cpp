#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rag/binary_file.hpp"
#include "rag/chunk_store.hpp"
#include "rag/file_io.hpp"
#include "rag/source_file.hpp"
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
      {"data/a.py", "python", "a.f", 0, 10, 0, 10, "def f(): 1"},
      {"data/a.py", "python", "a", 12, 20, 12, 22, "x = 'é é'"},
      {"data/b.md", "markdown", "T > S", 5, 9, 5, 9, "text"},
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
  }
}

TEST(FileIo, AtomicWriteReplacesWholeAndLeavesNoTemporaries) {
  testing::TempDir dir;
  write_file_atomically(dir / "sub/out.json", "first");
  write_file_atomically(dir / "sub/out.json", "second");
  EXPECT_EQ(read_file(dir / "sub/out.json"), "second");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir / "sub")) ++files;
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(write_file_atomically("/proc/no/such/place/out.json", "x"), Error);
  EXPECT_THROW(read_file(dir / "absent"), Error);
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

}  // namespace
}  // namespace rag
