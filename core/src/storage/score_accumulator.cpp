#include "rag/score_accumulator.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <utility>

namespace rag {

ZeroedMemory::~ZeroedMemory() {
  if (data_) ::munmap(data_, size_);
}

ZeroedMemory::ZeroedMemory(ZeroedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

ZeroedMemory& ZeroedMemory::operator=(ZeroedMemory&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void ZeroedMemory::grow(std::size_t bytes) {
  if (bytes <= size_) return;
  const bool huge = bytes >= kHugeFrom;
  const std::size_t unit = huge ? std::size_t{2} << 20 : static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t length = (bytes + unit - 1) / unit * unit;
  // Huge pages need a 2 MB boundary: map a unit more, and give back what lies outside it.
  const std::size_t mapped = huge ? length + unit : length;
  void* const raw = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto begin = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t start = (begin + unit - 1) / unit * unit;
  if (huge) {
    if (start > begin) ::munmap(raw, start - begin);
    if (const std::uintptr_t end = begin + mapped; end > start + length)
      ::munmap(reinterpret_cast<void*>(start + length), end - (start + length));
    ::madvise(reinterpret_cast<void*>(start), length, MADV_HUGEPAGE);  // a request: small pages if refused
  }
  *this = ZeroedMemory();
  data_ = reinterpret_cast<std::byte*>(start);
  size_ = length;
}

namespace {

// Scratch arrays that finished accumulators left clean, per thread; a retriever that holds two
// accumulators at once (feedback) simply takes two.
std::vector<std::unique_ptr<ScoreAccumulator::Scratch>>& pool() {
  thread_local std::vector<std::unique_ptr<ScoreAccumulator::Scratch>> scratches;
  return scratches;
}

}  // namespace

ScoreAccumulator::ScoreAccumulator(std::size_t chunks) {
  auto& free = pool();
  if (!free.empty()) {
    scratch_ = std::move(free.back());
    free.pop_back();
  } else {
    scratch_ = std::make_unique<Scratch>();
  }
  if (scratch_->chunks < chunks) {
    scratch_->memory.grow(chunks * (sizeof(double) + sizeof(std::uint8_t)));
    scratch_->chunks = chunks;
    scratch_->scores = reinterpret_cast<double*>(scratch_->memory.data());
    scratch_->seen = reinterpret_cast<std::uint8_t*>(scratch_->scores + chunks);
  }
  touched_ = std::move(scratch_->touched);
}

ScoreAccumulator::~ScoreAccumulator() { release(); }

ScoreAccumulator::ScoreAccumulator(ScoreAccumulator&& other) noexcept
    : scratch_(std::move(other.scratch_)), touched_(std::move(other.touched_)) {}

ScoreAccumulator& ScoreAccumulator::operator=(ScoreAccumulator&& other) noexcept {
  if (this != &other) {
    release();
    scratch_ = std::move(other.scratch_);
    touched_ = std::move(other.touched_);
  }
  return *this;
}

void ScoreAccumulator::release() {
  if (!scratch_) return;
  // Through locals: a byte stored may alias anything, which would reload the vectors at each.
  double* const scores = scratch_->scores;
  std::uint8_t* const seen = scratch_->seen;
  for (const std::uint32_t c : touched_) {
    scores[c] = 0.0;
    seen[c] = 0;
  }
  touched_.clear();
  scratch_->touched = std::move(touched_);
  pool().push_back(std::move(scratch_));
}

void ScoreAccumulator::add(std::span<const std::uint32_t> chunks, std::span<const double> scores) {
  double* const sums = scratch_->scores;
  std::uint8_t* const seen = scratch_->seen;
  const std::size_t before = touched_.size();
  touched_.resize(before + chunks.size());
  std::uint32_t* const touched = touched_.data() + before;
  std::size_t added = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::uint32_t c = chunks[i];
    touched[added] = c;  // kept only when the chunk is new
    added += seen[c] ^ 1U;
    seen[c] = 1;
    sums[c] += scores[i];
  }
  touched_.resize(before + added);
}

std::vector<Hit> ScoreAccumulator::top(std::size_t k, const SegmentList* order) const {
  std::vector<Hit> hits;
  hits.reserve(touched_.size());
  for (const std::uint32_t c : touched_) hits.push_back({c, scratch_->scores[c]});
  return best_hits(std::move(hits), k, order);
}

bool BestHits::better(const Hit& x, const Hit& y) const {
  if (x.score != y.score) return x.score > y.score;
  return order_ ? order_->before(x.chunk, y.chunk) : x.chunk < y.chunk;
}

void BestHits::challenge(const Hit& hit) {
  const auto better = [this](const Hit& x, const Hit& y) { return this->better(x, y); };
  if (!heaped_) {
    if (kept_.size() < k_) {
      kept_.push_back(hit);
      return;
    }
    if (k_ == 0) return;
    std::make_heap(kept_.begin(), kept_.end(), better);
    heaped_ = true;
  }
  if (better(hit, kept_.front())) {
    std::pop_heap(kept_.begin(), kept_.end(), better);
    kept_.back() = hit;
    std::push_heap(kept_.begin(), kept_.end(), better);
  }
  worst_ = kept_.front().score;
}

std::vector<Hit> BestHits::take() {
  std::sort(kept_.begin(), kept_.end(), [this](const Hit& x, const Hit& y) { return better(x, y); });
  return std::move(kept_);
}

std::vector<Hit> best_hits(std::vector<Hit> hits, std::size_t k, const SegmentList* order) {
  BestHits best(k, order);
  for (const Hit& h : hits) best.offer(h);
  return best.take();
}

}  // namespace rag
