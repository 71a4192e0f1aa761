#include "ripple/model/mpi/error_checker.hpp"

#include "ripple/model/isa_clones.hpp"

namespace ripple::model {

RIPPLE_CLONES void add_squared_error_ratios(ExactSum::Accumulator& acc, const double* err, const double* x, const double* dxdt,
                                            RelativeError e, std::size_t n, double clamp) {
  ExactSum::add_each(acc, n, [&](std::size_t i) {
    const double r = error_ratio(e, err[i], x[i], dxdt[i]);
    const double q = r * r;
    return q < clamp ? q : clamp;  // false for NaN
  });
}

}  // namespace ripple::model
