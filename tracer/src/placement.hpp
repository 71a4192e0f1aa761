#pragma once
// Where each rank runs: host, binding, and the core, package (socket) and NUMA node it runs on,
// from hwloc; plus each node's hwloc topology as XML, exported once per node by its leader (the
// lowest world rank on the node). A rank whose topology hwloc cannot load says why; nothing aborts.
#include <mpi.h>

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
  std::string status;             // "hwloc <version>" or why the topology is missing
};

// Collective over `world`: probes this rank and elects the node and socket leaders.
PlacementInfo probe_placement(MPI_Comm world);

}  // namespace ripple::trace::detail
