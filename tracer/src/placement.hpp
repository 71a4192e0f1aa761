#pragma once
// Where each rank runs: host, binding, and the core, package (socket) and NUMA node it runs on,
// from hwloc; plus each node's hwloc topology as XML, exported once per node by its leader (the
// lowest world rank on the node). A rank whose topology hwloc cannot load says why; nothing aborts.
#include <mpi.h>
#include <pthread.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ripple/trace/placement_record.hpp"

namespace ripple::trace::detail {

using trace::Placement;

struct PlacementInfo {
  Placement me;
  std::string node_xml;           // the node's topology, on node leaders only
  std::vector<int> package_cpus;  // OS indices of the CPUs of the package it runs on
  // CPUs of the node that no rank of it is bound to, within the job's cgroup and the launcher's
  // affinity (those of this rank's package, if it has any): where the tracer's own thread can run
  // without taking a rank's time. Empty if none, and then no_free_cpus says why.
  std::vector<int> free_cpus;
  std::string no_free_cpus;
  std::string status;  // "hwloc <version>" or why the topology is missing
};

// Collective over `world`: probes this rank and elects the node and socket leaders.
PlacementInfo probe_placement(MPI_Comm world);

// The CPUs process (or thread) `pid` may run on, in order (0: the calling thread); empty if the
// kernel does not say.
std::vector<int> affinity_of(pid_t pid);

// Moves `thread` (the tracer's flusher) to the free CPUs unless there are none or
// RIPPLE_TRACE_FLUSHER_CPUS=rank, names it ripple-flusher, and says where it runs (for the
// placement status).
std::string place_tracer_thread(pthread_t thread, const PlacementInfo& where);

}  // namespace ripple::trace::detail
