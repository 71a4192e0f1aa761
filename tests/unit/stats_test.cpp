// Robust statistics and line fits of the analysis against values worked out by hand.
#include "ripple/analysis/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace ripple::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Stats, MedianOfOddEvenAndNaN) {
  EXPECT_EQ(median(std::vector<double>{3, 1, 2}), 2);
  EXPECT_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median(std::vector<double>{kNaN, 5, kNaN, 1, 3}), 3);  // NaN left out
  EXPECT_TRUE(std::isnan(median(std::vector<double>{kNaN})));
  EXPECT_TRUE(std::isnan(median(std::vector<double>{})));
}

TEST(Stats, MadIsTheMedianDistanceFromTheMedian) {
  // median 3; distances 2, 1, 0, 1, 97: their median 1 (an outlier does not move it)
  EXPECT_EQ(mad(std::vector<double>{1, 2, 3, 4, 100}), 1);
  EXPECT_EQ(mad(std::vector<double>{7, 7, 7}), 0);
}

TEST(Stats, LineFitRecoversAnExactLineAndItsR2) {
  const std::vector<double> x{1, 2, 3, 4, kNaN}, y{3, 5, 7, 9, 1000};
  const LineFit f = fit_line(x, y);
  EXPECT_EQ(f.points, 4);
  EXPECT_NEAR(f.slope, 2, 1e-12);
  EXPECT_NEAR(f.intercept, 1, 1e-12);
  EXPECT_NEAR(f.r2, 1, 1e-12);
}

TEST(Stats, LineFitOfScatterHasTheTextbookSlopeAndR2) {
  // x 0..3, y 0, 2, 1, 3: slope Sxy / Sxx = 4 / 5 = 0.8, r2 = Sxy^2 / (Sxx Syy) = 16 / (5 * 5) = 0.64
  const LineFit f = fit_line(std::vector<double>{0, 1, 2, 3}, std::vector<double>{0, 2, 1, 3});
  EXPECT_NEAR(f.slope, 0.8, 1e-12);
  EXPECT_NEAR(f.r2, 0.64, 1e-12);
}

TEST(Stats, LineFitNeedsTwoDistinctX) {
  EXPECT_TRUE(std::isnan(fit_line(std::vector<double>{1, 1}, std::vector<double>{2, 3}).slope));
  EXPECT_TRUE(std::isnan(fit_line(std::vector<double>{1}, std::vector<double>{2}).slope));
}

}  // namespace
}  // namespace ripple::analysis
