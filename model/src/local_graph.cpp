#include "ripple/model/local_graph.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

#include "ripple/common/error.hpp"

namespace ripple::model {

LocalGraph build_local_graph(const Topology& topology, std::vector<std::int64_t> local_ids,
                             const std::function<int(std::int64_t)>& owner_of, bool symmetric) {
  RIPPLE_VERIFY(!symmetric || topology.is_symmetric(), "symmetric couplings asked for a directed topology");
  LocalGraph g;
  g.local_ids = std::move(local_ids);
  g.symmetric = symmetric;
  const auto local_column = [&](std::int64_t id) -> std::int64_t {
    const auto it = std::lower_bound(g.local_ids.begin(), g.local_ids.end(), id);
    return (it != g.local_ids.end() && *it == id) ? it - g.local_ids.begin() : -1;
  };

  // Couplings by global id: (row, partner) when directed, (smaller, larger) when symmetric.
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  std::vector<std::pair<int, std::int64_t>> ghosts;  // (owner, id)
  std::vector<std::int64_t> nb;
  g.degree.reserve(g.local_ids.size());
  for (const std::int64_t i : g.local_ids) {
    topology.neighbours(i, nb);
    g.degree.push_back(static_cast<std::uint32_t>(nb.size()));
    for (const std::int64_t j : nb) {
      const bool j_local = local_column(j) >= 0;
      if (!j_local) ghosts.emplace_back(owner_of(j), j);
      if (!symmetric || j > i)
        pairs.emplace_back(i, j);
      else if (!j_local)
        pairs.emplace_back(j, i);  // a local pair (j, i) comes from row j
    }
  }
  RIPPLE_VERIFY(pairs.size() < std::numeric_limits<std::uint32_t>::max() &&
                    g.local_ids.size() + ghosts.size() < std::numeric_limits<std::uint32_t>::max(),
                "more than 2^32 couplings or columns on one rank: use more ranks");
  // Order by offset (partner - row), then row: each row meets its partners in an order fixed by
  // global ids alone, and a stencil's couplings form long runs of consecutive columns.
  std::sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) {
    return std::pair(x.second - x.first, x.first) < std::pair(y.second - y.first, y.first);
  });

  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  std::unordered_map<std::int64_t, std::uint32_t> ghost_column;
  ghost_column.reserve(ghosts.size());
  for (const auto& [owner, id] : ghosts) {
    ghost_column.emplace(id, static_cast<std::uint32_t>(g.local_ids.size() + g.ghost_ids.size()));
    g.ghost_ids.push_back(id);
    g.ghost_owners.push_back(owner);
  }
  const auto column = [&](std::int64_t id) {
    const std::int64_t l = local_column(id);
    return l >= 0 ? static_cast<std::uint32_t>(l) : ghost_column.at(id);
  };
  g.edge_a.reserve(pairs.size());
  g.edge_b.reserve(pairs.size());
  for (const auto& [a, b] : pairs) {
    g.edge_a.push_back(column(a));
    g.edge_b.push_back(column(b));
  }
  // Runs of edges whose two columns both step by one can be processed without index arrays. A run
  // stays on one side of the local/ghost boundary, so that its columns come from one array.
  constexpr std::size_t kMinAffine = 8;
  const std::size_t n = g.n_local();
  const auto continues = [&](std::size_t e) {
    return g.edge_a[e] == g.edge_a[e - 1] + 1 && g.edge_b[e] == g.edge_b[e - 1] + 1 && g.edge_a[e] != n && g.edge_b[e] != n;
  };
  std::size_t k = 0;
  while (k < g.edges()) {
    std::size_t end = k + 1;
    while (end < g.edges() && continues(end)) ++end;
    const bool affine = end - k >= kMinAffine;
    if (!affine && !g.runs.empty() && !g.runs.back().affine)
      g.runs.back().end = static_cast<std::uint32_t>(end);
    else
      g.runs.push_back({static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(end), affine});
    k = end;
  }
  return g;
}

LocalGraph mean_field_graph(std::vector<std::int64_t> local_ids, std::int64_t oscillators) {
  LocalGraph g;
  g.local_ids = std::move(local_ids);
  g.uniform_degree = static_cast<double>(oscillators - 1);
  return g;
}

}  // namespace ripple::model
