#pragma once
// Precise memory-load sampling through perf_event_open, for the thread that called MPI_Init:
// Intel PEBS load latency (the `mem-loads` event of the cpu PMU with an ldlat threshold, led by
// `mem-loads-aux` where the core needs it) or AMD IBS op; or, for tests and first-touch studies, a
// Linux software event such as page-faults. No signals: the ring buffer is drained by header size
// (perf_decoder) from the recorder's flusher thread, at iteration markers and at MPI_Finalize.
// Sample times come from CLOCK_MONOTONIC, the tracer's own clock (the kernel stamps them). If the event cannot be opened the
// reason is kept and the run goes on.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "ripple/trace/perf_decoder.hpp"
#include "ripple/trace/sample_record.hpp"

namespace ripple::trace::detail {

struct SamplerConfig {
  std::string event = "auto";   // auto | off | mem-loads | ibs_op | page-faults | minor-faults | major-faults
  std::uint64_t period = 4000;  // events between samples (software events: faults)
  std::uint64_t ldlat = 30;     // PEBS load-latency threshold in cycles
  std::size_t max_samples = 1u << 20;
  std::size_t ring_pages = 256;  // data pages of the ring buffer (a power of two): 1 MiB
  std::string sysfs = "/sys/bus/event_source/devices";
};

using trace::SampleRecord;

class MemorySampler {
public:
  MemorySampler() = default;
  MemorySampler(const MemorySampler&) = delete;
  MemorySampler& operator=(const MemorySampler&) = delete;
  ~MemorySampler();

  // `t0` (CLOCK_MONOTONIC seconds at the tracer's start) puts kernel timestamps on the tracer clock.
  void start(const SamplerConfig& config, int rank, double t0);
  // Decodes what the kernel has written since the last drain. Thread-safe.
  void drain();
  // An iteration marker at tracer time t: samples after it belong to `iteration`.
  void mark(double t, int iteration);
  // Spools to `fd` from now on: each spool_new() appends the samples decoded since the last (raw
  // SampleRecords), so that a killed run keeps them for `ripple trace recover`. The recorder calls it
  // from its flush, with the event spool; a failed write stops spooling.
  void spool_to(int fd);
  void spool_new();
  void stop();

  [[nodiscard]] bool active() const { return fd_ >= 0; }
  [[nodiscard]] const std::string& status() const { return status_; }  // "active: ..." or "unavailable: ..."
  [[nodiscard]] const std::vector<SampleRecord>& samples() const { return samples_; }
  [[nodiscard]] std::int64_t lost() const { return lost_; }        // reported lost by the kernel
  [[nodiscard]] std::int64_t dropped() const { return dropped_; }  // beyond max_samples
  // Assigns each sample the iteration of the last marker before it.
  void assign_iterations();

private:
  static void keep(const MemorySample& s, void* self);
  bool open_event(const SamplerConfig& c, std::string& what, std::string& why);

  std::mutex mutex_;
  int fd_ = -1, leader_fd_ = -1;
  void* ring_ = nullptr;
  std::size_t ring_bytes_ = 0;
  std::uint64_t sample_type_ = 0;
  std::string status_ = "unavailable: not started";
  int rank_ = 0;
  double offset_ = 0;  // tracer time = kernel ns * 1e-9 + offset_
  std::size_t max_samples_ = 0;
  std::vector<SampleRecord> samples_;
  std::vector<std::pair<double, int>> marks_;
  std::int64_t lost_ = 0, dropped_ = 0;
  int spool_fd_ = -1;
  std::size_t spooled_ = 0;  // samples_[0, spooled_) are spooled (one spool writer: the recorder's flush)
};

}  // namespace ripple::trace::detail
