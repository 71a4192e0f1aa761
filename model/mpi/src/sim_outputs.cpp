#include "sim_outputs.hpp"

#include <algorithm>
#include <cmath>

#include "ripple/common/mpi_util.hpp"
#include "ripple/model/vector_math.hpp"

namespace ripple::model::detail {

Observables observe(MPI_Comm comm, const ExactSum& exact, const State& x, std::int64_t n) {
  ExactSum::Accumulator sums[2] = {0, 0};
  double range[2] = {-HUGE_VAL, -HUGE_VAL};  // -min, max
  constexpr std::size_t kChunk = 1024;       // vector sin and cos chunk by chunk, on the stack
  alignas(64) double sin_x[kChunk], cos_x[kChunk];
  for (std::size_t begin = 0; begin < x.size(); begin += kChunk) {
    const std::size_t m = std::min(kChunk, x.size() - begin);
    sin_cos(x.data() + begin, sin_x, cos_x, m);
    ExactSum::add_all(sums[0], sin_x, m);
    ExactSum::add_all(sums[1], cos_x, m);
  }
  for (const double v : x) {
    range[0] = std::max(range[0], -v);
    range[1] = std::max(range[1], v);
  }
  exact.allreduce(comm, sums);
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_DOUBLE, MPI_MAX, comm));
  const double s = ExactSum::value(sums[0]);
  const double c = ExactSum::value(sums[1]);
  return {std::sqrt(s * s + c * c) / static_cast<double>(n), range[1] + range[0]};
}

}  // namespace ripple::model::detail
