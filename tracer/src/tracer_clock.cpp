#include "tracer_clock.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace ripple::trace::detail {

bool g_use_ticks = false;
TickClock g_ticks;

namespace {

#if defined(__x86_64__)
struct Reading {
  std::uint64_t tick;
  double ref;
};

// Both clocks at one moment: the narrowest of a few rdtsc brackets around clock_gettime.
Reading read_both() {
  Reading best{0, 0};
  std::uint64_t width = UINT64_MAX;
  for (int k = 0; k < 5; ++k) {
    const std::uint64_t a = __rdtsc();
    const double ref = monotonic_seconds();
    const std::uint64_t b = __rdtsc();
    if (b > a && b - a < width) {
      width = b - a;
      best = {a + (b - a) / 2, ref};
    }
  }
  return best;
}

// Why the TSC cannot serve, or "" if it can. Invariant (CPUID: constant rate, running in every
// C-state) and still offered by the kernel as a clocksource (it withdraws a TSC it found unstable or
// unsynchronised between CPUs). Whichever clocksource the kernel uses (kvm-clock on many VMs, whose
// TSC is invariant all the same), the map is re-anchored to CLOCK_MONOTONIC every 0.1 s; stamping
// with clock_gettime instead cost 38 ns a reading there, against 16 ns for rdtsc.
std::string tsc_unusable() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0 || (edx & (1u << 8)) == 0) return "the CPU reports no invariant TSC";
  std::ifstream f("/sys/devices/system/clocksource/clocksource0/available_clocksource");
  std::string sources;
  if (!std::getline(f, sources)) return "the kernel's clocksources are unknown";
  std::istringstream words(sources);
  for (std::string w; words >> w;)
    if (w == "tsc") return "";
  return "the kernel does not offer the TSC as a clocksource (it found it unstable): " + sources;
}
#endif

}  // namespace

std::string start_tracer_clock() {
  const char* env = std::getenv("RIPPLE_TRACE_CLOCK");
  const std::string_view want = env != nullptr && *env != '\0' ? env : "auto";
  if (want == "monotonic") return "CLOCK_MONOTONIC (RIPPLE_TRACE_CLOCK=monotonic)";
#if defined(__x86_64__)
  const std::string why = tsc_unusable();
  if (!why.empty()) return "CLOCK_MONOTONIC (" + why + ")";
  const Reading a = read_both();
  Reading b = a;
  while (b.ref - a.ref < 5e-3) b = read_both();  // calibrate the rate over 5 ms
  const double rate = b.tick > a.tick ? (b.ref - a.ref) / static_cast<double>(b.tick - a.tick) : 0.0;
  if (!(rate > 1e-11 && rate < 1e-8)) return fmt::format("CLOCK_MONOTONIC (implausible TSC rate {:g} s per tick)", rate);
  g_ticks.start(b.tick, b.ref, rate);
  g_use_ticks = true;
  return fmt::format("TSC at {:.4f} GHz, invariant, mapped onto CLOCK_MONOTONIC and re-anchored to it every 0.1 s", 1e-9 / rate);
#else
  return "CLOCK_MONOTONIC (no cycle counter on this architecture)";
#endif
}

std::vector<TickSegment> tick_segments(std::size_t from) {
  if (g_use_ticks) return g_ticks.segments(from);
  if (from > 0) return {};
  return {TickSegment{0, 0.0, 1e-9}};
}

void release_tick_segments(std::size_t upto) {
  if (g_use_ticks) g_ticks.release(upto);
}

void anchor_tracer_clock() {
#if defined(__x86_64__)
  if (!g_use_ticks) return;
  const Reading r = read_both();
  g_ticks.anchor(r.tick, r.ref);
#endif
}

}  // namespace ripple::trace::detail
