#include "rag/file_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "rag/error.hpp"

namespace rag {

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path.string() + ": is a folder, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  std::string content;
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

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  const auto parent = path.parent_path();
  // A mistyped folder is not made silently: the file would land where nobody looks.
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw Error(parent.string() + (std::filesystem::exists(parent, ec) ? ": not a folder" : ": no such folder") +
                "; create it first, or write " + path.filename().string() + " elsewhere");
  std::random_device random;
  const auto temporary = path.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(random());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(path.string() + ": cannot write (" + std::strerror(errno) + "); choose a folder you can write to");
  const char* data = content.data();
  std::size_t left = content.size();
  int error = 0;
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    const bool full = error == ENOSPC || error == EDQUOT || error == EFBIG;
    throw Error(path.string() + ": cannot write (" + std::strerror(error) + ")" +
                (full ? "; the disk is full or a file-size limit was reached: free some space and run again" : ""));
  }
}

}  // namespace rag
