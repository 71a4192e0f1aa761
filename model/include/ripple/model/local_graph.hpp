#pragma once
// One rank's part of the topology matrix T as a list of couplings between columns: the rank's own
// oscillators (columns 0 .. n_local-1, ascending global id) and ghosts (copies of other ranks'
// oscillators, columns n_local.., ordered by owner rank, then global id).
#include <cstdint>
#include <functional>
#include <vector>

#include "ripple/model/topology.hpp"

namespace ripple::model {

struct LocalGraph {
  std::vector<std::int64_t> local_ids;
  std::vector<std::int64_t> ghost_ids;
  std::vector<int> ghost_owners;
  // Directed form (symmetric == false): edge k says local row edge_a[k] reads column edge_b[k].
  // Symmetric form (T_ij = T_ji): one edge per coupled pair, edge_a the column of the smaller global
  // id; V(theta_a - theta_b) counts for row a and its negative for row b.
  // Edges run by offset (id b - id a), then by id a. The kernel adds V to the rows in edge order,
  // one pass for the a side and, symmetric, one for the b side, so a row meets its partners in an
  // order fixed by global ids alone: directed, ascending; symmetric, those above it ascending, then
  // those below it from the nearest. This is what makes sums bitwise rank-independent.
  bool symmetric = false;
  std::vector<std::uint32_t> edge_a;
  std::vector<std::uint32_t> edge_b;
  // The edges in consecutive runs; in an affine run both columns step by one from edge to edge, and
  // each of its two columns is local all along or a ghost all along.
  struct Run {
    std::uint32_t begin, end;
    bool affine;
  };
  std::vector<Run> runs;
  std::vector<std::uint32_t> degree;  // partners of each local row (empty for the mean field)
  double uniform_degree = 0;          // mean field: N - 1 for every row

  [[nodiscard]] std::size_t n_local() const { return local_ids.size(); }
  [[nodiscard]] std::size_t n_ghost() const { return ghost_ids.size(); }
  [[nodiscard]] std::size_t n_columns() const { return local_ids.size() + ghost_ids.size(); }
  [[nodiscard]] std::size_t edges() const { return edge_a.size(); }
  [[nodiscard]] std::int64_t column_id(std::uint32_t c) const { return c < n_local() ? local_ids[c] : ghost_ids[c - n_local()]; }
};

// The couplings of the oscillators in `local_ids` (ascending). `owner_of` names the rank of any
// oscillator. `symmetric` asks for the symmetric form; it needs topology.is_symmetric().
LocalGraph build_local_graph(const Topology& topology, std::vector<std::int64_t> local_ids,
                             const std::function<int(std::int64_t)>& owner_of, bool symmetric);

// Rows without explicit couplings, for the all-to-all mean field (every degree is N - 1).
LocalGraph mean_field_graph(std::vector<std::int64_t> local_ids, std::int64_t oscillators);

}  // namespace ripple::model
