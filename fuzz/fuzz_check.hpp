#pragma once
// What every fuzz target shares: a check that stops the run with a message (libFuzzer then saves
// the input), and a scratch file for loaders that read from a path.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

// Unlike assert, active in every build: a violated invariant is the finding.
#define FUZZ_CHECK(condition, message)                                                   \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      std::fprintf(stderr, "invariant broken: %s (%s:%d)\n", std::string(message).c_str(), __FILE__, __LINE__); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace rag::fuzz {

// One file per process (targets run one input at a time), removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const char* extension)
      : path_(std::filesystem::temp_directory_path() / ("rag-fuzz-" + std::to_string(::getpid()) + extension)) {}
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  /// Replaces the file's content with `data`; returns its path.
  const std::filesystem::path& write(std::string_view data) const {
    std::ofstream(path_, std::ios::binary | std::ios::trunc).write(data.data(), static_cast<std::streamsize>(data.size()));
    return path_;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace rag::fuzz
