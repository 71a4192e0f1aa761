#pragma once
// Fills a rank's ghost columns from their owners through neighbourhood collectives on a
// distributed-graph communicator whose edges are exactly the ranks that share couplings.
#include <mpi.h>

#include <vector>

#include "ripple/model/local_graph.hpp"

namespace ripple::model {

class GhostExchange {
public:
  // Collective over comm: tells every owner which of its oscillators this rank reads.
  GhostExchange(MPI_Comm comm, const LocalGraph& graph);
  GhostExchange(const GhostExchange&) = delete;
  GhostExchange& operator=(const GhostExchange&) = delete;
  ~GhostExchange();

  // ghost[g] = the owner's value of ghost column g, for every ghost. Collective over comm.
  void exchange(const double* local, double* ghost);
  [[nodiscard]] int neighbour_ranks() const { return static_cast<int>(sources_.size()); }

private:
  MPI_Comm graph_comm_ = MPI_COMM_NULL;
  std::vector<int> sources_, destinations_;
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  std::vector<std::uint32_t> send_index_;  // local column of each value sent, in send order
  std::vector<double> send_buffer_;
};

}  // namespace ripple::model
