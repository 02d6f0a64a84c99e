#include "rag/file_io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <utility>

#include "rag/error.hpp"

namespace rag {
namespace {

// Written in pieces of this size: a big index file never sits whole in memory.
constexpr std::size_t kWriteBuffer = 1 << 20;

}  // namespace

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path.string() + ": is a folder, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  std::string content;
  if (!std::filesystem::is_regular_file(path, ec)) {
    // A pipe (<(cmd), /dev/stdin) has no size to seek to: read until it ends.
    content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw Error(path.string() + ": read failed");
    return content;
  }
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size > 0) {
    content.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(content.data(), size);
  }
  if (!in) throw Error(path.string() + ": read failed");
  return content;
}

void create_folder(const std::filesystem::path& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw Error(folder.string() + ": cannot create folder (" + ec.message() + "); choose a folder you can write to");
}

bool is_within(const std::filesystem::path& path, const std::filesystem::path& folder) {
  const std::filesystem::path relative = path.lexically_relative(folder);
  return !relative.empty() && *relative.begin() != "..";
}

void check_folder_of(const std::filesystem::path& path) {
  std::error_code ec;
  const auto parent = path.parent_path();
  // A mistyped folder is not made silently: the file would land where nobody looks.
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw Error(parent.string() + (std::filesystem::exists(parent, ec) ? ": not a folder" : ": no such folder") +
                "; create it first, or write " + path.filename().string() + " elsewhere");
}

namespace {

constexpr std::string_view kTemporaryMark = ".tmp-";
// A temporary older than this, of a process gone, is a killed writer's: a live writer (in another
// PID namespace, say, where its PID means nothing here) writes its file at least this often.
constexpr auto kStaleAfter = std::chrono::minutes(2);

// The PID in a temporary's name `name` of `target_name` (see is_temporary_of); 0 when it is not one.
long temporary_pid(std::string_view name, std::string_view target_name) {
  if (name.starts_with('.') && name.substr(1).starts_with(target_name)) name.remove_prefix(1 + target_name.size());
  else if (name.starts_with(target_name)) name.remove_prefix(target_name.size());
  else return 0;
  if (!name.starts_with(kTemporaryMark)) return 0;
  name.remove_prefix(kTemporaryMark.size());
  const std::size_t dash = name.find('-');
  const auto digits = [](std::string_view d) {
    return !d.empty() && d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (dash == std::string_view::npos || !digits(name.substr(0, dash)) || !digits(name.substr(dash + 1))) return 0;
  return std::strtol(std::string(name.substr(0, dash)).c_str(), nullptr, 10);
}

// Temporaries of `target` that killed writers left: their process is gone and they have not been
// written for a while. The next writer of the file removes them.
void remove_stale_temporaries(const std::filesystem::path& target) {
  const std::string target_name = target.filename().string();
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const auto now = std::filesystem::file_time_type::clock::now();
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const long pid = temporary_pid(it->path().filename().string(), target_name);
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code time_error;
    const auto written = std::filesystem::last_write_time(it->path(), time_error);
    if (!time_error && now - written > kStaleAfter) ::unlink(it->path().c_str());
  }
}

}  // namespace

bool is_temporary_of(std::string_view name, std::string_view target_name) { return temporary_pid(name, target_name) > 0; }

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
  check_folder_of(path_);
  // The file a link names is the one to write (its folder is where the temporary file goes).
  std::error_code ec;
  std::filesystem::path target = path_;
  if (std::filesystem::is_symlink(path_, ec)) {
    target = std::filesystem::weakly_canonical(path_, ec);
    if (ec) throw Error(path_.string() + ": cannot follow the link (" + ec.message() + ")");
    check_folder_of(target);
  }
  const std::filesystem::file_status status = std::filesystem::status(target, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    if (std::filesystem::is_directory(status)) throw Error(path_.string() + ": a folder; give a file name");
    fd_ = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);  // a device or a pipe: written as it is
  } else {
    remove_stale_temporaries(target);
    std::random_device random;
    std::string name(1, '.');  // hidden: no glob of the folder's files takes it
    name += target.filename().string();
    name += kTemporaryMark;
    name += std::to_string(::getpid()) + "-" + std::to_string(random());
    temporary_ = (target.parent_path() / name).string();
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  path_written_ = temporary_.empty() ? std::string() : target.string();
  if (fd_ < 0)
    throw Error(path_.string() + ": cannot write (" + std::strerror(errno) + "); choose a folder you can write to");
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
  }
}

void AtomicFile::write(std::string_view bytes) {
  size_ += bytes.size();
  if (buffer_.size() + bytes.size() > kWriteBuffer) flush();
  if (bytes.size() >= kWriteBuffer) {
    buffer_ = bytes;  // one big piece goes out as it is
    flush();
  } else {
    buffer_ += bytes;
  }
}

void AtomicFile::flush() {
  const char* data = buffer_.data();
  std::size_t left = buffer_.size();
  while (left > 0) {
    const ssize_t written = ::write(fd_, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  buffer_.clear();
}

void AtomicFile::commit() {
  flush();
  if (temporary_.empty()) {  // a device or a pipe: nothing to sync or rename
    if (::close(std::exchange(fd_, -1)) != 0) throw_write_error(errno);
    return;
  }
  if (::fsync(fd_) != 0) fail(errno);
  const int closed = ::close(std::exchange(fd_, -1));
  if (closed != 0 || std::rename(temporary_.c_str(), path_written_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    throw_write_error(error);
  }
}

void AtomicFile::fail(int error) {
  ::close(std::exchange(fd_, -1));
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  throw_write_error(error);
}

void AtomicFile::throw_write_error(int error) const {
  const bool full = error == ENOSPC || error == EDQUOT || error == EFBIG;
  throw Error(path_.string() + ": cannot write (" + std::strerror(error) + ")" +
              (full ? "; the disk is full or a file-size limit was reached: free some space and run again" : ""));
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

MappedFile::MappedFile(const std::filesystem::path& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  struct stat status {};
  if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    ::close(fd);
    throw Error(path.string() + ": not a regular file");
  }
  size_ = static_cast<std::size_t>(status.st_size);
  if (size_ > 0) {
    void* map = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      throw Error(path.string() + ": cannot map (" + std::strerror(error) + ")");
    }
    data_ = static_cast<const char*>(map);
    // Index files are read here and there (a term's postings, a chunk's record): no readahead,
    // and no mapping of the pages around each one read, so that a process holds what it reads.
    ::madvise(map, size_, MADV_RANDOM);
  }
  ::close(fd);  // the mapping keeps the file
}

void MappedFile::read_through() const {
  if (data_) ::madvise(const_cast<char*>(data_), size_, MADV_SEQUENTIAL);
}

void MappedFile::release_pages() const {
  if (data_) ::madvise(const_cast<char*>(data_), size_, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace rag
