#include "counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

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
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0)
    why = std::string("perf_event_open failed: ") + std::strerror(errno) + " (see /proc/sys/kernel/perf_event_paranoid)";
  return fd;
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

void Counters::start(const std::vector<std::string>& names) {
  std::string papi_problem;
#ifdef RIPPLE_HAVE_PAPI
  const int version = PAPI_library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) {
    papi_problem = "PAPI_library_init failed";
  } else if (PAPI_create_eventset(&papi_set_) != PAPI_OK) {
    papi_problem = "PAPI_create_eventset failed";
    papi_set_ = -1;
  }
#else
  papi_problem = "this tracer was built without PAPI (libpapi-dev)";
#endif
  int papi_events = 0;
  for (const std::string& name : names) {
    CounterStatus st;
    st.name = name;
    int slot = -1, fd = -1;
    std::string why = papi_problem;
#ifdef RIPPLE_HAVE_PAPI
    if (papi_set_ >= 0) {
      const int rc = PAPI_add_named_event(papi_set_, name.c_str());
      if (rc == PAPI_OK) {
        slot = papi_events++;
      } else {
        why = std::string("PAPI: ") + PAPI_strerror(rc);
        if (name.rfind("perf::", 0) != 0) {  // a hardware event: say why the hardware cannot count it
          const std::string hint = hardware_hint();
          if (!hint.empty()) why += " (" + hint + ")";
        }
      }
    }
#endif
    if (slot < 0) {
      const auto sw = software_events().find(name);
      if (sw != software_events().end()) {
        std::string perf_why;
        fd = open_software_event(sw->second, perf_why);
        if (fd < 0) why += "; " + perf_why;
      }
    }
    st.active = slot >= 0 || fd >= 0;
    st.how = slot >= 0 ? "papi" : fd >= 0 ? "perf_event_open (" + why + ")" : why;
    status_.push_back(st);
    papi_slot_.push_back(slot);
    fd_.push_back(fd);
  }
  papi_values_.assign(static_cast<std::size_t>(std::max(papi_events, 1)), 0);
#ifdef RIPPLE_HAVE_PAPI
  if (papi_events > 0 && PAPI_start(papi_set_) != PAPI_OK)
    for (std::size_t k = 0; k < status_.size(); ++k)
      if (papi_slot_[k] >= 0) {
        papi_slot_[k] = -1;
        status_[k].active = fd_[k] >= 0;
        status_[k].how = "PAPI_start failed";
      }
#endif
}

void Counters::start_uncore(const std::vector<std::string>& events, bool socket_leader, const std::vector<int>& package_cpus) {
  const std::vector<UncorePlan> plans = plan_uncore("/sys/bus/event_source/devices", events, package_cpus);
  uncore_fds_.resize(status_.size());
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
        const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, c.cpu, -1, 0));
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
    papi_slot_.push_back(-1);
    fd_.push_back(-1);
    uncore_fds_.push_back(std::move(fds));
  }
}

void Counters::read(std::int64_t* out) {
#ifdef RIPPLE_HAVE_PAPI
  bool papi = false;
  for (const int s : papi_slot_) papi = papi || s >= 0;
  if (papi) PAPI_read(papi_set_, papi_values_.data());
#endif
  for (std::size_t k = 0; k < status_.size(); ++k) {
    out[k] = -1;
    if (papi_slot_[k] >= 0) {
      out[k] = papi_values_[static_cast<std::size_t>(papi_slot_[k])];
    } else if (fd_[k] >= 0) {
      std::uint64_t v = 0;
      if (::read(fd_[k], &v, sizeof v) == static_cast<ssize_t>(sizeof v)) out[k] = static_cast<std::int64_t>(v);
    } else if (k < uncore_fds_.size() && !uncore_fds_[k].empty()) {
      std::int64_t sum = 0;
      for (const int fd : uncore_fds_[k]) {
        std::uint64_t v = 0;
        if (::read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v)) sum += static_cast<std::int64_t>(v);
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
  for (const int fd : fd_)
    if (fd >= 0) ::close(fd);
  for (const auto& fds : uncore_fds_)
    for (const int fd : fds) ::close(fd);
#ifdef RIPPLE_HAVE_PAPI
  if (papi_set_ >= 0) {
    std::vector<long long> v(papi_values_.size());
    PAPI_stop(papi_set_, v.data());
    PAPI_cleanup_eventset(papi_set_);
    PAPI_destroy_eventset(&papi_set_);
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
