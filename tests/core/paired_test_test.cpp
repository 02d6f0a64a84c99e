#include "rag/paired_test.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace rag {
namespace {

TEST(SignTest, HandComputedValues) {
  EXPECT_DOUBLE_EQ(sign_test(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(sign_test(5, 0), 2.0 / 32.0);          // P(X <= 0) = 1/32, two-sided
  EXPECT_NEAR(sign_test(8, 2), 2.0 * 56.0 / 1024.0, 1e-12);  // (1 + 10 + 45) / 2^10
  EXPECT_DOUBLE_EQ(sign_test(3, 3), 1.0);
}

TEST(ComparePaired, CountsAndMeanDifference) {
  const std::vector<double> a = {1, 0, 0, 1, 0.5, 0};
  const std::vector<double> b = {1, 1, 1, 0, 0.5, 1};
  const PairedComparison c = compare_paired(a, b, 2000);
  EXPECT_EQ(c.wins, 3u);
  EXPECT_EQ(c.losses, 1u);
  EXPECT_EQ(c.ties, 2u);
  EXPECT_DOUBLE_EQ(c.mean_difference, 2.0 / 6.0);
  EXPECT_LE(c.ci_low, c.mean_difference);
  EXPECT_GE(c.ci_high, c.mean_difference);
  EXPECT_DOUBLE_EQ(c.sign_p, sign_test(3, 1));
}

TEST(ComparePaired, ClearWinIsSignificantAndNoDifferenceIsNot) {
  std::vector<double> a(100, 0.0), b(100, 0.0);
  for (std::size_t i = 0; i < 40; ++i) b[i] = 1.0;
  const PairedComparison win = compare_paired(a, b);
  EXPECT_GT(win.ci_low, 0.0);
  EXPECT_LT(win.bootstrap_p, 0.001);
  EXPECT_LT(win.sign_p, 1e-9);
  const PairedComparison same = compare_paired(a, a);
  EXPECT_DOUBLE_EQ(same.mean_difference, 0.0);
  EXPECT_DOUBLE_EQ(same.bootstrap_p, 1.0);
  EXPECT_DOUBLE_EQ(same.sign_p, 1.0);
}

TEST(ComparePaired, IsDeterministic) {
  const std::vector<double> a = {0, 1, 0, 1, 1, 0, 0.3};
  const std::vector<double> b = {1, 1, 0, 0, 1, 1, 0.7};
  EXPECT_EQ(compare_paired(a, b).ci_low, compare_paired(a, b).ci_low);
}

}  // namespace
}  // namespace rag
