#include "rag/score_accumulator.hpp"

#include <algorithm>

namespace rag {

std::vector<Hit> ScoreAccumulator::top(std::size_t k) const {
  std::vector<Hit> hits;
  hits.reserve(touched_.size());
  for (const std::uint32_t c : touched_) hits.push_back({c, scores_[c]});
  const auto better = [](const Hit& x, const Hit& y) { return x.score != y.score ? x.score > y.score : x.chunk < y.chunk; };
  const std::size_t n = std::min(k, hits.size());
  std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(n), hits.end(), better);
  hits.resize(n);
  return hits;
}

}  // namespace rag
