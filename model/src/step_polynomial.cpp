#include "ripple/model/step_polynomial.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ripple/common/error.hpp"

namespace ripple::model {
namespace {

// Four ulp of s in [0.5, 1): a Newton step this small has converged as far as p's rounding allows
// (the steps then jitter, and must not count as a stall); a bracket this narrow is closed. Probes
// keep a quarter of it (one ulp there) off the bracket's ends, so that each is a new double.
constexpr double kWidth = 0x1p-51;

// One query's search, in steps that first_crossings interleaves over several queries: each
// polynomial evaluation is a chain of dependent operations, so one search alone mostly waits.
// Between find_cell and the end: p(a) < level <= p(b), Newton from the secant's point, bisection
// where Newton leaves the bracket or its step does not halve from one probe to the next (a flat or
// turning polynomial), as in Numerical Recipes' rtsafe. Typically the secant and two or three
// Newton probes (about 50 for bisection).
struct Search {
  CrossingQuery* query = nullptr;
  double a = 0, b = 0, x = 0, step_before = 0;
  int probes = 0;
  bool active = false;

  // The first cell after lo whose right end reaches the level (its cell values are known: no
  // evaluation); or the answer right away.
  void find_cell() {
    const StepPolynomial& p = *query->p;
    const double level = query->level, lo = query->lo, hi = query->hi;
    const std::span<const double> s = p.cell_ends();
    const std::span<const double> y = p.cell_values();
    for (std::size_t m = 0; m + 1 < s.size(); ++m) {
      if (s[m + 1] <= lo) continue;  // the cell ends at or before lo
      if (s[m] >= hi) break;
      double right = s[m + 1];
      double q_right = y[m + 1] - level;
      if (right > hi && q_right < 0) {  // the window ends inside this cell, and p turns back below the level after it
        right = hi;
        q_right = p.minus(level, hi);
      }
      if (q_right < 0) continue;
      const double q_left = y[m] - level;
      if (q_left >= 0) return finish_at(lo);  // reached at or before lo
      a = s[m];
      b = right;
      x = a - q_left * (b - a) / (q_right - q_left);
      step_before = b - a;
      active = true;
      return;
    }
    finish_at(std::numeric_limits<double>::quiet_NaN());
  }

  void probe() {
    const StepPolynomial& p = *query->p;
    if (b - a <= kWidth || probes++ == 200) return finish(b);
    x = std::clamp(x, a + 0.25 * kWidth, b - 0.25 * kWidth);
    double slope = 0;
    const double q = p.minus(query->level, x, slope);
    if (q >= 0)
      b = x;
    else
      a = x;
    const double newton = x - q / slope;
    const double step = std::abs(newton - x);
    if (step < kWidth) return finish(std::clamp(newton, a, b));
    if (!(newton > a && newton < b) || step > 0.5 * step_before) {
      step_before = 0.5 * (b - a);
      x = a + step_before;
    } else {
      step_before = step;
      x = newton;
    }
  }

  // The root of the cell, into [lo, hi].
  void finish(double root) {
    if (root > query->hi)
      finish_at(query->p->minus(query->level, query->hi) >= 0 ? query->hi : std::numeric_limits<double>::quiet_NaN());
    else
      finish_at(std::max(root, query->lo));
  }
  void finish_at(double s) {
    query->s = s;
    active = false;
  }
};

}  // namespace

StepNodes StepNodes::of(std::span<const double> s) {
  RIPPLE_VERIFY(s.size() >= 2 && s.size() <= kMax && s.front() == 0.0 && s.back() == 1.0, "StepNodes: 2 to 6 nodes from 0 to 1");
  StepNodes nodes;
  nodes.n = s.size();
  std::copy(s.begin(), s.end(), nodes.s.begin());
  for (std::size_t k = 1; k < nodes.n; ++k)
    for (std::size_t j = k; j < nodes.n; ++j) nodes.inverse[k][j] = 1.0 / (s[j] - s[j - k]);
  return nodes;
}

void divided_differences(const StepNodes& nodes, std::span<double* const> d, std::size_t count) {
  const std::size_t n = nodes.n;
  RIPPLE_VERIFY(d.size() >= n, "divided_differences: a row per node");
  for (std::size_t j = n - 1; j >= 1; --j)
    for (std::size_t i = 0; i < count; ++i) d[j][i] -= d[0][i];
  std::fill_n(d[0], count, 0.0);
  for (std::size_t k = 1; k < n; ++k)
    for (std::size_t j = n - 1; j >= k; --j) {
      const double inverse = nodes.inverse[k][j];
      double* __restrict out = d[j];
      const double* __restrict below = d[j - 1];
      for (std::size_t i = 0; i < count; ++i) out[i] = (out[i] - below[i]) * inverse;
    }
}

StepPolynomial StepPolynomial::through(const StepNodes& nodes, std::span<const double> y) {
  std::array<double, kMaxNodes> d;
  std::array<double*, kMaxNodes> rows;
  for (std::size_t j = 0; j < nodes.n; ++j) {
    d[j] = y[j];
    rows[j] = &d[j];
  }
  divided_differences(nodes, std::span<double* const>(rows.data(), nodes.n), 1);
  return through(nodes, y, std::span<const double>(d.data() + 1, nodes.n - 1));
}

StepPolynomial StepPolynomial::through(const StepNodes& nodes, std::span<const double> y, std::span<const double> coefficients) {
  StepPolynomial p;
  const std::size_t n = nodes.n;
  p.n_ = n;
  p.y0_ = y[0];
  for (std::size_t j = 1; j < n; ++j) p.coef_[j] = coefficients[j - 1];
  p.node_ = nodes.s;
  p.cells_ = n - 1;
  p.cell_s_ = nodes.s;
  std::copy_n(y.begin(), n, p.cell_y_.begin());
  return p;
}

StepPolynomial StepPolynomial::hermite(double y0, double slope0, double y1, double slope1) {
  // Newton form on the nodes 0, 0, 1, 1 (each end counted twice: value and slope).
  StepPolynomial p;
  p.n_ = 4;
  p.y0_ = y0;
  const double rise = y1 - y0;
  p.node_ = {0.0, 0.0, 1.0};
  p.coef_[1] = slope0;
  p.coef_[2] = rise - slope0;
  p.coef_[3] = (slope1 - rise) - (rise - slope0);
  p.cells_ = 5;
  p.cell_s_ = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  p.cell_y_ = {y0, p(0.2), p(0.4), p(0.6), p(0.8), y1};
  return p;
}

void first_crossings(std::span<CrossingQuery> queries) {
  constexpr std::size_t kLanes = 8;
  std::array<Search, kLanes> lanes;
  for (std::size_t first = 0; first < queries.size(); first += kLanes) {
    const std::size_t n = std::min(kLanes, queries.size() - first);
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      lanes[i] = Search{&queries[first + i]};
      lanes[i].find_cell();
      any |= lanes[i].active;
    }
    while (any) {
      any = false;
      for (std::size_t i = 0; i < n; ++i) {
        if (!lanes[i].active) continue;
        lanes[i].probe();
        any |= lanes[i].active;
      }
    }
  }
}

double first_crossing(const StepPolynomial& p, double level, double lo, double hi) {
  CrossingQuery query{&p, level, lo, hi};
  first_crossings(std::span<CrossingQuery>(&query, 1));
  return query.s;
}

}  // namespace ripple::model
