// The distribution layer against serial truths: partitions cover every oscillator once, ghosts hold
// their owners' values, and global sums do not depend on the number of ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>

#include "ripple/model/config.hpp"
#include "ripple/model/mpi/exact_sum.hpp"
#include "ripple/model/mpi/ghost_exchange.hpp"
#include "ripple/model/mpi/partition.hpp"

namespace ripple::model {
namespace {

int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void check_topology(const TopologyConfig& cfg, std::int64_t n) {
  const Topology topo = Topology::from_config(cfg, n);
  const Partition part = make_partition(MPI_COMM_WORLD, topo);
  // Every oscillator is owned exactly once, and owner_of agrees with the owners.
  std::vector<int> count(static_cast<size_t>(n), 0);
  for (auto i : part.owned) {
    ++count[static_cast<size_t>(i)];
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    EXPECT_EQ(part.owner_of(i), me);
  }
  MPI_Allreduce(MPI_IN_PLACE, count.data(), static_cast<int>(n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (auto c : count) ASSERT_EQ(c, 1);

  // Ghost exchange of a known field: value(i) = 3 i + 1.
  LocalGraph graph;
  GhostExchange ex(MPI_COMM_WORLD, topo, part, graph);
  std::vector<double> local, ghost(graph.n_ghost());
  for (auto i : graph.local_ids) local.push_back(3.0 * static_cast<double>(i) + 1.0);
  ex.exchange(local.data(), ghost.data());
  for (size_t g = 0; g < graph.n_ghost(); ++g) EXPECT_EQ(ghost[g], 3.0 * static_cast<double>(graph.ghost_ids[g]) + 1.0);
  // The local rows reproduce the serial neighbour lists.
  std::vector<std::int64_t> nb;
  for (size_t l = 0; l < graph.n_local(); ++l) {
    topo.neighbours(graph.local_ids[l], nb);
    ASSERT_EQ(nb.size(), graph.row_ptr[l + 1] - graph.row_ptr[l]);
    for (size_t k = 0; k < nb.size(); ++k) {
      const std::uint32_t c = graph.cols[graph.row_ptr[l] + k];
      const std::int64_t j = c < graph.n_local() ? graph.local_ids[c] : graph.ghost_ids[c - graph.n_local()];
      EXPECT_EQ(j, nb[k]);
    }
  }
}

TEST(Distribution, ChainWithLongDistances) {
  TopologyConfig c;
  c.distances = {-1, 1, -2};
  check_topology(c, 37);
}

TEST(Distribution, PeriodicGrid2D) {
  TopologyConfig c;
  c.kind = TopologyKind::Grid2D;
  c.dims = {7, 5};
  c.periodic = true;
  check_topology(c, 35);
}

TEST(Distribution, Grid3D) {
  TopologyConfig c;
  c.kind = TopologyKind::Grid3D;
  c.dims = {4, 3, 5};
  check_topology(c, 60);
}

TEST(Distribution, MoreRanksThanOscillators) {
  TopologyConfig c;
  c.kind = TopologyKind::Ring;
  check_topology(c, 3);
}

TEST(Distribution, EdgeFileThroughMetis) {
  const std::string path = ::testing::TempDir() + "ripple_edges_" + std::to_string(world_size()) + ".txt";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    for (int i = 0; i < 40; ++i) std::fprintf(f, "%d %d\n%d %d\n", i, (i * 7 + 3) % 40, (i * 7 + 3) % 40, i);
    std::fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  TopologyConfig c;
  c.kind = TopologyKind::File;
  c.file = path;
  check_topology(c, 40);
}

TEST(ExactSum, IndependentOfRanksAndOrder) {
  // The same 10007 values summed over any rank count and in reverse order give one bit pattern.
  const std::int64_t n = 10007;
  const int ranks = world_size();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto [b, e] = block_range(n, ranks, rank);
  ExactSum exact;
  ExactSum::Accumulator acc[1] = {0};
  for (std::int64_t i = e - 1; i >= b; --i) ExactSum::add(acc[0], std::sin(0.37 * static_cast<double>(i)));
  exact.allreduce(MPI_COMM_WORLD, acc);
  ExactSum::Accumulator serial = 0;
  for (std::int64_t i = 0; i < n; ++i) ExactSum::add(serial, std::sin(0.37 * static_cast<double>(i)));
  EXPECT_TRUE(acc[0] == serial);
  // And it is the true sum to within n * 2^-53.
  long double ref = 0;
  for (std::int64_t i = 0; i < n; ++i) ref += std::sin(0.37L * static_cast<long double>(i));
  EXPECT_NEAR(ExactSum::value(serial), static_cast<double>(ref), 1e-11);
}

}  // namespace
}  // namespace ripple::model
