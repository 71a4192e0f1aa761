#pragma once
// Which buffers to move to a CXL pool of limited capacity: a 0/1 knapsack over the buffers that gain
// (benefit > 0), weight = bytes the buffer spans, value = the time it saves (docs/cxl.md).
#include <cstdint>
#include <vector>

namespace ripple::analysis {

struct PlanItem {
  std::int64_t bytes = 0;  // > 0
  double benefit_ns = 0;   // what moving it saves (MPI cost − CXL cost); items with benefit <= 0 are never chosen
};

struct Plan {
  std::vector<int> chosen;  // indices into the items, ascending
  std::int64_t bytes = 0;
  double benefit_ns = 0;
  bool exact = true;  // false: sizes were rounded up to fit the table (chosen fits, may miss the best by a little)
};

// The best set within `capacity` bytes: exact dynamic programming over sizes in units of their
// greatest common divisor with the capacity; where that table would exceed about 4·10⁶ cells the
// sizes are rounded up to coarser units (exact = false), which never overfills.
Plan plan_capacity(const std::vector<PlanItem>& items, std::int64_t capacity);

}  // namespace ripple::analysis
