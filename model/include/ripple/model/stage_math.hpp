#pragma once
// The element-wise passes of the Runge-Kutta steppers (stage combinations and the error ratios of
// the step-size control), built for AVX-512, AVX2 and the baseline and chosen at run time.
// Boost.Odeint's range_algebra runs them as generic scalar loops compiled for the baseline (SSE2);
// MpiAlgebra hands them here. Each element is computed by the same expression, in the same order,
// as Boost.Odeint's operations; without contraction (-ffp-contract=off) every variant rounds alike,
// so the results are bitwise those of range_algebra on any instruction set.
#include <cstddef>
#include <span>

namespace ripple::model {

// out[i] = c[0] * in[0][i] + c[1] * in[1][i] + ... (left to right), for 1 to 8 terms.
void linear_combination(double* out, std::span<const double* const> in, std::span<const double> c, std::size_t n);

// err[i] = |err[i]| / (eps_abs + eps_rel * (a_x * |x[i]| + a_dxdt * |dxdt[i]|)), as odeint's rel_error.
struct RelativeError {
  double eps_abs, eps_rel, a_x, a_dxdt;
};
void relative_error(double* err, const double* x, const double* dxdt, RelativeError e, std::size_t n);

// max |s[i]|, +inf if any element is NaN (so that a NaN error rejects the step).
double max_abs(const double* s, std::size_t n);

}  // namespace ripple::model
