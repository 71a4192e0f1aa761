#pragma once
// NUMA placement for the far-memory emulation (heat2d --shm-numa, calibrate --numa): the one place
// that calls libnuma (ripple::numa, its own library, so that the installed tracer does not need it).
#include <cstddef>
#include <string>

namespace ripple {

// InputError naming `option` unless NUMA node `node` is here and this process may allocate on it.
void check_numa_node(int node, const std::string& option);
// Binds [p, p + bytes) to NUMA node `node`; before the first touch, which places the pages.
void bind_to_numa_node(void* p, std::size_t bytes, int node);
// The NUMA node that holds the (touched) page at p, -1 if unknown.
int numa_node_of(const void* p);

}  // namespace ripple
