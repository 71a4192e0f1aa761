#pragma once
// Which rank owns which oscillators: contiguous blocks for chains, rings and all-to-all, 2D/3D blocks
// for grids, METIS for graphs read from a file.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ripple/model/topology.hpp"

namespace ripple::model {

struct Partition {
  std::vector<std::int64_t> owned;            // ascending global ids of this rank's oscillators
  std::function<int(std::int64_t)> owner_of;  // any global id -> rank
  std::string method;                         // "blocks", "grid-blocks PxQ[xR]" or "metis"
};

Partition make_partition(MPI_Comm comm, const Topology& topology);

// The [begin, end) block of `n` items that part `p` of `parts` owns (the first n % parts get one more).
std::pair<std::int64_t, std::int64_t> block_range(std::int64_t n, int parts, int p);
int block_owner(std::int64_t n, int parts, std::int64_t i);

}  // namespace ripple::model
