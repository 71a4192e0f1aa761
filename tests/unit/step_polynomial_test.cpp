// The per-step polynomials behind /iteration_end and their first crossings (step_polynomial.hpp).
#include "ripple/model/step_polynomial.hpp"

#include <gtest/gtest.h>

#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

namespace ripple::model {
namespace {

double quintic(const std::array<double, 6>& c, double s) {
  double v = 0;
  for (int j = 5; j >= 0; --j) v = v * s + c[static_cast<std::size_t>(j)];
  return v;
}

TEST(StepPolynomial, ThroughSixValuesIsTheQuinticEverywhere) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 50; ++trial) {
    std::array<double, 6> c{};
    for (double& v : c) v = u(rng);
    c[0] += 1000.0;  // a phase of many periods: the level is taken off without cancellation
    const std::array<double, 6> s{0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0};
    std::array<double, 6> y{};
    for (std::size_t j = 0; j < 6; ++j) y[j] = quintic(c, s[j]);
    const StepPolynomial p = StepPolynomial::through(StepNodes::of(s), y);
    for (const double x : {0.0, 0.05, 0.33, 0.5, 0.71, 0.97, 1.0}) {
      EXPECT_NEAR(p(x), quintic(c, x), 1e-12);
      EXPECT_NEAR(p.minus(1000.0, x), quintic(c, x) - 1000.0, 1e-12);
    }
    double slope = 0;
    (void)p.minus(0.0, 0.3, slope);
    const double h = 1e-6;
    EXPECT_NEAR(slope, (quintic(c, 0.3 + h) - quintic(c, 0.3 - h)) / (2 * h), 1e-6);
  }
}

// The simulator takes the differences of a step's oscillators together: the same bits as one by one.
TEST(StepPolynomial, DifferencesOfManyAreTheBitsOfEach) {
  const std::array<double, 6> s{0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0};
  const StepNodes nodes = StepNodes::of(s);
  const std::size_t count = 7;
  std::vector<double> values(6 * count);
  for (std::size_t j = 0; j < 6; ++j)
    for (std::size_t i = 0; i < count; ++i)
      values[j * count + i] = 300.0 + 0.37 * static_cast<double>(i) + 1.1 * s[j] * (1 + 0.1 * s[j]);
  std::vector<double> d = values;
  std::array<double*, 6> rows{};
  for (std::size_t j = 0; j < 6; ++j) rows[j] = d.data() + j * count;
  divided_differences(nodes, rows, count);
  for (std::size_t i = 0; i < count; ++i) {
    std::array<double, 6> y{}, c{};
    for (std::size_t j = 0; j < 6; ++j) y[j] = values[j * count + i];
    for (std::size_t j = 1; j < 6; ++j) c[j - 1] = d[j * count + i];
    const StepPolynomial one = StepPolynomial::through(nodes, y);
    const StepPolynomial many = StepPolynomial::through(nodes, y, std::span<const double>(c.data(), 5));
    for (const double x : {0.1, 0.45, 0.9}) EXPECT_EQ(one(x), many(x));
  }
}

TEST(StepPolynomial, HermiteMatchesValuesAndSlopesAtBothEnds) {
  const StepPolynomial p = StepPolynomial::hermite(2.0, 0.5, 3.0, -0.25);
  double slope = 0;
  EXPECT_DOUBLE_EQ(p.minus(0.0, 0.0, slope), 2.0);
  EXPECT_DOUBLE_EQ(slope, 0.5);
  EXPECT_DOUBLE_EQ(p.minus(0.0, 1.0, slope), 3.0);
  EXPECT_DOUBLE_EQ(slope, -0.25);
  // A straight line stays one: free oscillators under rk4 cross exactly.
  const StepPolynomial line = StepPolynomial::hermite(10.0, 4.0, 14.0, 4.0);
  for (const double s : {0.1, 0.5, 0.9}) EXPECT_DOUBLE_EQ(line(s), 10.0 + 4.0 * s);
}

TEST(FirstCrossing, ALineCrossesWhereItShould) {
  const StepPolynomial line = StepPolynomial::hermite(1000.0, 3.0, 1003.0, 3.0);
  const double s = first_crossing(line, 1001.7, 0.0, 1.0);
  EXPECT_NEAR(s, (1001.7 - 1000.0) / 3.0, 4e-16);  // 1001.7 as a double: 1000 + 1.70000000000005
  EXPECT_GE(line.minus(1001.7, s), 0.0);           // the first s at or above the level, to a few ulp
  EXPECT_LT(line.minus(1001.7, s - 1e-15), 0.0);
}

TEST(FirstCrossing, TheFirstOfSeveralRoots) {
  // p(s) - level = (s - 0.2)(s - 0.5)(s - 0.8) has three roots; it rises through the level at 0.2.
  const std::array<double, 4> s{0.0, 0.3, 0.7, 1.0};
  std::array<double, 4> y{};
  for (std::size_t j = 0; j < 4; ++j) y[j] = 5.0 + (s[j] - 0.2) * (s[j] - 0.5) * (s[j] - 0.8);
  const StepPolynomial p = StepPolynomial::through(StepNodes::of(s), y);
  // Each value carries half an ulp of 5 (4.4e-16); the slope is 0.18 at both roots.
  EXPECT_NEAR(first_crossing(p, 5.0, 0.0, 1.0), 0.2, 1e-14);
  // From past the second root (where it falls back), the third.
  EXPECT_NEAR(first_crossing(p, 5.0, 0.6, 1.0), 0.8, 1e-14);
}

TEST(FirstCrossing, AtTheStartNowhereAndAtTheEnd) {
  const StepPolynomial line = StepPolynomial::hermite(0.0, 1.0, 1.0, 1.0);
  EXPECT_EQ(first_crossing(line, 0.1, 0.5, 1.0), 0.5);  // reached before lo
  EXPECT_NEAR(first_crossing(line, 0.25, 0.25, 1.0), 0.25, 4.5e-16);
  EXPECT_TRUE(std::isnan(first_crossing(line, 2.0, 0.0, 1.0)));
  EXPECT_EQ(first_crossing(line, 1.0, 0.0, 1.0), 1.0);
  EXPECT_NEAR(first_crossing(line, 0.6, 0.5, 0.75), 0.6, 4.5e-16);
  EXPECT_NEAR(first_crossing(line, 0.7, 0.5, 0.7), 0.7, 4.5e-16);  // reached at hi, inside a cell
  EXPECT_TRUE(std::isnan(first_crossing(line, 0.7, 0.5, 0.69)));
}

// The tracker looks for a crossing in whatever part of the step lies between two flush times: the
// answer must not depend on it, or /iteration_end would depend on when it is written.
TEST(FirstCrossing, TheSameBitsFromAnyWindowAroundTheRoot) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    // A rising quintic-ish phase over one step: y0 near 700 rad, a rise of 0.1 to 3 rad.
    const double rise = 0.1 + 2.9 * u(rng), bend = 0.3 * (u(rng) - 0.5);
    const std::array<double, 6> s{0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0};
    std::array<double, 6> y{};
    for (std::size_t j = 0; j < 6; ++j) y[j] = 700.0 + rise * s[j] + bend * s[j] * s[j] * (1 - s[j]) * rise;
    const StepPolynomial p = StepPolynomial::through(StepNodes::of(s), y);
    const double level = 700.0 + rise * (0.05 + 0.9 * u(rng));
    const double root = first_crossing(p, level, 0.0, 1.0);
    ASSERT_FALSE(std::isnan(root));
    for (const double cut : {0.25 * root, 0.5 * root, 0.99 * root}) {
      EXPECT_EQ(first_crossing(p, level, cut, 1.0), root) << trial;
      EXPECT_EQ(first_crossing(p, level, 0.0, root + (1 - root) * (cut / root)), root) << trial;
    }
  }
}

TEST(FirstCrossing, ATripleRootEndsTheIterationToo) {
  // (s - 0.6)^3: Newton only creeps there (by 2/3 per probe); the bisection safeguard ends it. In
  // double precision the polynomial is zero within about (1e-16)^(1/3) of the root.
  const std::array<double, 4> s{0.0, 0.25, 0.75, 1.0};
  std::array<double, 4> y{};
  for (std::size_t j = 0; j < 4; ++j) y[j] = (s[j] - 0.6) * (s[j] - 0.6) * (s[j] - 0.6);
  const StepPolynomial p = StepPolynomial::through(StepNodes::of(s), y);
  EXPECT_NEAR(first_crossing(p, 0.0, 0.0, 1.0), 0.6, 1e-5);
}

// odeint's dopri5 dense output is a quintic in s per element: six of its values (the step's ends
// and four inside) rebuild it, and the rebuilt polynomial agrees with calc_state anywhere else.
TEST(StepPolynomial, RebuildsDopri5DenseOutputExactly) {
  namespace odeint = boost::numeric::odeint;
  using State = std::vector<double>;
  const std::size_t n = 5;
  const auto rhs = [&](const State& x, State& dxdt, double /*t*/) {
    for (std::size_t i = 0; i < n; ++i)
      dxdt[i] = 2 * std::numbers::pi * (1.0 + 0.1 * static_cast<double>(i)) + 1.5 * std::sin(x[(i + 1) % n] - x[i]);
  };
  auto stepper = odeint::make_dense_output(1e-6, 1e-6, odeint::runge_kutta_dopri5<State>());
  State x0(n);
  for (std::size_t i = 0; i < n; ++i) x0[i] = 60.0 + 0.7 * static_cast<double>(i);  // about ten periods in
  stepper.initialize(x0, 0.0, 0.05);
  State node(n), at(n);
  double worst = 0, cubic_worst = 0;
  for (int step = 0; step < 20; ++step) {
    stepper.do_step(rhs);
    const double t0 = stepper.previous_time(), h = stepper.current_time() - t0;
    std::array<double, 6> s{0, 0, 0, 0, 0, 1};
    std::vector<std::array<double, 6>> y(n);
    State d0(n), d1(n);
    rhs(stepper.previous_state(), d0, t0);
    rhs(stepper.current_state(), d1, t0 + h);
    for (std::size_t i = 0; i < n; ++i) {
      y[i][0] = stepper.previous_state()[i];
      y[i][5] = stepper.current_state()[i];
    }
    for (std::size_t j = 1; j < 5; ++j) {
      const double t = t0 + h * (static_cast<double>(j) / 5.0);
      s[j] = (t - t0) / h;
      stepper.calc_state(t, node);
      for (std::size_t i = 0; i < n; ++i) y[i][j] = node[i];
    }
    for (const double frac : {0.07, 0.31, 0.5, 0.66, 0.93}) {
      const double t = t0 + frac * h;
      stepper.calc_state(t, at);
      for (std::size_t i = 0; i < n; ++i) {
        const StepPolynomial p = StepPolynomial::through(StepNodes::of(s), y[i]);
        worst = std::max(worst, std::abs(p((t - t0) / h) - at[i]));
        // A cubic (rk4's interpolant) does not do: the test can tell a wrong rebuild from a right one.
        const StepPolynomial cubic = StepPolynomial::hermite(y[i][0], h * d0[i], y[i][5], h * d1[i]);
        cubic_worst = std::max(cubic_worst, std::abs(cubic((t - t0) / h) - at[i]));
      }
    }
  }
  EXPECT_LT(worst, 1e-12);  // phases near 60 rad: a few ulp
  EXPECT_GT(cubic_worst, 1e-9);
}

}  // namespace
}  // namespace ripple::model
