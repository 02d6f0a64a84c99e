#pragma once
// Adding up per-chunk scores for one query and taking the best k: the inner loop that every
// term-at-a-time retriever shares. The dense score array is borrowed from a per-thread pool
// and only the touched entries are reset, so a query costs no allocation or page clearing in
// proportion to the corpus.
#include <cstdint>
#include <memory>
#include <vector>

#include "rag/retriever.hpp"

namespace rag {

class ScoreAccumulator {
 public:
  explicit ScoreAccumulator(std::size_t chunks);
  ~ScoreAccumulator();
  ScoreAccumulator(ScoreAccumulator&& other) noexcept;
  ScoreAccumulator& operator=(ScoreAccumulator&& other) noexcept;
  ScoreAccumulator(const ScoreAccumulator&) = delete;
  ScoreAccumulator& operator=(const ScoreAccumulator&) = delete;

  void add(std::uint32_t chunk, double score) {
    auto& scratch = *scratch_;
    if (!scratch.seen[chunk]) {
      scratch.seen[chunk] = 1;
      touched_.push_back(chunk);
    }
    scratch.scores[chunk] += score;
  }
  /// Whether the chunk has received a score. A very common term may add only to those, which
  /// spares making nearly every chunk a candidate (the "continue" strategy of Moffat and
  /// Zobel's term-at-a-time evaluation).
  bool has(std::uint32_t chunk) const { return scratch_->seen[chunk] != 0; }
  /// Multiplies the chunk's score, e.g. to normalise it, once all terms are added.
  void scale(std::uint32_t chunk, double factor) { scratch_->scores[chunk] *= factor; }
  const std::vector<std::uint32_t>& touched() const { return touched_; }
  double score(std::uint32_t chunk) const { return scratch_->scores[chunk]; }

  /// The `k` best chunks that received any score, best first; equal scores in `order`'s order
  /// (SegmentList::before), or by chunk id without one.
  std::vector<Hit> top(std::size_t k, const SegmentList* order = nullptr) const;

  struct Scratch {
    std::vector<double> scores;
    std::vector<std::uint8_t> seen;
  };

 private:
  void release();

  std::unique_ptr<Scratch> scratch_;
  std::vector<std::uint32_t> touched_;
};

/// The `k` best of `hits`, best first; equal scores in `order`'s order (SegmentList::before), or
/// by chunk id without one.
std::vector<Hit> best_hits(std::vector<Hit> hits, std::size_t k, const SegmentList* order = nullptr);

}  // namespace rag
