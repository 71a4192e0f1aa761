#pragma once
// Turns a PMU event named in sysfs into perf_event_attr fields, the way the kernel describes it:
// <pmu>/type holds the attr.type, <pmu>/events/<name> the terms ("event=0xcd,umask=0x1,ldlat=3"),
// and <pmu>/format/<term> where each term's bits go ("config:0-7", "config1:0-15", or several
// ranges such as "config:0-7,32-35"). Pure file reading: unit-tested on a synthetic sysfs tree.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ripple::trace {

struct PmuEvent {
  std::uint32_t type = 0;
  std::uint64_t config[3] = {0, 0, 0};  // attr.config, config1, config2
};

// `pmu_dir` is e.g. /sys/bus/event_source/devices/cpu; `overrides` set or replace terms (e.g.
// {"ldlat", 30}). Empty with `why` set when the event or a term's format is missing.
std::optional<PmuEvent> read_pmu_event(const std::string& pmu_dir, const std::string& event,
                                       const std::map<std::string, std::uint64_t>& overrides, std::string& why);
// The PMU's type with `terms` placed by its formats alone, for a PMU without an events/ entry for
// what is asked (AMD's ibs_op: {"cnt_ctl", 1}). Empty with `why` set as above.
std::optional<PmuEvent> read_pmu_terms(const std::string& pmu_dir, const std::map<std::string, std::uint64_t>& terms,
                                       std::string& why);

}  // namespace ripple::trace
