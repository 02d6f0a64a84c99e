#pragma once
// Progress of long work on a terminal: one line on stderr, redrawn at most ten times a
// second, and nothing at all when stderr is not a terminal. Thread-safe.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace rag {

class Progress {
 public:
  Progress(std::string label, std::size_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void advance(std::size_t n = 1);
  /// Draws the final state and ends the line.
  void finish();

 private:
  void draw(std::size_t done);

  std::string label_;
  std::size_t total_;
  bool enabled_;
  bool finished_ = false;
  std::atomic<std::size_t> done_{0};
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace rag
