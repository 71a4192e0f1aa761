#pragma once
// The iteration table of a proxy app's JSON summary (`--json`: "timings" per rank and timed
// iteration: compute, comm and end seconds). The communication graph comes from the app's layout
// (ring: distances and periodic; heat2d: the process grid; hpcg: the 3-D process grid and its
// all-reductions).
#include <string>

#include "ripple/analysis/iteration_table.hpp"

namespace ripple::analysis {

IterationTable table_from_timings(const std::string& path);

}  // namespace ripple::analysis
