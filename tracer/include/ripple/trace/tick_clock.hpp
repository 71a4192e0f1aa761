#pragma once
// A cycle counter (the x86 TSC) read as seconds on a reference clock (CLOCK_MONOTONIC): the tracer's
// hot path then stamps an event with one rdtsc and one multiply-add instead of a vDSO clock_gettime
// (14 against 33 ns each on the development VM). The map
//     seconds(tick) = base_seconds + (tick - base_tick) * rate
// is started from a short calibration and re-anchored to the reference from the flusher thread.
// Re-anchoring keeps the map continuous at the anchor (so that timestamps stay monotone) and slews
// its rate so that it meets the reference one interval later, as NTP slews a clock: the map's
// distance to the reference stays at what the reference's rate changes within one interval.
// Pure arithmetic on given readings, so it is unit-tested on synthetic clocks
// (tests/unit/tick_clock_test.cpp). Readers never block: a sequence lock, one writer at a time.
#include <atomic>
#include <cstdint>
#include <mutex>

namespace ripple::trace {

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
      if ((s1 & 1u) == 0 && seq_.load(std::memory_order_relaxed) == s1)
        return base + static_cast<double>(static_cast<std::int64_t>(tick - base_tick)) * rate;
    }
  }
  [[nodiscard]] double rate() const { return rate_.load(std::memory_order_relaxed); }

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
  std::mutex writer_;
  std::uint64_t first_tick_ = 0, last_tick_ = 0;  // the start's and the last accepted reading
  double first_ref_ = 0, last_ref_ = 0;
};

}  // namespace ripple::trace
