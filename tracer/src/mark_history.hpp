#pragma once
// The last iteration markers of a rank, for memory samples: the kernel hands a sample over at the
// next drain, which may come after a later marker, so a sample gets the iteration of the last
// marker at or before its own time. Only the newest kMarks are kept (memory stays bounded); a sample
// older than all of them gets the iteration of the newest marker forgotten, which is exact unless a
// sample waits in the kernel for more than kMarks markers (drains come at every marker and every
// 0.1 s).
#include <cstddef>
#include <deque>
#include <utility>

namespace ripple::trace::detail {

class MarkHistory {
public:
  static constexpr std::size_t kMarks = 64;

  // A marker at time t: what follows it belongs to `iteration`. Times come in order.
  void add(double t, int iteration) {
    if (marks_.size() == kMarks) {
      forgotten_ = marks_.front().second;
      marks_.pop_front();
    }
    marks_.emplace_back(t, iteration);
  }
  // The iteration at time t: -1 before the first marker.
  [[nodiscard]] int iteration_at(double t) const {
    for (auto it = marks_.rbegin(); it != marks_.rend(); ++it)  // usually the newest
      if (it->first <= t) return it->second;
    return forgotten_;
  }

private:
  std::deque<std::pair<double, int>> marks_;
  int forgotten_ = -1;
};

}  // namespace ripple::trace::detail
