#include "ripple/trace/tick_clock.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ripple::trace {

void TickClock::publish(std::uint64_t tick, double seconds, double rate) {
  const std::uint32_t s = seq_.load(std::memory_order_relaxed);
  seq_.store(s + 1, std::memory_order_relaxed);  // odd: readers retry
  std::atomic_thread_fence(std::memory_order_release);
  base_tick_.store(tick, std::memory_order_relaxed);
  base_seconds_.store(seconds, std::memory_order_relaxed);
  rate_.store(rate, std::memory_order_relaxed);
  seq_.store(s + 2, std::memory_order_release);
  published_.push_back({tick, seconds, rate});
}

std::vector<TickSegment> TickClock::segments(std::size_t from) const {
  const std::lock_guard<std::mutex> guard(writer_);
  from = std::max(from, released_) - released_;
  if (from >= published_.size()) return {};
  return {published_.begin() + static_cast<std::ptrdiff_t>(from), published_.end()};
}

void TickClock::release(std::size_t upto) {
  const std::lock_guard<std::mutex> guard(writer_);
  const std::size_t n = std::min(upto > released_ ? upto - released_ : 0, published_.size());
  published_.erase(published_.begin(), published_.begin() + static_cast<std::ptrdiff_t>(n));
  released_ += n;
}

std::size_t TickClock::released() const {
  const std::lock_guard<std::mutex> guard(writer_);
  return released_;
}

double stamp_seconds(const TickMap& map, std::uint64_t tick0, double stamp) {
  if (!(std::fabs(stamp) < 9e18)) return std::numeric_limits<double>::quiet_NaN();  // the cast below would be undefined
  return map.seconds(tick0 + static_cast<std::uint64_t>(static_cast<std::int64_t>(stamp)));
}

double TickMap::seconds(std::uint64_t tick) const {
  if (segments_.empty()) return 0;
  std::size_t k = at_ < segments_.size() ? at_ : 0;
  if (segments_[k].tick > tick) {  // earlier than the last one: search back
    const auto it = std::upper_bound(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(k), tick,
                                     [](std::uint64_t t, const TickSegment& s) { return t < s.tick; });
    k = it == segments_.begin() ? 0 : static_cast<std::size_t>(it - segments_.begin()) - 1;
  } else {
    while (k + 1 < segments_.size() && segments_[k + 1].tick <= tick) ++k;
  }
  at_ = k;
  return segments_[k].at(tick);
}

void TickClock::start(std::uint64_t tick, double ref, double rate) {
  const std::lock_guard<std::mutex> guard(writer_);
  published_.clear();
  released_ = 0;
  first_tick_ = last_tick_ = tick;
  first_ref_ = last_ref_ = ref;
  accepted_ = 0;
  publish(tick, ref, rate);
}

void TickClock::anchor(std::uint64_t tick, double ref) {
  const std::lock_guard<std::mutex> guard(writer_);
  if (tick <= last_tick_ || ref - last_ref_ < kMinInterval) return;
  const double interval = static_cast<double>(tick - last_tick_);
  const double measured = (ref - last_ref_) / interval;  // the reference's rate over the last interval
  const double now = seconds(tick);                      // where the map is: it stays continuous here
  // Meet the reference extrapolated one interval ahead: now + ahead * rate = ref + ahead * measured,
  // within kMaxSlew of the rate since the start (which a step of the reference barely moves). The next
  // interval is not known: `ahead` is the longest of the last kIntervals. A correction meant for a
  // short interval and kept over one more than twice as long overshoots by more than it corrects, and
  // intervals that alternate so (a flush between every other pair of anchors) would make the map's
  // distance grow to the slew limit; intervals alike are still met at the next anchor.
  intervals_[accepted_++ % kIntervals] = tick - last_tick_;
  const double ahead =
      static_cast<double>(*std::max_element(intervals_, intervals_ + std::min<std::uint64_t>(accepted_, kIntervals)));
  const double overall = (ref - first_ref_) / static_cast<double>(tick - first_tick_);
  const double rate = std::clamp(measured + (ref - now) / ahead, (1 - kMaxSlew) * overall, (1 + kMaxSlew) * overall);
  last_tick_ = tick;
  last_ref_ = ref;
  publish(tick, now, rate);
}

}  // namespace ripple::trace
