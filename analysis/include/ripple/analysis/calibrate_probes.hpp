#pragma once
// `ripple calibrate`'s measurements of one node, MPI-free (docs/cxl.md): pointer chase, the atomic
// flag round trip between two processes on shared memory, streaming read bandwidth, the clock.
// Each is repeated and reported as its best with the median beside it (seed 001: best of N).
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace ripple::analysis {

struct Measurement {
  double best = 0, median = 0;  // in the probe's unit
  std::string how;
  [[nodiscard]] double spread() const { return best != 0 ? std::abs(median - best) / best : 0; }  // median vs best
};
// best = the smallest (for times) or largest (for rates, `larger_is_better`) of the samples.
Measurement summarize(std::vector<double> samples, bool larger_is_better, std::string how);

// ns per load of a chase over a random cyclic permutation of the 64-byte lines of `bytes`; with
// numa_node >= 0, the memory bound to that NUMA node.
Measurement pointer_chase_ns(std::size_t bytes, int repetitions, int numa_node = -1);
// ns of one atomic hand-over between this process and a forked child on shared memory: half a
// flag ping-pong's round trip (each half, the waiting side's load fetches the line from the other's
// cache, as an atomic on a CXL pool fetches it from the device).
Measurement atomic_handover_ns(int round_trips, int repetitions);
// Bytes per second of reading `bytes` over and over (one core).
Measurement read_bandwidth(std::size_t bytes, int repetitions);
// The time-stamp counter's rate in GHz (the clock sample latencies in cycles are converted by).
Measurement clock_ghz(int repetitions);
// The last-level cache's size in bytes (sysconf, else 32 MiB).
std::size_t last_level_cache_bytes();

}  // namespace ripple::analysis
