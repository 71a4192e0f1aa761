#include "ripple/model/mpi/ghost_exchange.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"

namespace ripple::model {

GhostExchange::GhostExchange(MPI_Comm comm, const Topology& topology, const Partition& partition, LocalGraph& graph) {
  const int ranks = comm_size(comm);
  graph.local_ids = partition.owned;
  const std::size_t n_local = graph.local_ids.size();
  const auto local_index = [&](std::int64_t g) -> std::int64_t {
    const auto it = std::lower_bound(graph.local_ids.begin(), graph.local_ids.end(), g);
    return (it != graph.local_ids.end() && *it == g) ? it - graph.local_ids.begin() : -1;
  };

  // Rows with global columns first; non-owned columns become ghosts.
  std::vector<std::int64_t> nb;
  std::vector<std::int64_t> global_cols;
  std::vector<std::pair<int, std::int64_t>> ghosts;  // (owner, id)
  graph.row_ptr.assign(1, 0);
  for (const std::int64_t i : graph.local_ids) {
    topology.neighbours(i, nb);
    for (const std::int64_t j : nb) {
      global_cols.push_back(j);
      if (local_index(j) < 0) ghosts.emplace_back(partition.owner_of(j), j);
    }
    RIPPLE_VERIFY(global_cols.size() < std::numeric_limits<std::uint32_t>::max(),
                  "too many couplings on one rank: use more ranks");
    graph.row_ptr.push_back(static_cast<std::uint32_t>(global_cols.size()));
  }
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  graph.ghost_ids.clear();
  std::unordered_map<std::int64_t, std::uint32_t> slot;
  slot.reserve(ghosts.size());
  for (const auto& [owner, id] : ghosts) {
    slot.emplace(id, static_cast<std::uint32_t>(n_local + graph.ghost_ids.size()));
    graph.ghost_ids.push_back(id);
  }
  graph.cols.resize(global_cols.size());
  for (std::size_t k = 0; k < global_cols.size(); ++k) {
    const std::int64_t l = local_index(global_cols[k]);
    graph.cols[k] = l >= 0 ? static_cast<std::uint32_t>(l) : slot.at(global_cols[k]);
  }

  // Tell every owner which of its oscillators we read.
  std::vector<int> want(static_cast<std::size_t>(ranks), 0);
  for (const auto& g : ghosts) ++want[static_cast<std::size_t>(g.first)];
  std::vector<int> give(static_cast<std::size_t>(ranks), 0);
  RIPPLE_MPI_CHECK(MPI_Alltoall(want.data(), 1, MPI_INT, give.data(), 1, MPI_INT, comm));
  std::vector<int> want_displs(static_cast<std::size_t>(ranks), 0);
  std::vector<int> give_displs(static_cast<std::size_t>(ranks), 0);
  for (int r = 1; r < ranks; ++r) {
    want_displs[static_cast<std::size_t>(r)] =
        want_displs[static_cast<std::size_t>(r - 1)] + want[static_cast<std::size_t>(r - 1)];
    give_displs[static_cast<std::size_t>(r)] =
        give_displs[static_cast<std::size_t>(r - 1)] + give[static_cast<std::size_t>(r - 1)];
  }
  std::vector<std::int64_t> requested(static_cast<std::size_t>(give_displs.back() + give.back()));
  RIPPLE_MPI_CHECK(MPI_Alltoallv(graph.ghost_ids.data(), want.data(), want_displs.data(), MPI_INT64_T, requested.data(),
                                 give.data(), give_displs.data(), MPI_INT64_T, comm));
  for (const std::int64_t g : requested) {
    const std::int64_t l = local_index(g);
    RIPPLE_VERIFY(l >= 0, "ghost request for an oscillator this rank does not own");
    send_index_.push_back(static_cast<std::uint32_t>(l));
  }
  send_buffer_.resize(send_index_.size());

  for (int r = 0; r < ranks; ++r) {
    if (want[static_cast<std::size_t>(r)] > 0) {
      sources_.push_back(r);
      recv_counts_.push_back(want[static_cast<std::size_t>(r)]);
      recv_displs_.push_back(want_displs[static_cast<std::size_t>(r)]);
    }
    if (give[static_cast<std::size_t>(r)] > 0) {
      destinations_.push_back(r);
      send_counts_.push_back(give[static_cast<std::size_t>(r)]);
      send_displs_.push_back(give_displs[static_cast<std::size_t>(r)]);
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
