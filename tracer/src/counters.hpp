#pragma once
// Counter source of the tracer: each requested event is read through PAPI when PAPI can count it,
// else, for Linux software events named perf::..., directly through perf_event_open (on machines
// whose PAPI disables its perf_event component because libpfm4 finds no hardware PMU, as in VMs).
// An event that neither can count is recorded as unavailable, with the reason; nothing aborts.
#include <cstdint>
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
  // Starts counting `names` for the calling thread (and, through perf_event_open, its children).
  void start(const std::vector<std::string>& names);
  // Adds uncore events (named uncore::EVENT), each summed over the uncore PMUs that have it
  // (uncore_plan.hpp). Only a socket leader opens them, on its package; the other ranks of the
  // package record -1 and say who reads them. Call after start().
  void start_uncore(const std::vector<std::string>& events, bool socket_leader, const std::vector<int>& package_cpus);
  // One value per name; -1 where the event is unavailable.
  void read(std::int64_t* out);
  [[nodiscard]] std::size_t size() const { return status_.size(); }
  [[nodiscard]] const std::vector<CounterStatus>& status() const { return status_; }
  [[nodiscard]] bool any_active() const;
  // The names, newline-separated, and "name: active via ..." or "name: unavailable: why" lines, as
  // /counters' attributes `events` and `status` hold them.
  [[nodiscard]] std::string names_text() const;
  [[nodiscard]] std::string status_text() const;

private:
  std::vector<CounterStatus> status_;
  std::vector<int> papi_slot_;                // index into the PAPI values, or -1
  std::vector<int> fd_;                       // perf_event_open descriptor, or -1
  std::vector<std::vector<int>> uncore_fds_;  // an uncore event's descriptors, one per PMU (summed)
  int papi_set_ = -1;
  std::vector<long long> papi_values_;
};

// The default list: what the CXL model needs (loads, L1 data-cache misses, cycles, last-level misses).
std::vector<std::string> default_counter_events();
// The default uncore list: memory-controller reads and writes (64-byte lines).
std::vector<std::string> default_uncore_events();
std::vector<std::string> split_event_list(const std::string& text);

}  // namespace ripple::trace::detail
