// The stepper's vectorised passes against Boost.Odeint's own scalar operations (the independent
// truth): bit for bit, for every term count, on lengths that leave vector tails.
#include "ripple/model/stage_math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <boost/numeric/odeint/algebra/default_operations.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace ripple::model {
namespace {

using ops = boost::numeric::odeint::default_operations;

std::vector<double> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::vector<double> v(n);
  for (double& x : v)
    x = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), std::uniform_int_distribution<int>(-20, 20)(rng));
  return v;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// odeint's scale_sumK applied element by element, as range_algebra does.
template <std::size_t K, class Op>
std::vector<double> reference(const Op& op, const std::array<std::vector<double>, 8>& in, std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (K == 1) op(out[i], in[0][i]);
    if constexpr (K == 2) op(out[i], in[0][i], in[1][i]);
    if constexpr (K == 3) op(out[i], in[0][i], in[1][i], in[2][i]);
    if constexpr (K == 4) op(out[i], in[0][i], in[1][i], in[2][i], in[3][i]);
    if constexpr (K == 5) op(out[i], in[0][i], in[1][i], in[2][i], in[3][i], in[4][i]);
    if constexpr (K == 6) op(out[i], in[0][i], in[1][i], in[2][i], in[3][i], in[4][i], in[5][i]);
    if constexpr (K == 7) op(out[i], in[0][i], in[1][i], in[2][i], in[3][i], in[4][i], in[5][i], in[6][i]);
    if constexpr (K == 8) op(out[i], in[0][i], in[1][i], in[2][i], in[3][i], in[4][i], in[5][i], in[6][i], in[7][i]);
  }
  return out;
}

template <std::size_t K, class Op>
void expect_same_as_odeint(const Op& op, const std::array<double, 8>& c, const std::array<std::vector<double>, 8>& in,
                           std::size_t n) {
  std::array<const double*, K> p;
  for (std::size_t k = 0; k < K; ++k) p[k] = in[k].data();
  std::vector<double> got(n);
  linear_combination(got.data(), p, std::span<const double>(c.data(), K), n);
  EXPECT_TRUE(same_bits(got, reference<K>(op, in, n))) << K << " terms, n = " << n;
}

TEST(StageMath, LinearCombinationIsBitwiseOdeintsScaleSum) {
  std::mt19937_64 rng(11);
  for (const std::size_t n : {0u, 1u, 7u, 8u, 13u, 1000u, 1027u}) {
    std::array<std::vector<double>, 8> in;
    for (auto& v : in) v = random_vector(n, rng);
    const std::array<double, 8> c{1.0, 0.2, -3.0 / 40, 44.0 / 45, -56.0 / 15, 32.0 / 9, 19372.0 / 6561, -1e-3};
    expect_same_as_odeint<1>(ops::scale_sum1<double>(c[0]), c, in, n);
    expect_same_as_odeint<2>(ops::scale_sum2<double, double>(c[0], c[1]), c, in, n);
    expect_same_as_odeint<3>(ops::scale_sum3<double, double, double>(c[0], c[1], c[2]), c, in, n);
    expect_same_as_odeint<4>(ops::scale_sum4<double, double, double, double>(c[0], c[1], c[2], c[3]), c, in, n);
    expect_same_as_odeint<5>(ops::scale_sum5<double, double, double, double, double>(c[0], c[1], c[2], c[3], c[4]), c, in, n);
    expect_same_as_odeint<6>(ops::scale_sum6<double, double, double, double, double, double>(c[0], c[1], c[2], c[3], c[4], c[5]),
                             c, in, n);
    expect_same_as_odeint<7>(
        ops::scale_sum7<double, double, double, double, double, double, double>(c[0], c[1], c[2], c[3], c[4], c[5], c[6]), c, in,
        n);
    expect_same_as_odeint<8>(ops::scale_sum8<double, double, double, double, double, double, double, double>(
                                 c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]),
                             c, in, n);
  }
}

TEST(StageMath, LinearCombinationMayWriteOverAnInput) {
  std::mt19937_64 rng(12);
  std::vector<double> x = random_vector(1001, rng), k = random_vector(1001, rng);
  std::vector<double> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) want[i] = 1.0 * x[i] + 0.25 * k[i];
  const std::array<const double*, 2> p{x.data(), k.data()};
  const std::array<double, 2> c{1.0, 0.25};
  linear_combination(x.data(), p, c, x.size());  // in place, as range_algebra allows
  EXPECT_TRUE(same_bits(x, want));
}

TEST(StageMath, MaxErrorRatioIsBitwiseOdeintsRelErrorThenMaximum) {
  std::mt19937_64 rng(13);
  for (const std::size_t n : {1u, 9u, 1031u}) {
    const std::vector<double> err = random_vector(n, rng), x = random_vector(n, rng), dxdt = random_vector(n, rng);
    const ops::rel_error<double> op(1e-8, 1e-6, 1.0, 0.5 * 1e-3);
    std::vector<double> ratio = err;
    double want = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      op(ratio[i], x[i], dxdt[i]);
      want = std::max(want, ratio[i]);
    }
    const RelativeError e{1e-8, 1e-6, 1.0, 0.5 * 1e-3};
    EXPECT_EQ(max_error_ratio(err.data(), x.data(), dxdt.data(), e, n), want) << n;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(error_ratio(e, err[i], x[i], dxdt[i]), ratio[i]);
    std::vector<double> bad = err;
    bad[n - 1] = std::numeric_limits<double>::quiet_NaN();  // in the vector tail: the step must be rejected
    EXPECT_EQ(max_error_ratio(bad.data(), x.data(), dxdt.data(), e, n), HUGE_VAL);
  }
}

TEST(StageMath, MaxAbsAndNaN) {
  std::vector<double> v{0.5, -3.0, 2.0, -0.0, 1.0, 2.5, -2.75, 0.0, 1.0};
  EXPECT_EQ(max_abs(v.data(), v.size()), 3.0);
  EXPECT_EQ(max_abs(v.data(), 0), 0.0);
  for (std::size_t at = 0; at < v.size(); ++at) {  // a NaN anywhere, also in a vector tail, rejects the step
    std::vector<double> w = v;
    w[at] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(max_abs(w.data(), w.size()), HUGE_VAL) << at;
  }
}

}  // namespace
}  // namespace ripple::model
