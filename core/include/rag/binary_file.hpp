#pragma once
// The binary files of an index. A file is a header (magic, kind, format version), sections of
// little-endian values, each starting at a multiple of 8 bytes so that arrays are read in place,
// and a footer: the table of sections and a 64-bit XXH3 checksum of everything before it.
//
// Readers map the file and check its header, footer and table when they open it, which costs
// the same at any size; the checksum is compared by verify() (rag check, and merges that read a
// whole segment anyway), as Lucene checks its big files' footers at open and their contents in
// CheckIndex and merges.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "rag/error.hpp"
#include "rag/file_io.hpp"

struct XXH3_state_s;

namespace rag {

class BinaryWriter {
 public:
  /// Starts `path` (written atomically: it appears whole at commit()). `kind` names the content
  /// ("chunks", "bm25", ...) and is checked on reading, with `version`.
  BinaryWriter(const std::filesystem::path& path, std::string_view kind, std::uint32_t version);
  ~BinaryWriter();
  BinaryWriter(const BinaryWriter&) = delete;
  BinaryWriter& operator=(const BinaryWriter&) = delete;

  /// A section holding `values`.
  template <class T>
  void section(std::span<const T> values) {
    begin_section();
    append(values);
    end_section();
  }
  void section(std::string_view bytes) {
    begin_section();
    append(bytes);
    end_section();
  }
  /// A section written in pieces, for data too big to gather first.
  void begin_section();
  void append(std::string_view bytes);
  template <class T>
  void append(std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    append(std::string_view(reinterpret_cast<const char*>(values.data()), values.size_bytes()));
  }
  void end_section();
  /// Writes the table and the footer and puts the file in place.
  void commit();

 private:
  void write(std::string_view bytes);

  AtomicFile file_;
  struct FreeState {
    void operator()(XXH3_state_s* state) const;
  };
  std::unique_ptr<XXH3_state_s, FreeState> checksum_;
  std::vector<std::uint64_t> table_;  // offset and size of each section
  bool in_section_ = false;
};

class BinaryReader {
 public:
  /// Maps the file and checks its header, footer and table. Throws rag::Error when it is missing,
  /// truncated, of another kind or format version, or its structure is damaged.
  BinaryReader(const std::filesystem::path& path, std::string_view kind, std::uint32_t version);

  std::size_t section_count() const { return table_.size() / 2; }
  std::string_view bytes(std::size_t section) const;
  /// Section `section` as an array; throws when its size is not a whole number of values.
  template <class T>
  std::span<const T> array(std::size_t section) const {
    static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= 8);
    const std::string_view b = bytes(section);
    if (b.size() % sizeof(T) != 0) damaged("is inconsistent");
    return {reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T)};
  }
  /// Compares the checksum with the file's bytes (reads all of them). Throws rag::Error when
  /// they differ.
  void verify() const;
  const std::filesystem::path& path() const { return file_.path(); }
  /// See MappedFile::release_pages.
  void release_pages() const { file_.release_pages(); }
  /// Throws "<path> <what>: the index is damaged; run `rag index` to rebuild it".
  [[noreturn]] void damaged(const std::string& what) const;

 private:
  MappedFile file_;
  std::span<const std::uint64_t> table_;
  std::uint64_t checksum_ = 0;
  std::size_t checked_bytes_ = 0;  // what the checksum covers
};

/// True when `path` begins as the files BinaryWriter writes do (a retriever may keep files of
/// its own format beside them, Xapian's tables).
bool is_binary_file(const std::filesystem::path& path);
/// Checks the structure and the checksum of any file BinaryWriter wrote, whatever its kind. Other
/// files are left alone, unless `written_as_binary` says BinaryWriter wrote it: then a file that no
/// longer begins as one (its header overwritten) is damaged too. Throws rag::Error when damaged.
void verify_binary_file(const std::filesystem::path& path, bool written_as_binary = false);

}  // namespace rag
