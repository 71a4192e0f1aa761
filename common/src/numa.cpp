#include "ripple/common/numa.hpp"

#include <fmt/format.h>
#include <numa.h>
#include <numaif.h>

#include "ripple/common/error.hpp"

namespace ripple {

void check_numa_node(int node, const std::string& option) {
  if (numa_available() < 0) throw InputError(fmt::format("{} {}: no NUMA support here (libnuma)", option, node));
  if (node < 0 || node > numa_max_node())
    throw InputError(fmt::format("{} {}: no such NUMA node here (the highest is {})", option, node, numa_max_node()));
  bitmask* allowed = numa_get_mems_allowed();
  const bool may = numa_bitmask_isbitset(allowed, static_cast<unsigned>(node)) != 0;
  numa_bitmask_free(allowed);
  if (!may) throw InputError(fmt::format("{} {}: this process may not allocate there (its cpuset's memory nodes)", option, node));
}

void bind_to_numa_node(void* p, std::size_t bytes, int node) { numa_tonode_memory(p, bytes, node); }

int numa_node_of(const void* p) {
  int node = -1;
  return get_mempolicy(&node, nullptr, 0, const_cast<void*>(p), MPOL_F_NODE | MPOL_F_ADDR) == 0 ? node : -1;
}

}  // namespace ripple
