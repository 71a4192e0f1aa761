#pragma once
// Sets of small integers (CPUs, ranks) as people and hwloc write them: "0-3,8".
#include <optional>
#include <string>
#include <vector>

namespace ripple {

// "0-3,8" for {0, 1, 2, 3, 8}: runs of consecutive values as ranges, in the order given (sorted
// input gives the canonical form); "" for none.
std::string index_list(const std::vector<int>& values);

// The inverse: the values of "0-3,8", in the order written; nullopt if it is not such a list (or a
// range holds more than 65536 values).
std::optional<std::vector<int>> parse_index_list(const std::string& text);

}  // namespace ripple
