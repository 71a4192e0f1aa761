#pragma once
// Boost.Odeint algebra for a state distributed over MPI ranks: element-wise operations are local
// (range_algebra); the error norm is one global reduction, so every rank takes the same steps.
#include <mpi.h>

#include <algorithm>
#include <boost/numeric/odeint/algebra/range_algebra.hpp>
#include <cmath>

#include "ripple/common/mpi_util.hpp"

namespace ripple::model {

struct MpiAlgebra : boost::numeric::odeint::range_algebra {
  MPI_Comm comm = MPI_COMM_SELF;

  template <class State>
  double norm_inf(const State& s) const {
    double local = 0.0;
    for (const double v : s) local = std::max(local, std::isnan(v) ? HUGE_VAL : std::abs(v));  // NaN must reject the step
    // max is exact and order-independent: the step size sequence is identical for any rank count.
    RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_MAX, comm));
    return local;
  }
};

}  // namespace ripple::model
