#pragma once
// The error checker of Ripple's controlled dopri5 (Boost.Odeint's ErrorChecker concept). odeint's
// default_error_checker writes the ratios err_i / (atol + rtol (|x_i| + |dt| |dxdt_i|)) over x_err in
// one pass and takes their norm in another; this one computes the same ratios (error_ratio, bitwise
// odeint's rel_error) and their norm in a single read-only pass, then reduces over all ranks, so that
// every rank takes the same steps. The step is accepted when the norm is at most 1.
//   max: the largest ratio (MATLAB's and odeint's norm); exact and order-independent.
//   rms: the root mean square over all N oscillators (SciPy's solve_ivp), summed exactly (ExactSum)
//        so that it is the same for any number of ranks.
#include <mpi.h>

#include <boost/numeric/odeint/algebra/default_operations.hpp>
#include <cmath>
#include <cstdint>

#include "ripple/common/mpi_util.hpp"
#include "ripple/model/mpi/exact_sum.hpp"
#include "ripple/model/mpi/mpi_algebra.hpp"
#include "ripple/model/stage_math.hpp"

namespace ripple::model {

// Adds min(ratio_i^2, clamp) for every element (a NaN ratio counts as clamp); vectorised.
void add_squared_error_ratios(ExactSum::Accumulator& acc, const double* err, const double* x, const double* dxdt, RelativeError e,
                              std::size_t n, double clamp);

class DistributedErrorChecker {
public:
  using value_type = double;
  using algebra_type = MpiAlgebra;
  using operations_type = boost::numeric::odeint::default_operations;

  // rms: the exact-sum operation for the root-mean-square norm, or null for the max norm.
  DistributedErrorChecker(double atol, double rtol, MPI_Comm comm, const ExactSum* rms, std::int64_t oscillators)
      : atol_(atol), rtol_(rtol), comm_(comm), rms_(rms), oscillators_(oscillators) {}

  template <class State, class Deriv, class Err>
  double error(algebra_type& /*algebra*/, const State& x_old, const Deriv& dxdt_old, Err& x_err, double dt) const {
    RIPPLE_VERIFY(x_old.size() == x_err.size() && dxdt_old.size() == x_err.size(), "error norm of vectors of different sizes");
    const RelativeError e{atol_, rtol_, 1.0, std::abs(dt)};  // a_x = a_dxdt = 1, as make_dense_output sets them
    if (rms_ != nullptr) {
      // Squares are clamped at 2^40 to keep the fixed-point sum in range (up to 2^35 oscillators); a
      // clamped or NaN ratio still rejects the step for any N below 2^40.
      ExactSum::Accumulator sum[1] = {0};
      add_squared_error_ratios(sum[0], x_err.data(), x_old.data(), dxdt_old.data(), e, x_err.size(), 0x1p40);
      rms_->allreduce(comm_, sum);
      return std::sqrt(ExactSum::value(sum[0]) / static_cast<double>(oscillators_));
    }
    double local = max_error_ratio(x_err.data(), x_old.data(), dxdt_old.data(), e, x_err.size());
    RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_MAX, comm_));
    return local;
  }

private:
  double atol_, rtol_;
  MPI_Comm comm_;
  const ExactSum* rms_;
  std::int64_t oscillators_;
};

}  // namespace ripple::model
