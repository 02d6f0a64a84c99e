#include "rag/score_accumulator.hpp"

#include <algorithm>

namespace rag {
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
  if (scratch_->scores.size() < chunks) {
    scratch_->scores.resize(chunks, 0.0);
    scratch_->seen.resize(chunks, 0);
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
  double* const scores = scratch_->scores.data();
  std::uint8_t* const seen = scratch_->seen.data();
  for (const std::uint32_t c : touched_) {
    scores[c] = 0.0;
    seen[c] = 0;
  }
  touched_.clear();
  scratch_->touched = std::move(touched_);
  pool().push_back(std::move(scratch_));
}

void ScoreAccumulator::add(std::span<const std::uint32_t> chunks, std::span<const double> scores) {
  double* const sums = scratch_->scores.data();
  std::uint8_t* const seen = scratch_->seen.data();
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
