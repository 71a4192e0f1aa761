#pragma once
// Precise memory-load sampling through perf_event_open, for the thread that called MPI_Init and
// every thread it starts later (OpenMP workers, say), but not the tracer's own: one event per CPU
// of the rank's affinity mask, inherited by new threads, each with its own ring buffer. Intel PEBS
// load latency (the `mem-loads` event of the cpu PMU with an ldlat threshold, led by
// `mem-loads-aux` where the core needs it) or AMD IBS op; or, for tests and first-touch studies, a
// Linux software event such as page-faults. No signals: the ring buffers are drained by header size
// (perf_decoder) from the recorder's flusher thread, at iteration markers and at MPI_Finalize.
// Sample times come from CLOCK_MONOTONIC, the tracer's own clock (the kernel stamps them). Each
// sample gets its iteration as it is decoded and waits in memory only until the recorder's next
// flush spools it; MPI_Finalize reads the spool back. If the event cannot be opened the reason is
// kept and the run goes on.
#include <linux/perf_event.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "mark_history.hpp"
#include "ripple/trace/perf_decoder.hpp"
#include "ripple/trace/sample_record.hpp"
#include "sample_event.hpp"

namespace ripple::trace::detail {

struct SamplerConfig {
  std::string event = "auto";          // auto | off | mem-loads | ibs_op | page-faults | minor-faults | major-faults
  std::uint64_t period = 4000;         // events between samples (software events: faults)
  std::uint64_t ldlat = 30;            // PEBS load-latency threshold in cycles
  std::size_t max_samples = 1u << 18;  // decoded samples waiting for the spool; more are dropped
  std::size_t ring_pages = 256;        // data pages of the ring buffers together (a power of two): 1 MiB
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
  // An iteration marker now: samples after it belong to `iteration`. The time is read under the
  // lock that drains take, so that no drain sees the sample after the marker but not the marker.
  void mark(int iteration);
  // Spools to `fd` from now on: each spool_new() appends the samples decoded since the last (raw
  // SampleRecords) and forgets them. The recorder calls it from its flush, with the event spool.
  // Without a spool, or after a failed write, decoded samples are dropped (and so counted, per
  // rank, as decoded() less what the spool holds).
  void spool_to(int fd);
  void spool_new();
  void stop();

  [[nodiscard]] bool active() const { return active_.load(std::memory_order_acquire); }
  [[nodiscard]] const std::string& status() const { return status_; }  // "active: ..." or "unavailable: ..."
  [[nodiscard]] std::int64_t lost() const { return lost_; }            // reported lost by the kernel
  [[nodiscard]] std::int64_t decoded() const { return decoded_; }      // every sample decoded, kept or not
  [[nodiscard]] std::size_t pending();                                 // decoded, waiting for spool_new

private:
  // One opened event (and its leader) with its mapped ring buffer.
  struct Ring {
    int fd = -1, leader_fd = -1;
    void* map = nullptr;
    std::size_t bytes = 0;
  };

  static void keep(const MemorySample& s, void* self);
  static bool open_event(const SampleEventSpec& spec, int cpu, Ring& ring, std::string& why);
  bool open_on_cpus(const SampleEventSpec& spec, const std::vector<int>& cpus, std::string& why);
  std::size_t map_rings(std::size_t pages, std::string& why);
  void drain_ring_locked(Ring& ring);
  void close_rings();

  std::mutex mutex_;
  std::vector<Ring> rings_;
  std::atomic<bool> active_{false};
  std::string status_ = "unavailable: not started";
  SampleEventSpec event_;  // what was opened (keep() asks it which samples are loads)
  int rank_ = 0;
  std::uint32_t pid_ = 0;    // the rank's process: samples of processes it forks are not its own
  double offset_ = 0;        // tracer time = kernel ns * 1e-9 + offset_ (a sample's, on the kernel's clock)
  double clock_offset_ = 0;  // tracer time = clock_seconds() + clock_offset_ (this process's clock; differs from
                             // offset_ by a time namespace's offset)
  std::size_t max_samples_ = 0;
  std::vector<SampleRecord> pending_;  // decoded, not yet spooled
  std::vector<SampleRecord> writing_;  // spool_new's: swapped with pending_, so both keep their room
  MarkHistory marks_;
  std::int64_t lost_ = 0, decoded_ = 0;
  int spool_fd_ = -1;
  bool spool_failed_ = false;
};

}  // namespace ripple::trace::detail
