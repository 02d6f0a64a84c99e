#pragma once
// Reading and writing files. Every file the program writes goes through AtomicFile (or
// write_file_atomically), so a crash or a full disk never leaves a half-written file behind;
// index files are read in place through MappedFile.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace rag {

/// The whole file, bytes as on disk. Throws rag::Error naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// A file written under a temporary name beside `path` and renamed over `path` by commit(), after
/// it is flushed to disk: readers see the old file or the whole new one. Destroyed without
/// commit(), it removes the temporary file. A symbolic link is followed (the file it names is
/// written, the link stays), and what is not a regular file (a device, a pipe: /dev/stdout,
/// /dev/null) is written into as it is, never replaced. Throws rag::Error naming `path` on any
/// failure (a full disk says so), and when the folder of `path` does not exist.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  /// Bytes written so far.
  std::size_t size() const { return size_; }
  void commit();

 private:
  void flush();
  [[noreturn]] void fail(int error);
  [[noreturn]] void throw_write_error(int error) const;

  std::filesystem::path path_;
  std::string temporary_;     // empty when written in place (a device or a pipe)
  std::string path_written_;  // what the temporary file is renamed to: path_, or the file its link names
  int fd_ = -1;
  std::string buffer_;
  std::size_t size_ = 0;
};

/// Whether the file name `name` is one of the temporary files AtomicFile writes beside a file
/// named `target_name` before renaming it: ".NAME.tmp-PID-N" (an older rag's "NAME.tmp-PID-N"
/// too). A process killed while writing leaves one.
bool is_temporary_of(std::string_view name, std::string_view target_name);

/// Whether `path` is `folder` or below it, read lexically (normalise both first when they may
/// hold "..", links or a relative start).
bool is_within(const std::filesystem::path& path, const std::filesystem::path& folder);

/// Throws rag::Error when the folder that would hold the file `path` is missing or not a folder:
/// what AtomicFile says at the end of a long run, said before it (a mistyped folder is never made).
void check_folder_of(const std::filesystem::path& path);

/// Writes `content` to `path` through an AtomicFile.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// A file mapped read-only: its bytes are read in place, and only the pages touched are loaded,
/// so opening costs the same whatever the size. The mapping outlives the file's removal.
class MappedFile {
 public:
  /// Throws rag::Error naming the file when it cannot be opened or mapped.
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {data_, size_}; }
  const std::filesystem::path& path() const { return path_; }
  /// Lets the pages read so far go from this process's memory (they stay in the page cache and
  /// come back when read again): what a long run does with a file it is done with for now.
  void release_pages() const;
  /// Says that the file will be read from start to end (a dictionary's index scanned whole):
  /// pages are then read ahead and mapped many at a time, not one by one.
  void read_through() const;

 private:
  std::filesystem::path path_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Creates `folder` and its parents when missing (a command's --save_directory). Throws
/// rag::Error naming the folder when that fails.
void create_folder(const std::filesystem::path& folder);

}  // namespace rag
