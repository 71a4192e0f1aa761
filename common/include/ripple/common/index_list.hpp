#pragma once
// Sets of small integers (CPUs, ranks) as people and hwloc write them: "0-3,8".
#include <string>
#include <vector>

namespace ripple {

// "0-3,8" for {0, 1, 2, 3, 8}: runs of consecutive values as ranges, in the order given (sorted
// input gives the canonical form); "" for none.
std::string index_list(const std::vector<int>& values);

}  // namespace ripple
