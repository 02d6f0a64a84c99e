#pragma once
// Adding up per-chunk scores for one query and taking the best k: the inner loop that every
// term-at-a-time retriever shares. The dense score array, and the list of the chunks touched,
// are borrowed from a per-thread pool and only the touched entries are reset, so a query costs
// no allocation or page clearing in proportion to the corpus.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "rag/retriever.hpp"

namespace rag {

/// Zeroed memory for arrays as long as the corpus, taken fresh from the kernel: its pages are zero
/// until written, so nothing is cleared up front, and past kHugeFrom bytes it asks for
/// transparent huge pages (where the system grants them on request), so that the first touch of
/// each 2 MB costs one page fault rather than 512. A process that runs one query on a large index
/// otherwise spends more time faulting in its score arrays than scoring.
class ZeroedMemory {
 public:
  static constexpr std::size_t kHugeFrom = std::size_t{256} << 10;
  ZeroedMemory() = default;
  ~ZeroedMemory();
  ZeroedMemory(ZeroedMemory&& other) noexcept;
  ZeroedMemory& operator=(ZeroedMemory&& other) noexcept;
  ZeroedMemory(const ZeroedMemory&) = delete;
  ZeroedMemory& operator=(const ZeroedMemory&) = delete;

  /// At least `bytes` bytes, all zero once it grew (what was written is gone). Throws
  /// std::bad_alloc when the kernel refuses.
  void grow(std::size_t bytes);
  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

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
  const std::uint8_t* scored_flags() const { return scratch_->seen; }
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
    ZeroedMemory memory;  ///< the scores, then the flags
    std::size_t chunks = 0;
    double* scores = nullptr;
    std::uint8_t* seen = nullptr;
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
