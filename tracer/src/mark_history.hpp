#pragma once
// The last iteration markers of a rank, for memory samples: the kernel hands a sample over at the
// next drain, which may come after a later marker, so a sample gets the iteration of the last
// marker at or before its own time. Only the newest kMarks are kept (memory stays bounded); a sample
// older than all of them gets the iteration of the newest marker forgotten, which is exact unless a
// sample waits in the kernel for more than kMarks markers (drains come at every marker and every
// 0.1 s).
#include <array>
#include <cstddef>
#include <utility>

namespace ripple::trace::detail {

class MarkHistory {
public:
  static constexpr std::size_t kMarks = 64;

  // A marker at time t: what follows it belongs to `iteration`. Times come in order. (A fixed ring:
  // called inside MPI_Pcontrol, it never allocates.)
  void add(double t, int iteration) {
    if (count_ == kMarks) forgotten_ = marks_[next_].second;  // the oldest, overwritten now
    marks_[next_] = {t, iteration};
    next_ = (next_ + 1) % kMarks;
    if (count_ < kMarks) ++count_;
  }
  // The iteration at time t: -1 before the first marker.
  [[nodiscard]] int iteration_at(double t) const {
    for (std::size_t k = 1; k <= count_; ++k) {  // newest first: usually the one
      const auto& [time, iteration] = marks_[(next_ + kMarks - k) % kMarks];
      if (time <= t) return iteration;
    }
    return forgotten_;
  }

private:
  std::array<std::pair<double, int>, kMarks> marks_{};
  std::size_t next_ = 0, count_ = 0;
  int forgotten_ = -1;
};

}  // namespace ripple::trace::detail
