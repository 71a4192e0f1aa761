#include "sample_event.hpp"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <sstream>

#include "ripple/trace/perf_decoder.hpp"
#include "ripple/trace/pmu_event.hpp"

namespace ripple::trace::detail {
namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

perf_event_attr sampling_attr(std::uint32_t type, std::uint64_t config, std::uint64_t period) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.sample_period = period;
  attr.sample_type = kMemorySampleType;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.use_clockid = 1;  // sample times on CLOCK_MONOTONIC, the tracer clock
  attr.clockid = CLOCK_MONOTONIC;
  return attr;
}

void set_config(perf_event_attr& attr, const PmuEvent& e) {
  attr.type = e.type;
  attr.config = e.config[0];
  attr.config1 = e.config[1];
  attr.config2 = e.config[2];
}

}  // namespace

bool describe_sample_event(const std::string& event, std::uint64_t period, std::uint64_t ldlat, const std::string& sysfs,
                           SampleEventSpec& spec, std::string& why) {
  struct Software {
    const char* name;
    std::uint64_t config;
  };
  for (const Software sw :
       {Software{"page-faults", PERF_COUNT_SW_PAGE_FAULTS}, Software{"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
        Software{"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ}}) {
    if (event != sw.name) continue;
    spec.sample = sampling_attr(PERF_TYPE_SOFTWARE, sw.config, period);
    spec.what = std::string(sw.name) + " (software event), period " + std::to_string(period);
    return true;
  }
  if (event != "auto" && event != "mem-loads" && event != "ibs_op") {
    why = "unknown sample event '" + event + "' (auto, off, mem-loads, ibs_op, page-faults, minor-faults, major-faults)";
    return false;
  }
  // Intel PEBS load latency: the core PMU's mem-loads event (cpu, or cpu_core on hybrid parts).
  const std::string cpu = exists(sysfs + "/cpu_core/events") ? sysfs + "/cpu_core" : sysfs + "/cpu";
  if (event != "ibs_op" && exists(cpu + "/events/mem-loads")) {
    const auto loads = read_pmu_event(cpu, "mem-loads", {{"ldlat", ldlat}}, why);
    if (!loads) return false;
    if (exists(cpu + "/events/mem-loads-aux")) {  // newer cores: the load-latency event needs this group leader
      const auto aux = read_pmu_event(cpu, "mem-loads-aux", {}, why);
      if (!aux) return false;
      spec.led = true;
      spec.leader.size = sizeof spec.leader;
      set_config(spec.leader, *aux);
      spec.leader.exclude_kernel = 1;
      spec.leader.exclude_hv = 1;
    }
    spec.sample = sampling_attr(loads->type, 0, period);
    set_config(spec.sample, *loads);
    spec.sample.precise_ip = 2;
    spec.what = "mem-loads (PEBS load latency, ldlat " + std::to_string(ldlat) + " cycles), period " + std::to_string(period) +
                (spec.led ? ", led by mem-loads-aux" : "");
    return true;
  }
  // AMD IBS op sampling: every op, loads kept (is_load_sample). Its period counts cycles unless
  // cnt_ctl asks for dispatched ops (where the core can: the format is there), in units of 16.
  const std::string ibs = sysfs + "/ibs_op";
  if (event != "mem-loads" && exists(ibs + "/type")) {
    // IBS cannot exclude privilege levels in hardware: the kernel rejects exclude_* unless the PMU
    // offers its software filter (format "swfilt", Linux 6.14+). Without it, samples include the
    // kernel (which perf_event_paranoid <= 1 or CAP_PERFMON allows).
    const bool swfilt = exists(ibs + "/format/swfilt"), ops = exists(ibs + "/format/cnt_ctl");
    std::map<std::string, std::uint64_t> terms;
    if (swfilt) terms["swfilt"] = 1;
    if (ops) terms["cnt_ctl"] = 1;
    const auto e = read_pmu_terms(ibs, terms, why);
    if (!e) return false;
    const std::uint64_t rounded = std::max<std::uint64_t>(16, (period + 15) / 16 * 16);
    spec.sample = sampling_attr(e->type, 0, rounded);
    set_config(spec.sample, *e);
    spec.sample.exclude_kernel = swfilt ? 1 : 0;
    spec.sample.exclude_hv = 0;
    spec.loads_only = true;
    spec.what = "ibs_op (AMD IBS, loads kept), period " + std::to_string(rounded) + (ops ? " ops" : " cycles") +
                (swfilt ? ", user space only" : ", user and kernel");
    return true;
  }
  if (!exists(cpu) && !exists(ibs))
    why = "no hardware PMU (no " + sysfs + "/cpu, cpu_core or ibs_op)";
  else if (event == "ibs_op")
    why = "no AMD IBS (no " + ibs + ")";
  else
    why = "no precise load sampling: " + cpu + " has no mem-loads event and there is no ibs_op";
  return false;
}

bool is_load_sample(const SampleEventSpec& spec, std::uint64_t data_src) {
  if (!spec.loads_only) return true;
  const std::uint64_t mem_op = data_src & 0x1f;  // PERF_MEM_OP_{NA, LOAD, STORE, PFETCH, EXEC}: bits 0-4
  return mem_op == 0 || (mem_op & 0x2) != 0;
}

std::optional<double> monotonic_namespace_offset(const std::string& timens_offsets) {
  std::istringstream in(timens_offsets);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string clock;
    long long seconds = 0, nanoseconds = 0;
    if (!(fields >> clock)) continue;
    if (clock != "monotonic" && clock != std::to_string(CLOCK_MONOTONIC)) continue;
    if (!(fields >> seconds >> nanoseconds) || nanoseconds < 0 || nanoseconds >= 1'000'000'000) return std::nullopt;
    return static_cast<double>(seconds) + static_cast<double>(nanoseconds) * 1e-9;
  }
  return 0.0;
}

}  // namespace ripple::trace::detail
