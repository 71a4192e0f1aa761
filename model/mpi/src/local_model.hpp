#pragma once
// One rank's part of the model for the integrator (simulator.cpp): its couplings, frequencies and
// kernel, and the odeint system that evaluates its part of the right-hand side. Internal.
#include <mpi.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "ripple/model/aligned_vector.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/delay_history.hpp"
#include "ripple/model/local_graph.hpp"
#include "ripple/model/mpi/exact_sum.hpp"
#include "ripple/model/mpi/ghost_exchange.hpp"
#include "ripple/model/mpi/partition.hpp"
#include "ripple/model/rhs_kernel.hpp"
#include "ripple/model/topology.hpp"
#include "ripple/model/vector_math.hpp"

namespace ripple::model::detail {

using State = AlignedVector;  // 64-byte aligned (aligned_vector.hpp)

enum class Coupling { Ghosts, MeanField, Delayed };

// Everything one rank needs to evaluate its part of the right-hand side. Not movable: the kernel
// keeps a pointer to the graph.
struct LocalModel {
  LocalModel() = default;
  LocalModel(const LocalModel&) = delete;
  LocalModel& operator=(const LocalModel&) = delete;

  LocalGraph graph;
  std::unique_ptr<GhostExchange> exchange;
  std::unique_ptr<RhsKernel> kernel;
  std::unique_ptr<DelayHistory> history;
  Coupling coupling = Coupling::Ghosts;
  std::string partition;
};

// The odeint system: fills the neighbour phases the kernel reads, then calls the MPI-free kernel.
class DistributedSystem {
public:
  DistributedSystem(MPI_Comm comm, LocalModel& m, const ExactSum& exact)
      : comm_(comm), m_(m), exact_(exact), ghosts_(m.graph.n_ghost()) {}

  void operator()(const State& x, State& dxdt, double t) {
    ++evaluations;
    switch (m_.coupling) {
      case Coupling::Delayed:
        m_.kernel->evaluate_delayed(t, x.data(), *m_.history, dxdt.data());
        break;
      case Coupling::MeanField: {
        sin_x_.resize(x.size());
        cos_x_.resize(x.size());
        sin_cos(x.data(), sin_x_.data(), cos_x_.data(), x.size());
        ExactSum::Accumulator sums[2] = {0, 0};
        ExactSum::add_all(sums[0], sin_x_.data(), x.size());
        ExactSum::add_all(sums[1], cos_x_.data(), x.size());
        exact_.allreduce(comm_, sums);
        m_.kernel->evaluate_mean_field(t, sin_x_.data(), cos_x_.data(), ExactSum::value(sums[0]), ExactSum::value(sums[1]),
                                       dxdt.data());
        break;
      }
      case Coupling::Ghosts:
        m_.exchange->exchange(x.data(), ghosts_.data());
        m_.kernel->evaluate(t, x.data(), ghosts_.data(), dxdt.data());
        break;
    }
    last_time = t;
    last_derivative = &dxdt;
  }

  std::int64_t evaluations = 0;
  double last_time = std::numeric_limits<double>::quiet_NaN();
  const State* last_derivative = nullptr;

private:
  MPI_Comm comm_;
  LocalModel& m_;
  const ExactSum& exact_;
  State ghosts_;         // the ghost columns' phases
  State sin_x_, cos_x_;  // mean field: sin and cos of the local phases
};

// The rank-local part of the set-up: this rank's couplings, frequencies and kernel. No MPI.
void prepare_local_model(const SimConfig& cfg, const Topology& topology, Partition& part, LocalModel& m);

// The collective part: ghost exchange and, with delays, the history of every column.
void connect_local_model(MPI_Comm comm, const SimConfig& cfg, LocalModel& m);

}  // namespace ripple::model::detail
