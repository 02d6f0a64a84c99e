#include "rag/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace rag {

Progress::Progress(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), enabled_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

Progress::~Progress() { finish(); }

void Progress::advance(std::size_t n) {
  const std::size_t done = done_.fetch_add(n) + n;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || finished_) return;
  last_draw_ = now;
  draw(done);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  draw(done_.load());
  std::fputc('\n', stderr);
}

void Progress::draw(std::size_t done) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double share = total_ ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(share * kWidth);
  std::fprintf(stderr, "\r%-12s [%.*s%*s] %zu/%zu %5.1fs", label_.c_str(), filled, "##############################",
               kWidth - filled, "", done, total_, seconds);
  std::fflush(stderr);
}

}  // namespace rag
