#pragma once
// Adding up per-chunk scores for one query and taking the best k: the inner loop that every
// term-at-a-time retriever shares.
#include <cstdint>
#include <vector>

#include "rag/retriever.hpp"

namespace rag {

class ScoreAccumulator {
 public:
  explicit ScoreAccumulator(std::size_t chunks) : scores_(chunks, 0.0), seen_(chunks, false) {}

  void add(std::uint32_t chunk, double score) {
    if (!seen_[chunk]) {
      seen_[chunk] = true;
      touched_.push_back(chunk);
    }
    scores_[chunk] += score;
  }
  /// Multiplies the chunk's score, e.g. to normalise it, once all terms are added.
  void scale(std::uint32_t chunk, double factor) { scores_[chunk] *= factor; }
  const std::vector<std::uint32_t>& touched() const { return touched_; }
  double score(std::uint32_t chunk) const { return scores_[chunk]; }

  /// The `k` best chunks that received any score, best first; ties go to the lower chunk id.
  std::vector<Hit> top(std::size_t k) const;

 private:
  std::vector<double> scores_;
  std::vector<bool> seen_;
  std::vector<std::uint32_t> touched_;
};

}  // namespace rag
