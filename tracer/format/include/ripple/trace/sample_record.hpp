#pragma once
// One precise memory sample as stored in /samples/records (docs/trace-format.md).
#include <cstdint>

namespace ripple::trace {

struct SampleRecord {
  double time = 0;  // seconds, the trace's clock (while recording: since this rank's start)
  std::uint64_t ip = 0;
  std::uint64_t addr = 0;      // the data address loaded (software fault events: the faulting address)
  std::uint64_t weight = 0;    // load latency in cycles (0 where the source has none)
  std::uint64_t data_src = 0;  // PERF_SAMPLE_DATA_SRC as the kernel gave it
  std::int32_t rank = 0;
  std::int32_t iteration = -1;  // the last iteration marker before the sample
  std::int32_t cpu = -1;
  std::int32_t tid = 0;
  std::int32_t level = 0;  // DataSource::Level decoded from data_src (names: the level_names attribute)
  std::int32_t hit = -1;   // 1 hit, 0 miss, -1 not reported
};

}  // namespace ripple::trace
