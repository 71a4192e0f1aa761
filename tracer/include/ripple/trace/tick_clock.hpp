#pragma once
// A cycle counter (the x86 TSC) read as seconds on a reference clock (CLOCK_MONOTONIC): the tracer
// stamps events with one rdtsc (10.7 ns on the development VM, against 20 for a vDSO clock_gettime)
// and turns the ticks into seconds afterwards, with the map's pieces as they were published
// (TickMap); the live map serves the tracer's other clock readings. The map
//     seconds(tick) = base_seconds + (tick - base_tick) * rate
// is started from a short calibration and re-anchored to the reference from the flusher thread.
// Re-anchoring keeps the map continuous at the anchor (so that timestamps stay monotone) and slews
// its rate so that it meets the reference one interval later (the longest of the last few), as NTP
// slews a clock: the map's distance to the reference stays at what the reference's rate changes
// within one interval.
// Pure arithmetic on given readings, so it is unit-tested on synthetic clocks
// (tests/unit/tick_clock_test.cpp). Readers never block: a sequence lock, one writer at a time.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace ripple::trace {

// One piece of the map: from `tick` on, seconds(t) = seconds + (t - tick) * rate.
struct TickSegment {
  std::uint64_t tick = 0;
  double seconds = 0;
  double rate = 0;
  [[nodiscard]] double at(std::uint64_t t) const {
    return seconds + static_cast<double>(static_cast<std::int64_t>(t - tick)) * rate;
  }
};

// The map as it was published, piece by piece, so that ticks recorded earlier become the seconds
// TickClock::seconds gave for them then (each piece starts where the one before had got to: the
// function is continuous and monotone). The recorder stores raw ticks and converts them with this at
// MPI_Finalize and in `recover`, which keeps the conversion off the hot path.
class TickMap {
public:
  TickMap() = default;
  explicit TickMap(std::vector<TickSegment> segments) : segments_(std::move(segments)) {}
  // By the last piece that starts at or before `tick` (the first one for earlier ticks). Ticks that
  // come in nearly increasing order, as a rank's events do, cost O(1) each.
  [[nodiscard]] double seconds(std::uint64_t tick) const;
  [[nodiscard]] bool empty() const { return segments_.empty(); }
  [[nodiscard]] const std::vector<TickSegment>& segments() const { return segments_; }

private:
  std::vector<TickSegment> segments_;
  mutable std::size_t at_ = 0;  // the piece the last tick fell in
};

// An event's time as the recorder stamps it (raw ticks since `tick0`, a whole number in a double)
// in seconds by `map`; NaN for a value no recorder writes (a damaged raw record's).
double stamp_seconds(const TickMap& map, std::uint64_t tick0, double stamp);

class TickClock {
public:
  // Starts the map at the reading (tick, ref) with `rate` seconds per tick.
  void start(std::uint64_t tick, double ref, double rate);
  // A new reading of both clocks. Readings closer than min_interval seconds to the last are ignored
  // (their rate would be dominated by the reading error).
  void anchor(std::uint64_t tick, double ref);
  // The tick on the reference clock's scale. Safe from any thread, concurrently with anchor().
  [[nodiscard]] double seconds(std::uint64_t tick) const {
    for (;;) {
      const std::uint32_t s1 = seq_.load(std::memory_order_acquire);
      const std::uint64_t base_tick = base_tick_.load(std::memory_order_relaxed);
      const double base = base_seconds_.load(std::memory_order_relaxed);
      const double rate = rate_.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if ((s1 & 1u) == 0 && seq_.load(std::memory_order_relaxed) == s1) return TickSegment{base_tick, base, rate}.at(tick);
    }
  }
  [[nodiscard]] double rate() const { return rate_.load(std::memory_order_relaxed); }
  // Every piece published so far from the `from`th on (counting from the start's, 0), in order;
  // `from` at least released().
  [[nodiscard]] std::vector<TickSegment> segments(std::size_t from = 0) const;
  // Forgets the pieces before the `upto`th (the recorder has them in its clock spool), so that a long
  // run's map does not grow in memory.
  void release(std::size_t upto);
  [[nodiscard]] std::size_t released() const;

  static constexpr double kMinInterval = 1e-3;
  // The slewed rate stays within this relative distance of the reference's rate since the start
  // (NTP slews CLOCK_MONOTONIC by at most 5e-4): the map never runs backwards, two consecutive maps
  // agree to 1e-3 of the time since their anchor, and a step of the reference is slewed out.
  static constexpr double kMaxSlew = 1e-3;

private:
  void publish(std::uint64_t tick, double seconds, double rate);

  std::atomic<std::uint32_t> seq_{0};
  std::atomic<std::uint64_t> base_tick_{0};
  std::atomic<double> base_seconds_{0};
  std::atomic<double> rate_{0};
  mutable std::mutex writer_;
  std::vector<TickSegment> published_;  // the pieces from the released_th on (24 bytes per re-anchoring)
  std::size_t released_ = 0;
  std::uint64_t first_tick_ = 0, last_tick_ = 0;  // the start's and the last accepted reading
  double first_ref_ = 0, last_ref_ = 0;
  static constexpr std::size_t kIntervals = 8;
  std::uint64_t intervals_[kIntervals] = {};  // the last accepted intervals, in ticks (anchor())
  std::uint64_t accepted_ = 0;                // readings accepted since the start
};

}  // namespace ripple::trace
