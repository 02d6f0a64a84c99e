#pragma once
// The files and chunks of one index segment (<index>/<segment>/chunks.bin), read in place.
//
// A segment records every corpus file it took in — with its size, time and content digest, so
// that `rag index` can tell what changed since — and, for the files it chunked, their text and
// chunks. Chunks are numbered from 0 in the order of their files; a file's chunks are consecutive.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rag/binary_file.hpp"
#include "rag/chunk.hpp"
#include "rag/retriever.hpp"

namespace rag {

/// A corpus file as `rag index` hands it to a new segment.
struct StoredFile {
  std::string name;  ///< as results name it ("data/raw/vllm-0.10.1/docs/a.md")
  std::uint32_t relative_start = 0;  ///< where the path below the corpus root starts in `name`
  std::uint64_t size = 0;
  std::int64_t changed = 0;  ///< nanoseconds since the epoch
  std::uint64_t digest = 0;   ///< of its bytes (0: unreadable)
  std::string note;           ///< why it was passed over; empty when it was chunked
  std::string_view text;      ///< its text, when chunked (kept alive by the caller until written)
  std::vector<Chunk> chunks;  ///< their `text` may be left empty: the store takes it from `text`
};

/// Writes a segment's chunks.bin: `files` and their chunks, in that order.
void write_segment_store(const std::filesystem::path& file, std::span<const StoredFile> files);

class SegmentStore final : public SegmentChunks {
 public:
  struct File {
    std::string_view name;
    std::string_view relative_path;  ///< below the corpus root
    std::string_view note;
    std::uint64_t size = 0;
    std::int64_t changed = 0;
    std::uint64_t digest = 0;
    std::uint32_t first_chunk = 0;
    std::uint32_t chunk_count = 0;
  };

  /// Maps `file` and checks its structure. Throws rag::Error when it is missing, damaged or of
  /// another format.
  explicit SegmentStore(const std::filesystem::path& file);

  std::size_t size() const override { return chunks_.size(); }
  /// Chunk `id` (< size()). Throws rag::Error when its record points outside the file.
  ChunkView chunk(std::uint32_t id) const override;
  std::size_t file_count() const override { return files_.size(); }
  std::uint32_t file_of(std::uint32_t chunk) const override {
    if (file_of_[chunk] >= files_.size()) reader_.damaged("is inconsistent");
    return file_of_[chunk];
  }
  File file(std::uint32_t index) const;
  /// The text of a file the segment chunked ("" for one passed over).
  std::string_view file_text(std::uint32_t index) const;
  /// The file named `name` (as results name it), if the segment holds one.
  std::optional<std::uint32_t> find_file(std::string_view name) const;
  /// Compares the checksum of the file with its bytes (reads all of it).
  void verify() const { reader_.verify(); }
  /// See MappedFile::release_pages.
  void release_pages() const { reader_.release_pages(); }

  /// As on disk, read in place.
  struct ChunkRecord {
    std::uint64_t section_offset, first_char, last_char, first_byte, last_byte;
    std::uint32_t section_size, file, kind, first_line, last_line, pad;
  };
  struct FileRecord {
    std::uint64_t name_offset, note_offset, size, digest, text_offset;
    std::int64_t changed;
    std::uint32_t name_size, note_size;
    std::uint32_t first_chunk, chunk_count;
    std::uint64_t text_size;
    std::uint32_t relative_start, pad;
  };

 private:
  std::string_view string_at(std::uint64_t offset, std::uint64_t size) const;

  BinaryReader reader_;
  std::span<const FileRecord> files_;
  std::span<const std::uint32_t> by_name_;  // file indices sorted by name
  std::span<const ChunkRecord> chunks_;
  std::span<const std::uint32_t> file_of_;
  std::span<const std::uint64_t> kinds_;  // offset and size of each kind's name in strings_
  std::string_view strings_;
  std::string_view texts_;
};

}  // namespace rag
