#pragma once
// Counter source of the tracer. Counters count the thread that called MPI_Init and the threads it
// starts later (OpenMP workers, say), as the memory sampler does. Each requested event is read
// through PAPI, in one event set per PAPI component (PAPI runs one set per component at a time)
// asked to inherit to new threads. Linux software events named perf::... are opened directly
// through perf_event_open, inherited, where PAPI cannot count them or cannot make them inherit (its
// perf_event component is disabled, or refuses PAPI_INHERIT, on machines without a hardware PMU).
// An event that neither can count is recorded as unavailable, with the reason; nothing aborts.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ripple::trace::detail {

struct CounterStatus {
  std::string name;
  bool active = false;
  std::string how;  // "papi", "perf_event_open", or why it is unavailable
};

class Counters {
public:
  Counters() = default;
  Counters(const Counters&) = delete;
  Counters& operator=(const Counters&) = delete;
  ~Counters();
  // Starts counting `names` for the calling thread and the threads it starts later.
  void start(const std::vector<std::string>& names);
  // Adds uncore events (named uncore::EVENT), each summed over the uncore PMUs that have it
  // (uncore_plan.hpp). Only a socket leader opens them, on its package; the other ranks of the
  // package record -1 and say who reads them. Call after start().
  void start_uncore(const std::vector<std::string>& events, bool socket_leader, const std::vector<int>& package_cpus);
  // One value per name; -1 where the event is unavailable. Any thread may call it (iteration
  // markers come from any thread); calls are serialised.
  void read(std::int64_t* out);
  [[nodiscard]] std::size_t size() const { return status_.size(); }
  [[nodiscard]] const std::vector<CounterStatus>& status() const { return status_; }
  [[nodiscard]] bool any_active() const;
  // The names, newline-separated, and "name: active via ..." or "name: unavailable: why" lines, as
  // /counters' attributes `events` and `status` hold them.
  [[nodiscard]] std::string names_text() const;
  [[nodiscard]] std::string status_text() const;

private:
  struct PapiSet {
    int component = -1;
    int handle = -1;            // PAPI_NULL until created
    std::string not_inherited;  // why PAPI_INHERIT was refused; empty where the set inherits
    std::vector<long long> values;
  };
  struct Source {  // where one column's value comes from: a PAPI set's slot, a descriptor, or several
    int set = -1, slot = -1;
    int fd = -1;
    std::vector<int> uncore_fds;  // one per uncore PMU, summed
  };
  // The set for `component`, created (and asked to inherit) on first use; -1 with `why` if PAPI
  // cannot make one.
  int papi_set_for(int component, std::string& why);

  std::vector<CounterStatus> status_;
  std::vector<Source> sources_;
  std::vector<PapiSet> papi_sets_;
  std::mutex read_mutex_;  // PAPI_read on one set from two threads at once is unsafe; values are shared
};

// The default list: what the CXL model needs (loads, L1 data-cache misses, cycles, last-level misses).
std::vector<std::string> default_counter_events();
// The default uncore list: memory-controller reads and writes (64-byte lines).
std::vector<std::string> default_uncore_events();
std::vector<std::string> split_event_list(const std::string& text);

}  // namespace ripple::trace::detail
