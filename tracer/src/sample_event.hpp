#pragma once
// Which perf event samples memory loads on this machine, described from sysfs as perf_event_open
// takes it: Intel PEBS load latency (the core PMU's mem-loads event with an ldlat threshold, led by
// mem-loads-aux where the core needs it), AMD IBS op (counting dispatched ops, user space only
// where the kernel can filter), or a Linux software event (page faults, for tests and first-touch
// studies). Pure file reading, so the PMU paths are unit-tested on synthetic sysfs trees where no
// PMU exists.
#include <linux/perf_event.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ripple::trace::detail {

struct SampleEventSpec {
  perf_event_attr sample{};
  bool led = false;  // opened in a group under `leader` (PEBS load latency on newer Intel cores)
  perf_event_attr leader{};
  bool loads_only = false;  // the event samples other operations too (IBS op): keep loads only
  std::string what;         // for the status
};

// `event`: auto | mem-loads | ibs_op | page-faults | minor-faults | major-faults; `period` in
// events between samples (IBS: ops, rounded up to its 16); `ldlat` in cycles; `sysfs` is
// /sys/bus/event_source/devices or a test's tree. False with `why` set where none can be used.
bool describe_sample_event(const std::string& event, std::uint64_t period, std::uint64_t ldlat, const std::string& sysfs,
                           SampleEventSpec& spec, std::string& why);

// Whether a sample with this PERF_SAMPLE_DATA_SRC is a load's, for an event that samples other
// operations too: the kernel marks IBS ops that are neither load nor store with mem_op NA. A
// sample whose data source says nothing (mem_op 0: kernels before 6.1 give IBS none) is kept.
bool is_load_sample(const SampleEventSpec& spec, std::uint64_t data_src);

// The kernel stamps samples on its own CLOCK_MONOTONIC, which a time namespace (a container, a
// process restored by CRIU) does not move, while clock_gettime gives the namespace's: seconds to
// add to a sample's time to put it on the process's clock, from the text of
// /proc/self/timens_offsets (lines "monotonic <s> <ns>", or "1 <s> <ns>" with the clock's id). 0
// where the text has no such line; nullopt where it is unreadable.
std::optional<double> monotonic_namespace_offset(const std::string& timens_offsets);

}  // namespace ripple::trace::detail
