#pragma once
// Is pipeline B better than A on the same questions, or is it noise? Two paired tests over
// per-question scores: a bootstrap of the mean difference and the sign test.
#include <cstdint>
#include <span>

namespace rag {

struct PairedComparison {
  double mean_difference = 0;  ///< mean of b - a
  double ci_low = 0;           ///< 95% bootstrap confidence interval of the mean difference
  double ci_high = 0;
  double bootstrap_p = 1;  ///< two-sided: how often a resample's mean falls on the other side of 0
  std::size_t resamples = 0;
  std::size_t wins = 0;    ///< questions where b > a
  std::size_t losses = 0;  ///< questions where b < a
  std::size_t ties = 0;
  double sign_p = 1;  ///< two-sided exact binomial test of wins against losses (ties dropped)
};

/// Compares per-question scores `b` against `a` (same length, same questions in order).
/// Deterministic: the bootstrap draws from a generator seeded with `seed`.
PairedComparison compare_paired(std::span<const double> a, std::span<const double> b, std::size_t resamples = 10000,
                                std::uint64_t seed = 20251122);

/// Two-sided exact sign-test p-value for `wins` against `losses`.
double sign_test(std::size_t wins, std::size_t losses);

}  // namespace rag
