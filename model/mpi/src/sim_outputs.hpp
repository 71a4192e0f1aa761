#pragma once
// What `ripple sim` stores: the stored times, and the observables of a state. Internal.
#include <mpi.h>

#include <cmath>
#include <cstdint>

#include "local_model.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/mpi/exact_sum.hpp"

namespace ripple::model::detail {

struct Observables {
  double order_parameter;
  double spread;
};

// Order parameter and phase spread of the whole state. Collective.
Observables observe(MPI_Comm comm, const ExactSum& exact, const State& x, std::int64_t n);

// Stored times: every multiple of the output interval below t_end, then t_end itself.
class OutputTimes {
public:
  explicit OutputTimes(const SimConfig& cfg)
      : t_end_(cfg.solver.t_end), interval_(cfg.output.interval > 0 ? cfg.output.interval : cfg.solver.t_end / 100.0) {
    multiples_ = static_cast<std::int64_t>(std::ceil(t_end_ / interval_));
    while (multiples_ > 1 && static_cast<double>(multiples_ - 1) * interval_ >= t_end_) --multiples_;
    while (static_cast<double>(multiples_) * interval_ < t_end_) ++multiples_;
  }
  [[nodiscard]] std::int64_t count() const { return multiples_ + 1; }
  [[nodiscard]] double at(std::int64_t k) const { return k < multiples_ ? static_cast<double>(k) * interval_ : t_end_; }

private:
  double t_end_;
  double interval_;
  std::int64_t multiples_ = 0;  // k * interval < t_end for k < multiples_
};

}  // namespace ripple::model::detail
