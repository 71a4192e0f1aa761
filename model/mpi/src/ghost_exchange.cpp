#include "ripple/model/mpi/ghost_exchange.hpp"

#include <algorithm>

#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"

namespace ripple::model {

GhostExchange::GhostExchange(MPI_Comm comm, const LocalGraph& graph) {
  const auto ranks = static_cast<std::size_t>(comm_size(comm));
  // Ghosts are ordered by owner, so each owner's block is contiguous in the ghost columns.
  std::vector<int> want(ranks, 0);
  for (const int owner : graph.ghost_owners) ++want[static_cast<std::size_t>(owner)];
  std::vector<int> give(ranks, 0);
  RIPPLE_MPI_CHECK(MPI_Alltoall(want.data(), 1, MPI_INT, give.data(), 1, MPI_INT, comm));
  std::vector<int> want_displs(ranks, 0);
  std::vector<int> give_displs(ranks, 0);
  for (std::size_t r = 1; r < ranks; ++r) {
    want_displs[r] = want_displs[r - 1] + want[r - 1];
    give_displs[r] = give_displs[r - 1] + give[r - 1];
  }
  std::vector<std::int64_t> requested(static_cast<std::size_t>(give_displs.back() + give.back()));
  RIPPLE_MPI_CHECK(MPI_Alltoallv(graph.ghost_ids.data(), want.data(), want_displs.data(), MPI_INT64_T, requested.data(),
                                 give.data(), give_displs.data(), MPI_INT64_T, comm));
  for (const std::int64_t id : requested) {
    const auto it = std::lower_bound(graph.local_ids.begin(), graph.local_ids.end(), id);
    RIPPLE_VERIFY(it != graph.local_ids.end() && *it == id, "ghost request for an oscillator this rank does not own");
    send_index_.push_back(static_cast<std::uint32_t>(it - graph.local_ids.begin()));
  }
  send_buffer_.resize(send_index_.size());

  for (std::size_t r = 0; r < ranks; ++r) {
    if (want[r] > 0) {
      sources_.push_back(static_cast<int>(r));
      recv_counts_.push_back(want[r]);
      recv_displs_.push_back(want_displs[r]);
    }
    if (give[r] > 0) {
      destinations_.push_back(static_cast<int>(r));
      send_counts_.push_back(give[r]);
      send_displs_.push_back(give_displs[r]);
    }
  }
  RIPPLE_MPI_CHECK(MPI_Dist_graph_create_adjacent(comm, static_cast<int>(sources_.size()), sources_.data(), MPI_UNWEIGHTED,
                                                  static_cast<int>(destinations_.size()), destinations_.data(), MPI_UNWEIGHTED,
                                                  MPI_INFO_NULL, 0, &graph_comm_));
}

GhostExchange::~GhostExchange() {
  if (graph_comm_ != MPI_COMM_NULL) MPI_Comm_free(&graph_comm_);
}

void GhostExchange::exchange(const double* local, double* ghost) {
  for (std::size_t k = 0; k < send_index_.size(); ++k) send_buffer_[k] = local[send_index_[k]];
  RIPPLE_MPI_CHECK(MPI_Neighbor_alltoallv(send_buffer_.data(), send_counts_.data(), send_displs_.data(), MPI_DOUBLE, ghost,
                                          recv_counts_.data(), recv_displs_.data(), MPI_DOUBLE, graph_comm_));
}

}  // namespace ripple::model
