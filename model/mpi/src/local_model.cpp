#include "local_model.hpp"

#include <fmt/format.h>

#include <vector>

#include "ripple/common/error.hpp"
#include "ripple/model/oscillators.hpp"

namespace ripple::model::detail {

// The rank-local part of the set-up: this rank's couplings, frequencies and kernel. No MPI.
void prepare_local_model(const SimConfig& cfg, const Topology& topology, Partition& part, LocalModel& m) {
  m.partition = part.method;
  const bool mean_field = topology.kind() == TopologyKind::All && cfg.model.potential == Potential::Kuramoto;
  m.coupling = mean_field ? Coupling::MeanField : (cfg.delay.mean > 0 ? Coupling::Delayed : Coupling::Ghosts);
  if (mean_field) {
    m.graph = mean_field_graph(std::move(part.owned), cfg.model.oscillators);  // O(N): no explicit couplings
  } else {
    // Without delays a symmetric topology evaluates V once per pair; delayed terms are not antisymmetric.
    const bool symmetric = topology.is_symmetric() && m.coupling == Coupling::Ghosts;
    m.graph = build_local_graph(topology, std::move(part.owned), part.owner_of, symmetric);
  }
  std::vector<double> omega;
  omega.reserve(m.graph.n_local());
  for (const std::int64_t i : m.graph.local_ids) {
    omega.push_back(natural_frequency(cfg, i));
    if (!(omega.back() > 0))
      throw InputError(
          fmt::format("[model] frequency_spread: oscillator {} gets omega = {:g} rad/s, not positive: use a smaller "
                      "spread or the grid or uniform distribution",
                      i, omega.back()));
  }
  m.kernel = std::make_unique<RhsKernel>(cfg, m.graph, std::move(omega), coupling_strength(cfg, topology));
}

// The collective part: ghost exchange and, with delays, the history of every column.
void connect_local_model(MPI_Comm comm, const SimConfig& cfg, LocalModel& m) {
  if (m.coupling == Coupling::MeanField) return;
  m.exchange = std::make_unique<GhostExchange>(comm, m.graph);
  if (m.coupling == Coupling::Delayed) {
    std::vector<double> omega_all(m.kernel->omega().begin(), m.kernel->omega().end());
    omega_all.resize(m.graph.n_columns());
    m.exchange->exchange(m.kernel->omega().data(), omega_all.data() + m.graph.n_local());
    m.history = std::make_unique<DelayHistory>(omega_all);
  }
}

}  // namespace ripple::model::detail
