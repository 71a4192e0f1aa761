#pragma once
// The element-wise passes of the Runge-Kutta steppers (stage combinations and the error norm of
// the step-size control), built for AVX-512, AVX2 and the baseline and chosen at run time.
// Boost.Odeint's range_algebra runs them as generic scalar loops compiled for the baseline (SSE2);
// MpiAlgebra hands them here. Each element is computed by the same expression, in the same order,
// as Boost.Odeint's operations; without contraction (-ffp-contract=off) every variant rounds alike,
// so the results are bitwise those of range_algebra on any instruction set.
#include <cmath>
#include <cstddef>
#include <span>

namespace ripple::model {

// out[i] = c[0] * in[0][i] + c[1] * in[1][i] + ... (left to right), for 1 to 8 terms.
void linear_combination(double* out, std::span<const double* const> in, std::span<const double> c, std::size_t n);

// The error ratio of one element, exactly as odeint's rel_error computes it:
// |err| / (eps_abs + eps_rel * (a_x * |x| + a_dxdt * |dxdt|)); a_dxdt already holds the factor |dt|.
struct RelativeError {
  double eps_abs, eps_rel, a_x, a_dxdt;
};
[[gnu::always_inline]] inline double error_ratio(const RelativeError& e, double err, double x, double dxdt) {
  return std::abs(err) / (e.eps_abs + e.eps_rel * (e.a_x * std::abs(x) + e.a_dxdt * std::abs(dxdt)));
}
// max_i error_ratio(err[i], x[i], dxdt[i]), +inf if any ratio is NaN (so that the step is rejected).
double max_error_ratio(const double* err, const double* x, const double* dxdt, RelativeError e, std::size_t n);

// max |s[i]|, +inf if any element is NaN (so that a NaN error rejects the step).
double max_abs(const double* s, std::size_t n);

}  // namespace ripple::model
