#pragma once
// Which uncore counters a socket leader opens: for each requested event, every uncore PMU in sysfs
// that has it (e.g. cas_count_read on uncore_imc_0 .. uncore_imc_5, the memory channels), each on the
// CPU of its cpumask that lies in the leader's package. The counts of one event are summed over its
// PMUs. Pure file reading: unit-tested on a synthetic sysfs tree.
#include <cstdint>
#include <string>
#include <vector>

#include "ripple/trace/pmu_event.hpp"

namespace ripple::trace {

struct UncoreCounter {
  std::string pmu;  // e.g. uncore_imc_0
  PmuEvent event;
  int cpu = -1;  // where to open it (pid -1: the whole package)
};

struct UncorePlan {
  std::string event;  // the requested name, e.g. cas_count_read
  std::vector<UncoreCounter> counters;
  std::string why;  // empty when counters were found
};

// `events`: names searched in every PMU whose directory name starts with `pmu_prefix` (default
// uncore_imc); "pmu/event" names one PMU. `package_cpus`: OS indices of the leader's package.
std::vector<UncorePlan> plan_uncore(const std::string& sysfs, const std::vector<std::string>& events,
                                    const std::vector<int>& package_cpus, const std::string& pmu_prefix = "uncore_imc");

}  // namespace ripple::trace
