#pragma once
// One rank's row of /ranks/placement (docs/trace-format.md): a fixed-size record, so that every
// rank writes its own row collectively.
#include <cstdint>

namespace ripple::trace {

struct Placement {
  char host[64] = {};
  char binding[128] = {};          // the CPUs it may run on (hwloc list syntax, e.g. "0-3,8"), "" if unknown
  std::int32_t node = -1;          // index of its node, in order of the nodes' lowest world rank
  std::int32_t pu = -1;            // OS index of the CPU it ran on at MPI_Init
  std::int32_t core = -1;          // logical index of that CPU's core
  std::int32_t package = -1;       // logical index of that CPU's package (socket)
  std::int32_t numa = -1;          // OS index of the NUMA node of that CPU
  std::int32_t node_leader = 0;    // 1 on the lowest world rank of each node
  std::int32_t socket_leader = 0;  // 1 on the lowest world rank per (node, package): reads uncore counters
};

}  // namespace ripple::trace
