// The HPCG 3.1 process-grid factorisation, against its documented special cases and the least-
// surface rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "hpcg_problem.hpp"

namespace ripple::hpcg {
namespace {

std::array<int, 3> grid(int ranks) {
  std::array<int, 3> g{};
  process_grid(ranks, g[0], g[1], g[2]);
  return g;
}

TEST(HpcgProcessGrid, SpecialCasesAsHpcg) {
  EXPECT_EQ(grid(1), (std::array<int, 3>{1, 1, 1}));
  EXPECT_EQ(grid(2), (std::array<int, 3>{2, 1, 1}));
  EXPECT_EQ(grid(4), (std::array<int, 3>{2, 2, 1}));
  EXPECT_EQ(grid(8), (std::array<int, 3>{2, 2, 2}));
  EXPECT_EQ(grid(16), (std::array<int, 3>{4, 2, 2}));  // p^m: exponent split 2, 1, 1
  EXPECT_EQ(grid(6), (std::array<int, 3>{2, 3, 1}));   // two distinct primes
  EXPECT_EQ(grid(12), (std::array<int, 3>{2, 3, 2}));  // p^2 q: z is the repeated prime
  EXPECT_EQ(grid(18), (std::array<int, 3>{2, 3, 3}));
  EXPECT_EQ(grid(30), (std::array<int, 3>{2, 3, 5}));  // three distinct primes
  EXPECT_EQ(grid(7), (std::array<int, 3>{7, 1, 1}));
}

TEST(HpcgProcessGrid, GeneralCaseHasTheLeastSurface) {
  for (const int n : {24, 36, 48, 60, 64, 72, 96, 120, 144, 360}) {
    const auto g = grid(n);
    ASSERT_EQ(g[0] * g[1] * g[2], n);
    const double area = double(g[0]) * g[1] + double(g[1]) * g[2] + double(g[0]) * g[2];
    for (int x = 1; x <= n; ++x)
      for (int y = 1; x * y <= n; ++y)
        if (n % (x * y) == 0 && x > 1 && y > 1) {
          const int z = n / x / y;
          EXPECT_LE(area, double(x) * y + double(y) * z + double(x) * z) << n;
        }
  }
  auto g = grid(24);
  std::sort(g.begin(), g.end());
  EXPECT_EQ(g, (std::array<int, 3>{2, 3, 4}));
}

}  // namespace
}  // namespace ripple::hpcg
