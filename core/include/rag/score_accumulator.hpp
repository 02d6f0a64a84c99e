#pragma once
// Adding up per-chunk scores for one query and taking the best k: the inner loop that every
// term-at-a-time retriever shares. The dense score array, and the list of the chunks touched,
// are borrowed from a per-thread pool and only the touched entries are reset, so a query costs
// no allocation or page clearing in proportion to the corpus.
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
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
  /// add(chunks[i], scores[i]) for each i, in order: one call for a whole posting list, whose
  /// loop keeps no branch on whether a chunk is new.
  void add(std::span<const std::uint32_t> chunks, std::span<const double> scores);
  /// Whether the chunk has received a score. A very common term may add only to those, which
  /// spares making nearly every chunk a candidate (the "continue" strategy of Moffat and
  /// Zobel's term-at-a-time evaluation).
  bool has(std::uint32_t chunk) const { return scratch_->seen[chunk] != 0; }
  /// has() of every chunk as a byte, 1 when it has received a score: for loops that test many.
  const std::uint8_t* scored_flags() const { return scratch_->seen.data(); }
  /// add() to a chunk that has received a score already, without testing it.
  void add_to_scored(std::uint32_t chunk, double score) { scratch_->scores[chunk] += score; }
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
    std::vector<std::uint32_t> touched;  ///< an empty list whose capacity the next query reuses
  };

 private:
  void release();

  std::unique_ptr<Scratch> scratch_;
  std::vector<std::uint32_t> touched_;
};

/// The `k` best of hits offered one at a time, without a list of them all: those kept are a heap
/// whose top is the worst of them, and most hits lose to it at the first comparison, a
/// well-predicted branch (nth_element's partitions are not). Equal scores in `order`'s order
/// (SegmentList::before), or by chunk id without one.
class BestHits {
 public:
  BestHits(std::size_t k, const SegmentList* order) : k_(k), order_(order) {}
  void offer(const Hit& hit) {
    if (hit.score < worst_) return;
    challenge(hit);
  }
  /// The best k offered, best first.
  std::vector<Hit> take();

 private:
  void challenge(const Hit& hit);
  bool better(const Hit& x, const Hit& y) const;

  std::size_t k_;
  const SegmentList* order_;
  std::vector<Hit> kept_;
  bool heaped_ = false;  // once k are kept: the heap is made at the first hit after them
  double worst_ = -std::numeric_limits<double>::infinity();  // the top's score once heaped
};

/// The `k` best of `hits`, best first (see BestHits).
std::vector<Hit> best_hits(std::vector<Hit> hits, std::size_t k, const SegmentList* order = nullptr);

}  // namespace rag
