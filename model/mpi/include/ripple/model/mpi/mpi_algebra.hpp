#pragma once
// Boost.Odeint algebra for a state distributed over MPI ranks: element-wise operations are local
// (range_algebra); the error norm is one global reduction, so every rank takes the same steps.
// odeint's error checker hands norm_inf the error ratios err_i / (atol + rtol * scale_i); the step is
// accepted when the norm is at most 1. With `rms` set the norm is the root mean square instead of the
// maximum (as SciPy's solve_ivp uses), summed exactly so that it stays rank-independent.
#include <mpi.h>

#include <algorithm>
#include <boost/numeric/odeint/algebra/range_algebra.hpp>
#include <cmath>

#include "ripple/common/mpi_util.hpp"
#include "ripple/model/mpi/exact_sum.hpp"

namespace ripple::model {

struct MpiAlgebra : boost::numeric::odeint::range_algebra {
  MPI_Comm comm = MPI_COMM_SELF;
  const ExactSum* rms = nullptr;  // root-mean-square norm when set
  std::int64_t oscillators = 1;   // N, for the mean

  template <class State>
  double norm_inf(const State& s) const {
    if (rms != nullptr) {
      ExactSum::Accumulator sum[1] = {0};
      // Squares are clamped at 2^40 to keep the fixed-point sum in range (up to 2^35 oscillators); a
      // clamped or NaN ratio still rejects the step for any N below 2^40.
      constexpr double kClamp = 0x1p40;
      ExactSum::add_each(sum[0], s.size(), [&](std::size_t i) {
        const double v = s[i];
        return std::isnan(v) ? kClamp : std::min(v * v, kClamp);
      });
      rms->allreduce(comm, sum);
      return std::sqrt(ExactSum::value(sum[0]) / static_cast<double>(oscillators));
    }
    double local = 0.0;
    for (const double v : s) local = std::max(local, std::isnan(v) ? HUGE_VAL : std::abs(v));  // NaN must reject the step
    // max is exact and order-independent: the step size sequence is identical for any rank count.
    RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_MAX, comm));
    return local;
  }
};

}  // namespace ripple::model
