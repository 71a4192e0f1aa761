#pragma once
// The tracer's clock: seconds on CLOCK_MONOTONIC's scale, the clock the kernel stamps perf samples
// with and the one offsets to rank 0 are measured on. Where the TSC is invariant and the kernel
// still offers it as a clocksource (whichever it uses), events carry raw rdtsc readings and
// a TickClock, re-anchored to CLOCK_MONOTONIC every 0.1 s by the flusher, maps them (tick_clock.hpp);
// otherwise, or with RIPPLE_TRACE_CLOCK=monotonic, they carry clock_gettime's nanoseconds.
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "ripple/trace/tick_clock.hpp"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace ripple::trace::detail {

inline double monotonic_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
inline std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

extern bool g_use_ticks;  // set once, at MPI_Init, before the recorder publishes g_recording.on (recorder.hpp)
extern TickClock g_ticks;

inline double clock_seconds() {
#if defined(__x86_64__)
  if (g_use_ticks) return g_ticks.seconds(__rdtsc());
#endif
  return monotonic_seconds();
}

// What events are stamped with: a TSC reading, or CLOCK_MONOTONIC in nanoseconds. tick_segments()
// turns them into seconds afterwards (a TickMap), so the hot path does no arithmetic on them.
inline std::uint64_t raw_tick() {
#if defined(__x86_64__)
  if (g_use_ticks) return __rdtsc();
#endif
  return monotonic_ns();
}
// A raw tick in seconds, by the map in force now.
inline double tick_seconds(std::uint64_t tick) {
  if (g_use_ticks) return g_ticks.seconds(tick);
  return 1e-9 * static_cast<double>(tick);
}
// The map of raw ticks to seconds, from its `from`th piece on: the TickClock's pieces, or for
// CLOCK_MONOTONIC the one piece tick * 1e-9.
std::vector<TickSegment> tick_segments(std::size_t from = 0);
// Forgets the map's pieces before the `upto`th in memory: they are in the clock spool.
void release_tick_segments(std::size_t upto);

// Chooses and calibrates the clock (about 5 ms); returns what the trace file says about it.
std::string start_tracer_clock();
// A fresh reading of both clocks for the tick map (no-op without ticks). Any thread, any time.
void anchor_tracer_clock();

}  // namespace ripple::trace::detail
