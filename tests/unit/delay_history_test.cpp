#include "ripple/model/delay_history.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace ripple::model {
namespace {

// Cubic Hermite interpolation reproduces any cubic exactly.
TEST(DelayHistory, HermiteIsExactForCubics) {
  const auto f = [](double t) { return 2.0 - t + 0.5 * t * t - 0.25 * t * t * t; };
  const auto df = [](double t) { return -1.0 + t - 0.75 * t * t; };
  const std::vector<double> omega{3.0};
  DelayHistory h(omega);
  for (double t : {0.0, 0.3, 0.5, 1.2}) h.push(t, std::vector<double>{f(t)}, std::vector<double>{df(t)});
  for (double s : {0.0, 0.1, 0.45, 0.9, 1.2}) EXPECT_NEAR(h.value(0, s), f(s), 1e-14) << s;
  // Before the first entry the oscillator ran freely at omega.
  EXPECT_NEAR(h.value(0, -0.5), f(0.0) - 0.5 * 3.0, 1e-14);
}

TEST(DelayHistory, DiscontinuityAndTrimming) {
  const std::vector<double> omega{1.0, 1.0};
  DelayHistory h(omega);
  h.push(0.0, std::vector<double>{0.0, 0.0}, std::vector<double>{1.0, 1.0});
  h.push(1.0, std::vector<double>{1.0, 1.0}, std::vector<double>{1.0, 1.0});
  h.push(1.0, std::vector<double>{0.5, 1.0}, std::vector<double>{1.0, 1.0});  // kick at t = 1
  h.push(2.0, std::vector<double>{1.5, 2.0}, std::vector<double>{1.0, 1.0});
  EXPECT_NEAR(h.value(0, 0.5), 0.5, 1e-15);
  EXPECT_NEAR(h.value(0, 1.0), 0.5, 1e-15);  // from the kick on, the later entry wins
  EXPECT_NEAR(h.value(0, 1.5), 1.0, 1e-15);
  double both[2];
  h.values(1.5, both);
  EXPECT_NEAR(both[1], 1.5, 1e-15);
  // The driver's window decides the side of a discontinuity at its ends, whatever the rounding.
  h.set_window(0.0, 1.0);
  EXPECT_NEAR(h.value(0, std::nextafter(1.0, 2.0)), 1.0, 1e-15);  // left limit at the window's end
  h.set_window(1.0, 2.0);
  EXPECT_NEAR(h.value(0, std::nextafter(1.0, 0.0)), 0.5, 1e-15);  // right limit at its start
  h.set_window(-HUGE_VAL, HUGE_VAL);
  h.truncate_after(1.0);
  EXPECT_EQ(h.entries(), 3u);
  h.discard_before(1.0);
  EXPECT_EQ(h.entries(), 1u);                  // the last entry at or before 1.0 remains
  EXPECT_NEAR(h.value(0, 1.25), 0.75, 1e-15);  // tangent past the last entry
}

// values() computes the basis once per call and streams the columns: bit for bit value() of each.
TEST(DelayHistory, ValuesAreBitwiseValueOfEachColumn) {
  const std::size_t m = 37;
  std::vector<double> omega(m);
  for (std::size_t i = 0; i < m; ++i) omega[i] = 1.0 + 0.1 * static_cast<double>(i);
  DelayHistory h(omega);
  for (const double t : {0.0, 0.31, 0.5, 1.17}) {
    std::vector<double> v(m), d(m);
    for (std::size_t i = 0; i < m; ++i) {
      v[i] = std::sin(static_cast<double>(i) + 3 * t);
      d[i] = 3 * std::cos(static_cast<double>(i) + 3 * t);
    }
    h.push(t, v, d);
  }
  std::vector<double> all(m);
  for (const double s : {-0.4, 0.0, 0.1, 0.31, 0.4999, 0.93, 1.17, 1.5}) {
    h.values(s, all.data());
    for (std::size_t i = 0; i < m; ++i) {
      const double one = h.value(i, s);
      EXPECT_EQ(std::memcmp(&all[i], &one, sizeof one), 0) << "s = " << s << ", column " << i;
    }
  }
}

}  // namespace
}  // namespace ripple::model
