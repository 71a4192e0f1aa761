#pragma once
// One oscillator's phase over one accepted solver step, as the polynomial the solver's continuous
// extension is: θ(t) = p(s) with s = (t - t_old) / (t_new - t_old) in [0, 1]. `ripple sim` finds
// the times at which θ_i reaches the levels 2π(k+1) as roots of it (`[output] iterations`).
//
// - dopri5: odeint's dense output (runge_kutta_dopri5::calc_state) is, per element, a polynomial of
//   degree 5 in s, so its values at six distinct s determine it; `through` rebuilds it from them.
// - rk4: odeint gives no dense output; `hermite` is the cubic through the step's end values with the
//   step's end derivatives, the interpolant the delay history uses too.
// MPI-free: everything is per element.
#include <array>
#include <cstddef>
#include <span>

namespace ripple::model {

// Where a step's values are known (its ends and points inside), shared by all oscillators of the
// step: the reciprocals of their differences are taken once per step, not per oscillator.
struct StepNodes {
  static constexpr std::size_t kMax = 6;
  // s.size() distinct nodes, s.front() = 0 and s.back() = 1.
  static StepNodes of(std::span<const double> s);
  std::array<double, kMax> s{};
  std::array<std::array<double, kMax>, kMax> inverse{};  // [k][j] = 1 / (s_j - s_{j-k})
  std::size_t n = 0;
};

// Newton form around the first node: p(s) = y0 + (s - s0)(c1 + (s - s1)(c2 + ...)). The level is
// taken off y0 alone (`minus`), so that phases of many periods lose no digits to cancellation. It
// keeps its values at the step's nodes: the cells between them are where roots are looked for.
class StepPolynomial {
public:
  static constexpr std::size_t kMaxNodes = StepNodes::kMax;

  // The polynomial of degree < n through (nodes.s[j], y[j]), n = nodes.n.
  static StepPolynomial through(const StepNodes& nodes, std::span<const double> y);
  // The same, its coefficients c_1 .. c_{n-1} taken already (divided_differences).
  static StepPolynomial through(const StepNodes& nodes, std::span<const double> y, std::span<const double> coefficients);
  // The cubic with values y0, y1 and slopes dp/ds = slope0, slope1 at s = 0 and 1 (a slope is the
  // derivative dθ/dt times the step length); its cells are fifths of the step.
  static StepPolynomial hermite(double y0, double slope0, double y1, double slope1);

  [[nodiscard]] double operator()(double s) const { return minus(0.0, s); }
  // p(s) - level.
  [[nodiscard]] double minus(double level, double s) const {
    double slope = 0;
    return minus(level, s, slope);
  }
  // p(s) - level and dp/ds.
  [[nodiscard]] double minus(double level, double s, double& slope) const {
    // Loops of a fixed length unroll and keep their values in registers (the root search
    // evaluates p about five times per crossing).
    switch (n_) {
      case 6:
        return minus_n<6>(level, s, slope);
      case 5:
        return minus_n<5>(level, s, slope);
      case 4:
        return minus_n<4>(level, s, slope);
      case 3:
        return minus_n<3>(level, s, slope);
      case 2:
        return minus_n<2>(level, s, slope);
      default:
        return minus_n<1>(level, s, slope);
    }
  }

  // The cell ends (s from 0 to 1) and the values there.
  [[nodiscard]] std::span<const double> cell_ends() const { return {cell_s_.data(), cells_ + 1}; }
  [[nodiscard]] std::span<const double> cell_values() const { return {cell_y_.data(), cells_ + 1}; }

private:
  // On the first N nodes (N = n_: fixed, so that the loop unrolls).
  template <std::size_t N>
  [[nodiscard]] double minus_n(double level, double s, double& slope) const {
    double r = 0, dr = 0;  // the nested factor c_j + (s - s_j)(...) from the inside out, and its derivative
    for (std::size_t j = N - 1; j >= 1; --j) {
      dr = r + (s - node_[j]) * dr;
      r = coef_[j] + (s - node_[j]) * r;
    }
    slope = r + (s - node_[0]) * dr;
    return (y0_ - level) + (s - node_[0]) * r;
  }

  // Left uninitialised: the factories set every element that is read (n_ nodes and coefficients,
  // cells_ + 1 cell ends); zeroing them cost a quarter of the time of a crossing.
  StepPolynomial() = default;
  double y0_ = 0;
  std::array<double, kMaxNodes> node_;  // s0 .. s_{n-2} (the last node never enters the form)
  std::array<double, kMaxNodes> coef_;  // c1 .. c_{n-1} in coef_[1..]; coef_[0] unused
  std::size_t n_ = 1;
  std::array<double, kMaxNodes> cell_s_;
  std::array<double, kMaxNodes> cell_y_;
  std::size_t cells_ = 0;
};

// Divided differences of many oscillators' values on the same nodes, as vector passes (a step's
// oscillators share its nodes): d[j][i] holds oscillator i's value at node j on entry, and on return
// its coefficient c_j for j >= 1 (and 0 for j = 0), the same bits as `through` takes. The values of one step lie close
// together, so differences of y - y0 are exact or nearly, where differences of y - level would
// round twice.
void divided_differences(const StepNodes& nodes, std::span<double* const> d, std::size_t count);

// The first s in [lo, hi] at which p(s) >= level. In the first of p's cells after lo whose right
// end reaches the level (or, in the cell holding hi, hi does), a bracketing Newton iteration
// (bisection where Newton would leave the bracket or stops converging fast) closes in on the root
// to a few ulp of s; the root, clamped to [lo, hi], is returned. lo if
// the level is reached at or before the start of that cell; NaN if the cells stay below it. The
// cells are p's, not [lo, hi]'s: the same crossing comes out bit for bit for any [lo, hi] around it.
double first_crossing(const StepPolynomial& p, double level, double lo, double hi);

// first_crossing for many (p, level, lo, hi) at once: the same answer for each, the searches
// interleaved, which overlaps their evaluations (about twice as fast per crossing).
struct CrossingQuery {
  const StepPolynomial* p = nullptr;
  double level = 0;
  double lo = 0;
  double hi = 1;
  double s = 0;  // the answer
};
void first_crossings(std::span<CrossingQuery> queries);

}  // namespace ripple::model
