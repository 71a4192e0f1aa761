#include "ripple/analysis/comm_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <set>

namespace ripple::analysis {

void CommGraph::add_edge(int a, int b) {
  if (a == b || a < 0 || b < 0 || a >= ranks() || b >= ranks()) return;
  // A trace adds the same few edges once per message: look before adding (a rank has few partners).
  auto& na = neighbours_[static_cast<std::size_t>(a)];
  if (std::find(na.begin(), na.end(), b) != na.end()) return;
  na.push_back(b);
  neighbours_[static_cast<std::size_t>(b)].push_back(a);
}

void CommGraph::finish() {
  for (auto& n : neighbours_) {
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
  }
}

bool CommGraph::looks_like_ring() const {
  const int n = ranks();
  if (n < 3) return false;
  const auto offsets = [&](int a) {
    std::vector<int> out;
    for (const int b : neighbours(a)) out.push_back(((b - a) % n + n) % n);
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<int> first = offsets(0);
  bool wraps = false;
  for (int a = 0; a < n; ++a) {
    if (offsets(a) != first) return false;
    for (const int b : neighbours(a)) wraps = wraps || 2 * std::abs(a - b) > n;
  }
  return wraps && !first.empty();
}

std::int64_t CommGraph::edges() const {
  std::int64_t twice = 0;
  for (const auto& n : neighbours_) twice += static_cast<std::int64_t>(n.size());
  return twice / 2;
}

std::string CommGraph::offsets_text() const {
  std::set<int> seen;
  for (int a = 0; a < ranks(); ++a)
    for (const int b : neighbours(a)) seen.insert(std::abs(offset(a, b)));
  if (seen.empty()) return "none";
  std::string out = "rank offsets";
  int named = 0;
  for (const int d : seen) {
    if (named++ == 8) return out + fmt::format(" and {} more", seen.size() - 8);
    out += fmt::format("{} ±{}", named > 1 ? "," : "", d);
  }
  return out;
}

std::vector<int> CommGraph::hops_from(int source) const {
  std::vector<int> hops(static_cast<std::size_t>(ranks()), -1);
  if (source < 0 || source >= ranks()) return hops;
  hops[static_cast<std::size_t>(source)] = 0;
  if (all_to_all_) {
    for (int r = 0; r < ranks(); ++r)
      if (r != source) hops[static_cast<std::size_t>(r)] = 1;
    return hops;
  }
  std::deque<int> queue{source};
  while (!queue.empty()) {
    const int a = queue.front();
    queue.pop_front();
    for (const int b : neighbours(a)) {
      if (hops[static_cast<std::size_t>(b)] >= 0) continue;
      hops[static_cast<std::size_t>(b)] = hops[static_cast<std::size_t>(a)] + 1;
      queue.push_back(b);
    }
  }
  return hops;
}

int CommGraph::offset(int source, int rank) const {
  int d = rank - source;
  if (!periodic_) return d;
  const int n = ranks();
  if (2 * d > n) d -= n;
  if (2 * d <= -n) d += n;
  return d;
}

}  // namespace ripple::analysis
