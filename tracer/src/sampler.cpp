#include "sampler.hpp"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>

#include "ripple/trace/pmu_event.hpp"
#include "spool_format.hpp"
#include "tracer_clock.hpp"

namespace ripple::trace::detail {
namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::string paranoid_hint() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 0;
  return in >> level ? " (perf_event_paranoid is " + std::to_string(level) + ")" : "";
}

int open_attr(perf_event_attr& attr, int group_fd) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC));
}

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

}  // namespace

bool MemorySampler::open_event(const SamplerConfig& c, std::string& what, std::string& why) {
  const auto fail_open = [&](const std::string& name) {
    why = "perf_event_open(" + name + ") failed: " + std::strerror(errno) +
          (errno == EACCES || errno == EPERM ? paranoid_hint() : "");
    return false;
  };
  struct Software {
    const char* name;
    std::uint64_t config;
  };
  for (const Software sw :
       {Software{"page-faults", PERF_COUNT_SW_PAGE_FAULTS}, Software{"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
        Software{"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ}}) {
    if (c.event != sw.name) continue;
    perf_event_attr attr = sampling_attr(PERF_TYPE_SOFTWARE, sw.config, c.period);
    fd_ = open_attr(attr, -1);
    what = std::string(sw.name) + " (software event), period " + std::to_string(c.period);
    return fd_ >= 0 || fail_open(sw.name);
  }
  if (c.event != "auto" && c.event != "mem-loads" && c.event != "ibs_op") {
    why = "unknown sample event '" + c.event + "' (auto, off, mem-loads, ibs_op, page-faults, minor-faults, major-faults)";
    return false;
  }
  // Intel PEBS load latency: the core PMU's mem-loads event (cpu, or cpu_core on hybrid parts).
  const std::string cpu = exists(c.sysfs + "/cpu_core/events") ? c.sysfs + "/cpu_core" : c.sysfs + "/cpu";
  if (c.event != "ibs_op" && exists(cpu + "/events/mem-loads")) {
    std::string pmu_why;
    const auto loads = read_pmu_event(cpu, "mem-loads", {{"ldlat", c.ldlat}}, pmu_why);
    if (!loads) {
      why = pmu_why;
      return false;
    }
    if (exists(cpu + "/events/mem-loads-aux")) {  // newer cores: the load-latency event needs this group leader
      const auto aux = read_pmu_event(cpu, "mem-loads-aux", {}, pmu_why);
      if (!aux) {
        why = pmu_why;
        return false;
      }
      perf_event_attr lead{};
      lead.size = sizeof lead;
      lead.type = aux->type;
      lead.config = aux->config[0];
      lead.config1 = aux->config[1];
      lead.exclude_kernel = 1;
      lead.exclude_hv = 1;
      leader_fd_ = open_attr(lead, -1);
      if (leader_fd_ < 0) return fail_open("mem-loads-aux");
    }
    perf_event_attr attr = sampling_attr(loads->type, loads->config[0], c.period);
    attr.config1 = loads->config[1];
    attr.config2 = loads->config[2];
    attr.precise_ip = 2;
    fd_ = open_attr(attr, leader_fd_);
    what = "mem-loads (PEBS load latency, ldlat " + std::to_string(c.ldlat) + " cycles), period " + std::to_string(c.period) +
           (leader_fd_ >= 0 ? ", led by mem-loads-aux" : "");
    return fd_ >= 0 || fail_open("mem-loads");
  }
  // AMD IBS op sampling (its period counts in units of 16 ops).
  if (c.event != "mem-loads" && exists(c.sysfs + "/ibs_op/type")) {
    std::string pmu_why;
    std::ifstream in(c.sysfs + "/ibs_op/type");
    std::uint32_t type = 0;
    if (!(in >> type)) {
      why = "unreadable " + c.sysfs + "/ibs_op/type";
      return false;
    }
    const std::uint64_t period = std::max<std::uint64_t>(16, (c.period + 15) / 16 * 16);
    perf_event_attr attr = sampling_attr(type, 0, period);
    // IBS cannot exclude privilege levels in hardware: the kernel rejects exclude_* unless the PMU
    // offers its software filter (format "swfilt", Linux 6.14+). Without it, samples include the
    // kernel (which perf_event_paranoid <= 1 or CAP_PERFMON allows).
    const bool swfilt = exists(c.sysfs + "/ibs_op/format/swfilt");
    attr.exclude_kernel = swfilt ? 1 : 0;
    attr.exclude_hv = 0;
    if (swfilt) {
      // Set the swfilt bit where the format says, through an event description of our own.
      std::ifstream f(c.sysfs + "/ibs_op/format/swfilt");
      std::string spec;
      f >> spec;  // e.g. config2:0
      const auto colon = spec.find(':');
      if (colon != std::string::npos) {
        const int bit = std::atoi(spec.c_str() + colon + 1);
        const std::string field = spec.substr(0, colon);
        if (bit >= 0 && bit < 64)
          (field == "config2" ? attr.config2 : field == "config1" ? attr.config1 : attr.config) |= 1ULL << bit;
      }
    }
    fd_ = open_attr(attr, -1);
    what = "ibs_op (AMD IBS), period " + std::to_string(period) + (swfilt ? ", user space only" : ", user and kernel");
    return fd_ >= 0 || fail_open("ibs_op");
  }
  if (!exists(cpu) && !exists(c.sysfs + "/ibs_op"))
    why = "no hardware PMU (no " + c.sysfs + "/cpu, cpu_core or ibs_op)";
  else if (c.event == "ibs_op")
    why = "no AMD IBS (no " + c.sysfs + "/ibs_op)";
  else
    why = "no precise load sampling: " + cpu + " has no mem-loads event and there is no ibs_op";
  return false;
}

void MemorySampler::start(const SamplerConfig& c, int rank, double t0) {
  rank_ = rank;
  offset_ = -t0;
  max_samples_ = c.max_samples;
  if (c.event == "off") {
    status_ = "unavailable: switched off (--samples off)";
    return;
  }
  std::string what, why;
  if (!open_event(c, what, why)) {
    stop();
    status_ = "unavailable: " + why;
    return;
  }
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t pages = 1;
  while (pages < c.ring_pages) pages *= 2;
  ring_bytes_ = (pages + 1) * page;
  ring_ = ::mmap(nullptr, ring_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (ring_ == MAP_FAILED) {
    ring_ = nullptr;
    const std::string err = std::strerror(errno);
    stop();
    status_ = "unavailable: mmap of the sample ring buffer failed: " + err;
    return;
  }
  sample_type_ = kMemorySampleType;
  status_ = "active: " + what;
  // Room for what waits between two flushes (the flusher spools at 16 Ki): a drain at an iteration
  // marker, inside MPI_Pcontrol, then seldom allocates. spool_new swaps the two, so both keep it.
  const std::size_t room = std::min<std::size_t>(max_samples_, 1u << 14);
  pending_.reserve(room);
  writing_.reserve(room);
}

void MemorySampler::keep(const MemorySample& s, void* self) {
  auto& m = *static_cast<MemorySampler*>(self);
  ++m.decoded_;
  if (m.pending_.size() >= m.max_samples_) return;  // dropped: decoded() minus the spooled counts it
  SampleRecord r;
  r.time = static_cast<double>(s.time) * 1e-9 + m.offset_;
  r.ip = s.ip;
  r.addr = s.addr;
  r.weight = s.weight;
  r.data_src = s.data_src;
  r.rank = m.rank_;
  r.cpu = static_cast<std::int32_t>(s.cpu);
  r.tid = static_cast<std::int32_t>(s.tid);
  const DataSource src = decode_data_src(s.data_src);
  r.level = static_cast<std::int32_t>(src.level);
  r.hit = src.hit ? 1 : src.miss ? 0 : -1;
  r.iteration = m.marks_.iteration_at(r.time);
  m.pending_.push_back(r);
}

void MemorySampler::drain() {
  std::lock_guard<std::mutex> guard(mutex_);
  if (ring_ == nullptr) return;
  auto* meta = static_cast<perf_event_mmap_page*>(ring_);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t offset = meta->data_offset != 0 ? meta->data_offset : page;
  const std::uint64_t size = meta->data_size != 0 ? meta->data_size : ring_bytes_ - page;
  const std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  const std::uint64_t tail = meta->data_tail;
  const auto* data = static_cast<const std::uint8_t*>(ring_) + offset;
  const DrainResult r = drain_ring(data, size, tail, head, sample_type_, &MemorySampler::keep, this);
  lost_ += static_cast<std::int64_t>(r.lost);
  // A damaged record cannot be stepped over: skip to the head (and count nothing we cannot read).
  __atomic_store_n(&meta->data_tail, r.corrupt ? head : tail + r.consumed, __ATOMIC_RELEASE);
}

void MemorySampler::spool_to(int fd) {
  std::lock_guard<std::mutex> guard(mutex_);
  spool_fd_ = fd;
}

void MemorySampler::spool_new() {
  {
    std::lock_guard<std::mutex> guard(mutex_);  // taken out: a drain at a marker never waits for the write
    writing_.swap(pending_);
  }
  // Whatever is not written is dropped, and counted so at MPI_Finalize; the spool ends there, with
  // whole records as far as they got.
  if (!spool_failed_ && spool_fd_ >= 0 && !writing_.empty())
    spool_failed_ = !write_all(spool_fd_, writing_.data(), writing_.size() * sizeof(SampleRecord));
  writing_.clear();  // its room stays for the next swap
}

std::size_t MemorySampler::pending() {
  std::lock_guard<std::mutex> guard(mutex_);
  return pending_.size();
}

void MemorySampler::mark(int iteration) {
  std::lock_guard<std::mutex> guard(mutex_);
  marks_.add(clock_seconds() + offset_, iteration);
}

void MemorySampler::stop() {
  std::lock_guard<std::mutex> guard(mutex_);
  if (ring_ != nullptr) ::munmap(ring_, ring_bytes_);
  ring_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  if (leader_fd_ >= 0) ::close(leader_fd_);
  if (spool_fd_ >= 0) ::close(spool_fd_);
  fd_ = leader_fd_ = spool_fd_ = -1;
}

MemorySampler::~MemorySampler() { stop(); }

}  // namespace ripple::trace::detail
