#include "ripple/model/mpi/partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"
#ifdef RIPPLE_HAVE_METIS
#include <metis.h>
#endif

namespace ripple::model {

std::pair<std::int64_t, std::int64_t> block_range(std::int64_t n, int parts, int p) {
  const std::int64_t base = n / parts;
  const std::int64_t rem = n % parts;
  const std::int64_t begin = p * base + std::min<std::int64_t>(p, rem);
  return {begin, begin + base + (p < rem ? 1 : 0)};
}

int block_owner(std::int64_t n, int parts, std::int64_t i) {
  const std::int64_t base = n / parts;
  const std::int64_t rem = n % parts;
  const std::int64_t big = rem * (base + 1);
  if (i < big) return static_cast<int>(i / (base + 1));
  return static_cast<int>(rem + (i - big) / base);
}

namespace {

Partition blocks(std::int64_t n, int ranks, int rank) {
  Partition p;
  const auto [b, e] = block_range(n, ranks, rank);
  for (std::int64_t i = b; i < e; ++i) p.owned.push_back(i);
  p.owner_of = [n, ranks](std::int64_t i) { return block_owner(n, ranks, i); };
  p.method = "blocks";
  return p;
}

Partition grid_blocks(const std::vector<std::int64_t>& extent, int ranks, int rank) {
  const int nd = static_cast<int>(extent.size());
  std::vector<int> pdims(static_cast<size_t>(nd), 0);
  RIPPLE_MPI_CHECK(MPI_Dims_create(ranks, nd, pdims.data()));
  // MPI_Dims_create returns non-increasing extents; give the most parts to the longest axis.
  std::vector<int> axes(static_cast<size_t>(nd));
  for (int a = 0; a < nd; ++a) axes[static_cast<size_t>(a)] = a;
  std::stable_sort(axes.begin(), axes.end(),
                   [&](int a, int b) { return extent[static_cast<size_t>(a)] > extent[static_cast<size_t>(b)]; });
  std::vector<int> parts(static_cast<size_t>(nd));
  for (int k = 0; k < nd; ++k) parts[static_cast<size_t>(axes[static_cast<size_t>(k)])] = pdims[static_cast<size_t>(k)];

  Partition p;
  // Rank r has block coordinates r = c0 + P0 * (c1 + P1 * c2).
  std::vector<int> coord(static_cast<size_t>(nd));
  int rest = rank;
  for (int a = 0; a < nd; ++a) {
    coord[static_cast<size_t>(a)] = rest % parts[static_cast<size_t>(a)];
    rest /= parts[static_cast<size_t>(a)];
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> range(static_cast<size_t>(nd));
  for (int a = 0; a < nd; ++a)
    range[static_cast<size_t>(a)] =
        block_range(extent[static_cast<size_t>(a)], parts[static_cast<size_t>(a)], coord[static_cast<size_t>(a)]);
  const auto& rz = nd == 3 ? range[2] : std::pair<std::int64_t, std::int64_t>{0, 1};
  for (std::int64_t z = rz.first; z < rz.second; ++z)
    for (std::int64_t y = range[1].first; y < range[1].second; ++y)
      for (std::int64_t x = range[0].first; x < range[0].second; ++x) p.owned.push_back(x + extent[0] * (y + extent[1] * z));
  p.owner_of = [extent, parts](std::int64_t i) {
    int r = 0;
    int stride = 1;
    for (size_t a = 0; a < extent.size(); ++a) {
      r += stride * block_owner(extent[a], parts[a], i % extent[a]);
      i /= extent[a];
      stride *= parts[a];
    }
    return r;
  };
  p.method = nd == 2 ? fmt::format("grid-blocks {}x{}", parts[0], parts[1])
                     : fmt::format("grid-blocks {}x{}x{}", parts[0], parts[1], parts[2]);
  return p;
}

#ifdef RIPPLE_HAVE_METIS
// METIS on the symmetrised graph, computed identically on every rank (it is deterministic for a
// fixed seed), so that every rank knows every owner without communication.
Partition metis(const Topology& t, int ranks, int rank) {
  const std::int64_t n = t.size();
  std::vector<std::vector<idx_t>> adj(static_cast<size_t>(n));
  std::vector<std::int64_t> nb;
  for (std::int64_t i = 0; i < n; ++i) {
    t.neighbours(i, nb);
    for (auto j : nb) {
      adj[static_cast<size_t>(i)].push_back(static_cast<idx_t>(j));
      adj[static_cast<size_t>(j)].push_back(static_cast<idx_t>(i));
    }
  }
  std::vector<idx_t> xadj{0};
  std::vector<idx_t> adjncy;
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    adjncy.insert(adjncy.end(), a.begin(), a.end());
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t nvtx = static_cast<idx_t>(n);
  idx_t ncon = 1;
  idx_t nparts = ranks;
  idx_t objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;
  auto owner = std::make_shared<std::vector<idx_t>>(static_cast<size_t>(n), 0);
  if (adjncy.empty()) {
    for (std::int64_t i = 0; i < n; ++i) (*owner)[static_cast<size_t>(i)] = block_owner(n, ranks, i);
  } else {
    const int rc = METIS_PartGraphKway(&nvtx, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr, &nparts, nullptr,
                                       nullptr, options, &objval, owner->data());
    if (rc != METIS_OK) throw Error(fmt::format("METIS_PartGraphKway failed with code {}", rc));
  }
  Partition p;
  for (std::int64_t i = 0; i < n; ++i)
    if ((*owner)[static_cast<size_t>(i)] == rank) p.owned.push_back(i);
  p.owner_of = [owner](std::int64_t i) { return static_cast<int>((*owner)[static_cast<size_t>(i)]); };
  p.method = "metis";
  return p;
}
#endif

}  // namespace

Partition make_partition(MPI_Comm comm, const Topology& topology) {
  const int ranks = comm_size(comm);
  const int rank = comm_rank(comm);
  switch (topology.kind()) {
    case TopologyKind::Grid2D:
    case TopologyKind::Grid3D:
      return grid_blocks(topology.config().dims, ranks, rank);
    case TopologyKind::File:
#ifdef RIPPLE_HAVE_METIS
      if (ranks > 1) return metis(topology, ranks, rank);
#endif
      return blocks(topology.size(), ranks, rank);
    default:
      return blocks(topology.size(), ranks, rank);
  }
}

}  // namespace ripple::model
