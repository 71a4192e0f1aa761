#pragma once
// Builds a rank's rows of the topology with ghost slots and fills the ghosts through neighbourhood
// collectives on a distributed-graph communicator.
#include <mpi.h>

#include <vector>

#include "ripple/model/mpi/partition.hpp"
#include "ripple/model/rhs_kernel.hpp"

namespace ripple::model {

class GhostExchange {
public:
  // Fills `graph` (local rows, ghost ids ordered by owner rank then id) and sets up the exchange.
  // Collective over comm.
  GhostExchange(MPI_Comm comm, const Topology& topology, const Partition& partition, LocalGraph& graph);
  GhostExchange(const GhostExchange&) = delete;
  GhostExchange& operator=(const GhostExchange&) = delete;
  ~GhostExchange();

  // ghost[g] = owner's local[...] for every ghost slot. Collective over comm.
  void exchange(const double* local, double* ghost);
  [[nodiscard]] int neighbour_ranks() const { return static_cast<int>(sources_.size()); }

private:
  MPI_Comm graph_comm_ = MPI_COMM_NULL;
  std::vector<int> sources_, destinations_;
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  std::vector<std::uint32_t> send_index_;  // local index of each value sent, in send order
  std::vector<double> send_buffer_;
};

}  // namespace ripple::model
