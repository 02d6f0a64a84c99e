#include "rag/paired_test.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "rag/error.hpp"

namespace rag {

double sign_test(std::size_t wins, std::size_t losses) {
  const std::size_t n = wins + losses;
  if (n == 0) return 1.0;
  const std::size_t tail = std::min(wins, losses);
  // P(X <= tail) for X ~ Binomial(n, 1/2), summed in log space to stay exact for large n.
  double p = 0;
  for (std::size_t i = 0; i <= tail; ++i)
    p += std::exp(std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                  std::lgamma(static_cast<double>(n - i) + 1) - static_cast<double>(n) * std::log(2.0));
  return std::min(1.0, 2 * p);
}

PairedComparison compare_paired(std::span<const double> a, std::span<const double> b, std::size_t resamples,
                                std::uint64_t seed) {
  if (a.size() != b.size()) throw Error("paired comparison of score lists of different lengths");
  PairedComparison c;
  const std::size_t n = a.size();
  if (n == 0) return c;
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) {
    d[i] = b[i] - a[i];
    c.mean_difference += d[i] / static_cast<double>(n);
    if (d[i] > 0) ++c.wins;
    else if (d[i] < 0) ++c.losses;
    else ++c.ties;
  }
  c.sign_p = sign_test(c.wins, c.losses);

  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  std::vector<double> means(resamples);
  std::size_t at_or_below = 0, at_or_above = 0;
  for (auto& mean : means) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += d[pick(random)];
    mean = sum / static_cast<double>(n);
    at_or_below += mean <= 0;
    at_or_above += mean >= 0;
  }
  c.resamples = resamples;
  if (resamples > 0) {
    std::sort(means.begin(), means.end());
    const auto at = [&](double q) { return means[std::min(resamples - 1, static_cast<std::size_t>(q * static_cast<double>(resamples)))]; };
    c.ci_low = at(0.025);
    c.ci_high = at(0.975);
    const double r = static_cast<double>(resamples);
    c.bootstrap_p = std::min(1.0, 2 * std::min(static_cast<double>(at_or_below) / r, static_cast<double>(at_or_above) / r));
  }
  return c;
}

}  // namespace rag
