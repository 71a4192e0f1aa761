// Ripple's vector tanh against long-double tanhl (the independent truth), its special values, and
// the property the simulator relies on: an element's result does not depend on its neighbours.
#include "ripple/model/vector_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tanh_of.hpp"  // model/src: the scalar body, compiled here for three instruction sets

namespace ripple::model {
namespace {

double ulps_from_exact(double got, long double exact) {
  const double e = static_cast<double>(exact);
  const double ulp = std::nextafter(std::fabs(e), HUGE_VAL) - std::fabs(e);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

TEST(VectorTanh, WithinThreeUlpOverEveryScale) {
  std::mt19937_64 rng(7);
  std::vector<double> x;
  for (int i = 0; i < 400000; ++i) {
    const double m = std::uniform_real_distribution<double>(-1, 1)(rng);
    x.push_back(std::ldexp(m, std::uniform_int_distribution<int>(-1070, 6)(rng)));  // subnormals to 64
  }
  for (int k = -25 * 1024; k <= 25 * 1024; ++k) x.push_back(k / 1024.0);  // -25 to 25, exactly
  std::vector<double> y = x;
  tanh_inplace(y.data(), y.size());
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = ulps_from_exact(y[i], tanhl(static_cast<long double>(x[i])));
    ASSERT_LE(e, 3.0) << "tanh(" << x[i] << ") = " << y[i];
    worst = std::max(worst, e);
  }
  RecordProperty("worst_ulp", std::to_string(worst));
}

TEST(VectorTanh, SpecialValues) {
  std::vector<double> x = {
      0.0,    -0.0, HUGE_VAL, -HUGE_VAL, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::denorm_min(),
      -1e308, 19.5, 1e-200};
  tanh_inplace(x.data(), x.size());
  EXPECT_EQ(x[0], 0.0);
  EXPECT_FALSE(std::signbit(x[0]));
  EXPECT_EQ(x[1], 0.0);
  EXPECT_TRUE(std::signbit(x[1]));
  EXPECT_EQ(x[2], 1.0);
  EXPECT_EQ(x[3], -1.0);
  EXPECT_TRUE(std::isnan(x[4]));  // a NaN phase must reach the error norm and reject the step
  EXPECT_EQ(x[5], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(x[6], -1.0);
  EXPECT_EQ(x[7], 1.0);
  EXPECT_EQ(x[8], 1e-200);
}

TEST(VectorTanh, ElementsAreIndependentOfLengthAndPosition) {
  std::vector<double> x(37);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1.7 * static_cast<double>(i)) * 3.0;
  std::vector<double> whole = x;
  tanh_inplace(whole.data(), whole.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double one = x[i];
    tanh_inplace(&one, 1);
    EXPECT_EQ(one, whole[i]) << i;
  }
}

TEST(VectorTanh, OfDifferenceIsTanhOfTheDifferences) {
  std::vector<double> l(101), r(101), want(101), got(101);
  for (std::size_t i = 0; i < l.size(); ++i) {
    l[i] = std::sin(0.9 * static_cast<double>(i)) * 7.0;
    r[i] = std::cos(1.3 * static_cast<double>(i)) * 5.0;
    want[i] = l[i] - r[i];
  }
  tanh_inplace(want.data(), want.size());
  tanh_of_difference(l.data(), r.data(), got.data(), got.size());
  for (std::size_t i = 0; i < l.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
}

#if defined(__x86_64__)
__attribute__((noinline, target("avx512f"))) void tanh_avx512(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = detail::tanh_of(x[i]);
}
__attribute__((noinline, target("avx2,fma"))) void tanh_avx2(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = detail::tanh_of(x[i]);
}
__attribute__((noinline)) void tanh_baseline(double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = detail::tanh_of(x[i]);
}

// The same bits from every instruction set the library is built for: results never depend on which
// variant a node's CPU picks.
TEST(VectorTanh, EveryInstructionSetGivesTheSameBits) {
  __builtin_cpu_init();
  std::mt19937_64 rng(3);
  std::vector<double> x;
  for (int i = 0; i < 200000; ++i)
    x.push_back(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), std::uniform_int_distribution<int>(-60, 6)(rng)));
  std::vector<double> base = x, lib = x;
  tanh_baseline(base.data(), base.size());
  tanh_inplace(lib.data(), lib.size());
  EXPECT_EQ(0, std::memcmp(base.data(), lib.data(), x.size() * sizeof(double)));
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    std::vector<double> v = x;
    tanh_avx2(v.data(), v.size());
    EXPECT_EQ(0, std::memcmp(base.data(), v.data(), x.size() * sizeof(double)));
  }
  if (__builtin_cpu_supports("avx512f")) {
    std::vector<double> v = x;
    tanh_avx512(v.data(), v.size());
    EXPECT_EQ(0, std::memcmp(base.data(), v.data(), x.size() * sizeof(double)));
  }
}
#endif

}  // namespace
}  // namespace ripple::model
