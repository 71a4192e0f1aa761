#include "counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include "perf_open.hpp"
#include "ripple/trace/uncore_plan.hpp"

#ifdef RIPPLE_HAVE_PAPI
#include <papi.h>
#endif

namespace ripple::trace::detail {
namespace {

// Linux software events by their libpfm4 perf:: names.
const std::map<std::string, std::uint64_t>& software_events() {
  static const std::map<std::string, std::uint64_t> events{
      {"perf::TASK-CLOCK", PERF_COUNT_SW_TASK_CLOCK},        {"perf::CPU-CLOCK", PERF_COUNT_SW_CPU_CLOCK},
      {"perf::PAGE-FAULTS", PERF_COUNT_SW_PAGE_FAULTS},      {"perf::MINOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MIN},
      {"perf::MAJOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MAJ}, {"perf::CONTEXT-SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES},
      {"perf::CPU-MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS}};
  return events;
}

int open_software_event(std::uint64_t config, std::string& why) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.inherit = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int fd = perf_open(attr, 0, -1, -1);
  if (fd < 0)
    why = std::string("perf_event_open failed: ") + std::strerror(errno) + " (see /proc/sys/kernel/perf_event_paranoid)";
  return fd;
}

// An uncore counter's value (read_format: value, time enabled, time running), scaled up where the
// kernel multiplexed it (more events on the PMU than it has counters: a longer RIPPLE_UNCORE_EVENTS,
// or another tool's events on the same memory controller); the raw value would undercount unseen.
// -1 if unreadable, or never scheduled while enabled.
std::int64_t scaled_uncore_value(int fd) {
  std::uint64_t v[3] = {0, 0, 0};
  if (::read(fd, v, sizeof v) != static_cast<ssize_t>(sizeof v)) return -1;
  const std::uint64_t value = v[0], enabled = v[1], running = v[2];
  if (running == 0) return enabled == 0 ? static_cast<std::int64_t>(value) : -1;
  if (running >= enabled) return static_cast<std::int64_t>(value);
  return static_cast<std::int64_t>(static_cast<long double>(value) * static_cast<long double>(enabled) /
                                   static_cast<long double>(running));
}

}  // namespace

std::vector<std::string> default_counter_events() { return {"PAPI_LD_INS", "PAPI_L1_DCM", "PAPI_TOT_CYC", "PAPI_L3_LDM"}; }

std::vector<std::string> default_uncore_events() { return {"cas_count_read", "cas_count_write"}; }

std::vector<std::string> split_event_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Why hardware counters cannot work here, if the machine shows it (VMs without a virtual PMU).
std::string hardware_hint() {
  std::string hint;
  if (::access("/sys/bus/event_source/devices/cpu", F_OK) != 0 && ::access("/sys/bus/event_source/devices/cpu_core", F_OK) != 0)
    hint = "no hardware PMU (no /sys/bus/event_source/devices/cpu)";
#ifdef RIPPLE_HAVE_PAPI
  const int cid = PAPI_get_component_index("perf_event");
  const PAPI_component_info_t* info = cid >= 0 ? PAPI_get_component_info(cid) : nullptr;
  if (info != nullptr && info->disabled)
    hint += std::string(hint.empty() ? "" : "; ") + "PAPI perf_event component: " + info->disabled_reason;
#endif
  return hint;
}

int Counters::papi_set_for(int component, std::string& why) {
#ifdef RIPPLE_HAVE_PAPI
  for (std::size_t k = 0; k < papi_sets_.size(); ++k)
    if (papi_sets_[k].component == component) return static_cast<int>(k);
  PapiSet set;
  set.component = component;
  set.handle = PAPI_NULL;
  int rc = PAPI_create_eventset(&set.handle);
  if (rc == PAPI_OK) rc = PAPI_assign_eventset_component(set.handle, component);
  if (rc != PAPI_OK) {
    why = std::string("PAPI event set for component ") + std::to_string(component) + ": " + PAPI_strerror(rc);
    if (set.handle != PAPI_NULL) PAPI_destroy_eventset(&set.handle);
    return -1;
  }
  // Inheritance must be set while the set is empty. PAPI's perf_event component checks it by
  // opening a hardware counter, so without a hardware PMU it refuses even for software events.
  PAPI_option_t opt{};
  opt.inherit.eventset = set.handle;
  opt.inherit.inherit = PAPI_INHERIT_ALL;
  rc = PAPI_set_opt(PAPI_INHERIT, &opt);
  if (rc != PAPI_OK) {
    set.not_inherited = std::string("PAPI_set_opt(PAPI_INHERIT): ") + PAPI_strerror(rc);
    const std::string hint = hardware_hint();
    if (!hint.empty()) set.not_inherited += " (" + hint + ")";
  }
  papi_sets_.push_back(std::move(set));
  return static_cast<int>(papi_sets_.size() - 1);
#else
  (void)component;
  why = "this tracer was built without PAPI (libpapi-dev)";
  return -1;
#endif
}

void Counters::start(const std::vector<std::string>& names) {
  std::string papi_problem;
#ifdef RIPPLE_HAVE_PAPI
  // A positive result is the version of the libpapi found, which is not the papi.h built against.
  if (const int rc = PAPI_library_init(PAPI_VER_CURRENT); rc != PAPI_VER_CURRENT)
    papi_problem = rc > 0 ? "PAPI_library_init: libpapi is version " + std::to_string(PAPI_VERSION_MAJOR(rc)) + "." +
                                std::to_string(PAPI_VERSION_MINOR(rc)) + ", this tracer was built with papi.h " +
                                std::to_string(PAPI_VERSION_MAJOR(PAPI_VER_CURRENT)) + "." +
                                std::to_string(PAPI_VERSION_MINOR(PAPI_VER_CURRENT))
                          : std::string("PAPI_library_init: ") + PAPI_strerror(rc);
#else
  papi_problem = "this tracer was built without PAPI (libpapi-dev)";
#endif
  for (const std::string& name : names) {
    CounterStatus st;
    st.name = name;
    Source src;
    std::string why = papi_problem;
    const auto sw = software_events().find(name);
    const bool software = sw != software_events().end();
    std::string direct_failure;  // why perf_event_open refused the software event, once tried
    const auto open_direct = [&] {
      src.fd = open_software_event(sw->second, direct_failure);
      if (src.fd < 0 && direct_failure.empty()) direct_failure = "perf_event_open failed";
    };
#ifdef RIPPLE_HAVE_PAPI
    if (papi_problem.empty()) {
      int code = PAPI_NULL;
      int rc = PAPI_event_name_to_code(name.c_str(), &code);
      const int set = rc == PAPI_OK ? papi_set_for(PAPI_get_event_component(code), why) : -1;
      if (rc != PAPI_OK) why = std::string("PAPI knows no such event (PAPI_event_name_to_code: ") + PAPI_strerror(rc) + ")";
      if (set >= 0) {
        PapiSet& ps = papi_sets_[static_cast<std::size_t>(set)];
        if (software && !ps.not_inherited.empty()) {  // PAPI would count this thread only
          why = "PAPI would count only the thread that called MPI_Init: " + ps.not_inherited;
          open_direct();
        }
        if (src.fd < 0) {
          rc = PAPI_add_event(ps.handle, code);
          if (rc == PAPI_OK) {
            src.set = set;
            src.slot = static_cast<int>(ps.values.size());
            ps.values.push_back(0);
            st.how = ps.not_inherited.empty() ? "papi, inherited by threads started later"
                                              : "papi, the thread that called MPI_Init only (" + ps.not_inherited +
                                                    (direct_failure.empty() ? "" : "; " + direct_failure) + ")";
          } else {
            why = std::string("PAPI: ") + PAPI_strerror(rc);
          }
        }
      }
    }
#endif
    if (src.slot < 0 && src.fd < 0) {
      if (!software) {  // a hardware event: say why the hardware cannot count it
        const std::string hint = hardware_hint();
        if (!hint.empty() && why.find(hint) == std::string::npos) why += " (" + hint + ")";
      } else {
        if (direct_failure.empty()) open_direct();
        if (src.fd < 0) why += "; " + direct_failure;
      }
    }
    st.active = src.slot >= 0 || src.fd >= 0;
    if (src.fd >= 0) st.how = "perf_event_open, inherited by threads started later (" + why + ")";
    if (!st.active) st.how = why;
    status_.push_back(st);
    sources_.push_back(std::move(src));
  }
#ifdef RIPPLE_HAVE_PAPI
  for (std::size_t k = 0; k < papi_sets_.size(); ++k) {
    if (papi_sets_[k].values.empty()) continue;
    const int rc = PAPI_start(papi_sets_[k].handle);
    if (rc == PAPI_OK) continue;
    for (std::size_t e = 0; e < status_.size(); ++e)
      if (sources_[e].set == static_cast<int>(k)) {
        sources_[e].set = sources_[e].slot = -1;
        status_[e].active = false;
        status_[e].how = std::string("PAPI_start: ") + PAPI_strerror(rc);
      }
    papi_sets_[k].values.clear();  // not started: not read, not stopped
  }
#endif
}

void Counters::start_uncore(const std::vector<std::string>& events, bool socket_leader, const std::vector<int>& package_cpus) {
  const std::vector<UncorePlan> plans = plan_uncore("/sys/bus/event_source/devices", events, package_cpus);
  for (const UncorePlan& plan : plans) {
    CounterStatus st;
    st.name = "uncore::" + plan.event;
    std::vector<int> fds;
    if (!plan.why.empty()) {
      st.how = plan.why;
    } else if (!socket_leader) {
      st.how = "counted by this package's socket leader (/ranks/placement socket_leader)";
    } else {
      for (const UncoreCounter& c : plan.counters) {
        perf_event_attr attr{};
        attr.size = sizeof attr;
        attr.type = c.event.type;
        attr.config = c.event.config[0];
        attr.config1 = c.event.config[1];
        attr.config2 = c.event.config[2];
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;  // scaled_uncore_value
        const int fd = perf_open(attr, -1, c.cpu, -1);
        if (fd < 0) {
          st.how = "perf_event_open(" + c.pmu + ", cpu " + std::to_string(c.cpu) + ") failed: " + std::strerror(errno) +
                   " (uncore counting needs perf_event_paranoid <= 0 or CAP_PERFMON)";
          for (const int f : fds) ::close(f);
          fds.clear();
          break;
        }
        fds.push_back(fd);
      }
      if (!fds.empty()) st.how = "perf_event_open on " + std::to_string(fds.size()) + " uncore PMU(s), summed";
    }
    st.active = !fds.empty();
    status_.push_back(st);
    Source src;
    src.uncore_fds = std::move(fds);
    sources_.push_back(std::move(src));
  }
}

void Counters::read(std::int64_t* out) {
  const std::lock_guard<std::mutex> lock(read_mutex_);
#ifdef RIPPLE_HAVE_PAPI
  for (PapiSet& ps : papi_sets_)
    if (!ps.values.empty() && PAPI_read(ps.handle, ps.values.data()) != PAPI_OK)
      std::fill(ps.values.begin(), ps.values.end(), -1);
#endif
  const auto value_of = [](int fd) -> std::int64_t {
    std::uint64_t v = 0;
    return ::read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v) ? static_cast<std::int64_t>(v) : -1;
  };
  for (std::size_t k = 0; k < status_.size(); ++k) {
    const Source& src = sources_[k];
    out[k] = -1;
    if (src.slot >= 0) {
      out[k] = papi_sets_[static_cast<std::size_t>(src.set)].values[static_cast<std::size_t>(src.slot)];
    } else if (src.fd >= 0) {
      out[k] = value_of(src.fd);
    } else if (!src.uncore_fds.empty()) {
      std::int64_t sum = 0;
      for (const int fd : src.uncore_fds) {
        const std::int64_t v = scaled_uncore_value(fd);
        if (v < 0) {
          sum = -1;
          break;
        }
        sum += v;
      }
      out[k] = sum;
    }
  }
}

bool Counters::any_active() const {
  for (const auto& s : status_)
    if (s.active) return true;
  return false;
}

Counters::~Counters() {
  for (const Source& src : sources_) {
    if (src.fd >= 0) ::close(src.fd);
    for (const int fd : src.uncore_fds) ::close(fd);
  }
#ifdef RIPPLE_HAVE_PAPI
  for (PapiSet& ps : papi_sets_) {
    if (!ps.values.empty()) PAPI_stop(ps.handle, ps.values.data());
    PAPI_cleanup_eventset(ps.handle);
    PAPI_destroy_eventset(&ps.handle);
  }
#endif
}

std::string Counters::names_text() const {
  std::string names;
  for (const auto& c : status_) names += (names.empty() ? "" : "\n") + c.name;
  return names;
}

std::string Counters::status_text() const {
  std::string status;
  for (const auto& c : status_)
    status += (status.empty() ? "" : "\n") + c.name + ": " + (c.active ? "active via " : "unavailable: ") + c.how;
  return status;
}

}  // namespace ripple::trace::detail
