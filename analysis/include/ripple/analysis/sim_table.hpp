#pragma once
// The iteration table of a `ripple sim` run with iteration crossings ([output] iterations = true):
// oscillator i ends iteration k when its phase reaches 2 pi (k + 1). Its "wait" is how much later
// that came than free running from its initial phase would have brought it, against the previous
// crossing (negative where coupling pulled it ahead); its "compute" the free-running part. Kicks
// are the injected delays, counted as compute in the iteration they hit (a delayed rank computes
// longer; its neighbours wait); the graph is the configuration's topology.
#include <string>

#include "ripple/analysis/iteration_table.hpp"

namespace ripple::analysis {

IterationTable table_from_sim(const std::string& path);

}  // namespace ripple::analysis
