#include "ripple/analysis/cxl_plan.hpp"

#include <algorithm>
#include <numeric>

namespace ripple::analysis {

Plan plan_capacity(const std::vector<PlanItem>& items, std::int64_t capacity) {
  Plan plan;
  std::vector<int> useful;
  for (int i = 0; i < static_cast<int>(items.size()); ++i)
    if (items[i].benefit_ns > 0 && items[i].bytes > 0 && items[i].bytes <= capacity) useful.push_back(i);
  if (useful.empty() || capacity <= 0) return plan;
  std::int64_t unit = capacity;
  for (int i : useful) unit = std::gcd(unit, items[i].bytes);
  constexpr std::int64_t kCells = 4'000'000;  // 32 MB of doubles
  const auto n = static_cast<std::int64_t>(useful.size());
  if ((capacity / unit + 1) * (n + 1) > kCells) {
    unit = (capacity * (n + 1) + kCells - 1) / kCells;  // coarser: sizes round up, the capacity down
    plan.exact = false;
  }
  const std::int64_t cap = capacity / unit;
  std::vector<std::int64_t> size(useful.size());
  for (std::size_t k = 0; k < useful.size(); ++k) size[k] = (items[useful[k]].bytes + unit - 1) / unit;
  // best[k][c]: the most benefit from the first k items within c units; kept whole to trace back.
  std::vector<std::vector<double>> best(useful.size() + 1, std::vector<double>(static_cast<std::size_t>(cap) + 1, 0));
  for (std::size_t k = 1; k <= useful.size(); ++k)
    for (std::int64_t c = 0; c <= cap; ++c) {
      double b = best[k - 1][c];
      if (size[k - 1] <= c) b = std::max(b, best[k - 1][c - size[k - 1]] + items[useful[k - 1]].benefit_ns);
      best[k][c] = b;
    }
  for (std::int64_t c = cap, k = n; k > 0; --k)
    if (best[k][c] != best[k - 1][c]) {
      plan.chosen.push_back(useful[k - 1]);
      c -= size[k - 1];
    }
  std::sort(plan.chosen.begin(), plan.chosen.end());
  for (int i : plan.chosen) {
    plan.bytes += items[i].bytes;
    plan.benefit_ns += items[i].benefit_ns;
  }
  return plan;
}

}  // namespace ripple::analysis
