#include "ripple/model/stage_math.hpp"

#include <cmath>

#include "ripple/common/error.hpp"
#include "ripple/model/isa_clones.hpp"

namespace ripple::model {
namespace {

// One pass for K terms; the pointers are copied to locals so that GCC versions the loop for
// aliasing once and vectorises it.
template <std::size_t K>
[[gnu::always_inline]] inline void combine(double* out, const double* const* in, const double* c, std::size_t n) {
  const double* p[K];
  double a[K];
  for (std::size_t k = 0; k < K; ++k) {
    p[k] = in[k];
    a[k] = c[k];
  }
  for (std::size_t i = 0; i < n; ++i) {
    double s = a[0] * p[0][i];
    for (std::size_t k = 1; k < K; ++k) s = s + a[k] * p[k][i];
    out[i] = s;
  }
}

}  // namespace

RIPPLE_CLONES void linear_combination(double* out, std::span<const double* const> in, std::span<const double> c, std::size_t n) {
  RIPPLE_VERIFY(in.size() == c.size(), "linear_combination: one coefficient per input");
  switch (in.size()) {
    case 1:
      return combine<1>(out, in.data(), c.data(), n);
    case 2:
      return combine<2>(out, in.data(), c.data(), n);
    case 3:
      return combine<3>(out, in.data(), c.data(), n);
    case 4:
      return combine<4>(out, in.data(), c.data(), n);
    case 5:
      return combine<5>(out, in.data(), c.data(), n);
    case 6:
      return combine<6>(out, in.data(), c.data(), n);
    case 7:
      return combine<7>(out, in.data(), c.data(), n);
    case 8:
      return combine<8>(out, in.data(), c.data(), n);
    default:
      RIPPLE_VERIFY(false, "linear_combination: 1 to 8 terms");
  }
}

RIPPLE_CLONES double max_error_ratio(const double* err, const double* x, const double* dxdt, RelativeError e, std::size_t n) {
  double m = 0.0;
  bool nan = false;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = error_ratio(e, err[i], x[i], dxdt[i]);
    nan |= v != v;
    m = v > m ? v : m;
  }
  return nan ? HUGE_VAL : m;
}

RIPPLE_CLONES double max_abs(const double* s, std::size_t n) {
  double m = 0.0;
  bool nan = false;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::abs(s[i]);
    nan |= v != v;
    m = v > m ? v : m;
  }
  return nan ? HUGE_VAL : m;
}

}  // namespace ripple::model
