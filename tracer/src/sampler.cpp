#include "sampler.hpp"

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "perf_open.hpp"
#include "placement.hpp"
#include "sample_event.hpp"
#include "spool_format.hpp"
#include "tracer_clock.hpp"

namespace ripple::trace::detail {
namespace {

// This process's CLOCK_MONOTONIC less the kernel's, which stamps the samples
// (monotonic_namespace_offset). /proc/self/timens_offsets shows the time namespace of the
// process's children: its own, unless it made a new one without entering it (then unknown).
std::optional<double> namespace_shift() {
  std::ifstream in("/proc/self/timens_offsets");
  if (!in) return 0.0;  // a kernel without time namespaces
  char own[64] = {}, children[64] = {};
  if (::readlink("/proc/self/ns/time", own, sizeof own - 1) < 0 ||
      ::readlink("/proc/self/ns/time_for_children", children, sizeof children - 1) < 0 || std::strcmp(own, children) != 0)
    return std::nullopt;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return monotonic_namespace_offset(text);
}

std::string signed_seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.9g s", s);
  return text;
}

std::string paranoid_hint() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 0;
  return in >> level ? " (perf_event_paranoid is " + std::to_string(level) + ")" : "";
}

int open_attr(const perf_event_attr& attr, int cpu, int group_fd) { return perf_open(attr, 0, cpu, group_fd); }

std::string open_failure(const std::string& name) {
  const int err = errno;  // before the hint's file read can change it
  return "perf_event_open(" + name + ") failed: " + std::strerror(err) + (err == EACCES || err == EPERM ? paranoid_hint() : "");
}

// What bounds a user's perf ring buffers: perf_event_mlock_kb per CPU for all of the user's
// processes on the node together, then their locked-memory limit, unless they have CAP_IPC_LOCK.
const std::string kLockLimits = "perf_event_mlock_kb (per CPU, for all of a user's processes together), then ulimit -l";

// "rings of 64 data pages each", or where the limit halved them: "rings of 8 data pages each (64
// asked; ...)". Ranks whose limits bite differently say so in their own /ranks/sources.
std::string ring_text(std::size_t rings, std::size_t pages, std::size_t asked) {
  std::string text =
      (rings > 1 ? "rings of " : "a ring of ") + std::to_string(pages) + " data pages" + (rings > 1 ? " each" : "");
  if (pages != asked)
    text += " (" + std::to_string(asked) + " asked; halved while the locked-memory limit refused: " + kLockLimits + ")";
  return text;
}

}  // namespace

// Opens `spec` (and its leader) for this thread on `cpu`, inherited by the threads it starts from
// now on; or, with cpu -1, for this thread alone wherever it runs (the kernel maps no inherited
// event for any CPU).
bool MemorySampler::open_event(const SampleEventSpec& spec, int cpu, Ring& ring, std::string& why) {
  const bool inherit = cpu >= 0;
  if (spec.led) {
    perf_event_attr leader = spec.leader;
    leader.inherit = inherit ? 1 : 0;
    ring.leader_fd = open_attr(leader, cpu, -1);
    if (ring.leader_fd < 0) {
      why = open_failure("mem-loads-aux");
      return false;
    }
  }
  perf_event_attr sample = spec.sample;
  sample.inherit = inherit ? 1 : 0;
  ring.fd = open_attr(sample, cpu, ring.leader_fd);
  if (ring.fd < 0) {
    why = open_failure(spec.what.substr(0, spec.what.find(' ')));
    return false;
  }
  return true;
}

// Maps a ring of `pages` data pages (a power of two) for each opened event, all of one size: where
// the locked-memory limit refuses one, every ring is mapped again at half the size, down to one
// page (rings filled in turn would leave the last CPUs none). Returns the size, or 0 with `why`.
std::size_t MemorySampler::map_rings(std::size_t pages, std::string& why) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (;; pages /= 2) {
    int err = 0;
    for (Ring& r : rings_) {
      r.bytes = (pages + 1) * page;
      void* map = ::mmap(nullptr, r.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
      if (map == MAP_FAILED) {
        err = errno;
        break;
      }
      r.map = map;
    }
    if (err == 0) return pages;
    for (Ring& r : rings_)
      if (r.map != nullptr) {
        ::munmap(r.map, r.bytes);
        r.map = nullptr;
      }
    if (err != EPERM || pages == 1) {
      why = std::string("mmap of the sample ring buffer") + (rings_.size() > 1 ? "s" : "") + " failed: " + std::strerror(err) +
            (err == EPERM ? " (the locked-memory limit: " + kLockLimits + ")" : "");
      return 0;
    }
  }
}

// One inherited event per CPU of `cpus`.
bool MemorySampler::open_on_cpus(const SampleEventSpec& spec, const std::vector<int>& cpus, std::string& why) {
  for (const int cpu : cpus) {
    rings_.emplace_back();
    if (!open_event(spec, cpu, rings_.back(), why)) {
      why = "on CPU " + std::to_string(cpu) + ": " + why;
      return false;
    }
  }
  return !rings_.empty();
}

void MemorySampler::close_rings() {
  for (Ring& r : rings_) {
    if (r.map != nullptr) ::munmap(r.map, r.bytes);
    if (r.fd >= 0) ::close(r.fd);
    if (r.leader_fd >= 0) ::close(r.leader_fd);
  }
  rings_.clear();
}

// Under the lock that drains take: the recorder's flusher already runs (started first, so that the
// inherited events never sample the tracer's own thread).
void MemorySampler::start(const SamplerConfig& c, int rank, double t0) {
  std::lock_guard<std::mutex> guard(mutex_);
  rank_ = rank;
  pid_ = static_cast<std::uint32_t>(::getpid());
  offset_ = clock_offset_ = -t0;
  std::string clock_note;  // for the status, where the samples' clock is not the process's
  if (const std::optional<double> shift = namespace_shift(); !shift)
    clock_note = ", sample times in an unknown time namespace";
  else if (*shift != 0) {
    offset_ += *shift;
    clock_note = ", sample times moved " + signed_seconds(*shift) + " into this process's time namespace";
  }
  max_samples_ = c.max_samples;
  if (c.event == "off") {
    status_ = "unavailable: switched off (--samples off)";
    return;
  }
  SampleEventSpec spec;
  std::string why;
  if (!describe_sample_event(c.event, c.period, c.ldlat, c.sysfs, spec, why)) {
    status_ = "unavailable: " + why;
    return;
  }
  std::size_t total = 1;
  while (total < c.ring_pages) total *= 2;
  // Every thread: an inherited event on each CPU the rank may run on, the ring's pages shared out.
  const std::vector<int> cpus = affinity_of(0);  // the rank's binding
  std::size_t each = total;
  while (each > 1 && each * cpus.size() > total) each /= 2;
  // The CPUs themselves are in /ranks/placement (binding): left out here, the status of ranks that
  // are bound alike reads alike.
  std::string scope;
  std::size_t asked = each, pages = 0;
  if (!cpus.empty() && open_on_cpus(spec, cpus, why) && (pages = map_rings(each, why)) != 0) {
    scope = "the thread that called MPI_Init and those it starts, on the " + std::to_string(cpus.size()) + " CPU" +
            (cpus.size() > 1 ? "s" : "") + " of its binding";
  } else {  // this thread alone, as a last resort (and so said)
    const std::string per_cpu = cpus.empty() ? std::string("the rank's CPUs are unknown") : why;
    close_rings();
    rings_.emplace_back();
    asked = total;
    if (!open_event(spec, -1, rings_.back(), why) || (pages = map_rings(total, why)) == 0) {
      close_rings();
      status_ = "unavailable: " + why;
      return;
    }
    scope = "the thread that called MPI_Init only (per CPU: " + per_cpu + ")";
  }
  event_ = spec;
  status_ = "active: " + spec.what + ", " + scope + ", " + ring_text(rings_.size(), pages, asked) + clock_note;
  // Room for what waits between two flushes (the flusher spools at 16 Ki): a drain at an iteration
  // marker, inside MPI_Pcontrol, then seldom allocates. spool_new swaps the two, so both keep it.
  const std::size_t room = std::min<std::size_t>(max_samples_, 1u << 14);
  pending_.reserve(room);
  writing_.reserve(room);
  active_.store(true, std::memory_order_release);
}

void MemorySampler::keep(const MemorySample& s, void* self) {
  auto& m = *static_cast<MemorySampler*>(self);
  // A child the rank forked, on a kernel without inherit_thread (perf_open.hpp): not the rank's load.
  if (s.pid != m.pid_) return;
  // IBS samples every op: those that are not loads are no memory-load samples (PEBS reports loads only).
  if (!is_load_sample(m.event_, s.data_src)) return;
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

void MemorySampler::drain_ring_locked(Ring& ring) {
  auto* meta = static_cast<perf_event_mmap_page*>(ring.map);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t offset = meta->data_offset != 0 ? meta->data_offset : page;
  const std::uint64_t size = meta->data_size != 0 ? meta->data_size : ring.bytes - page;
  const std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  const std::uint64_t tail = meta->data_tail;
  const auto* data = static_cast<const std::uint8_t*>(ring.map) + offset;
  const DrainResult r = drain_ring(data, size, tail, head, kMemorySampleType, &MemorySampler::keep, this);
  lost_ += static_cast<std::int64_t>(r.lost);
  // A damaged record cannot be stepped over: skip to the head (and count nothing we cannot read).
  __atomic_store_n(&meta->data_tail, r.corrupt ? head : tail + r.consumed, __ATOMIC_RELEASE);
}

void MemorySampler::drain() {
  std::lock_guard<std::mutex> guard(mutex_);
  const std::size_t first = pending_.size();
  for (Ring& ring : rings_) drain_ring_locked(ring);
  // Each ring is in time order; several (threads on several CPUs) are merged, in place: a drain at
  // an iteration marker runs inside MPI_Pcontrol, where nothing is allocated (std::stable_sort would).
  if (rings_.size() > 1)
    std::sort(pending_.begin() + static_cast<std::ptrdiff_t>(first), pending_.end(),
              [](const SampleRecord& a, const SampleRecord& b) { return a.time < b.time; });
}

void MemorySampler::spool_to(int fd) {
  std::lock_guard<std::mutex> guard(mutex_);
  spool_fd_ = fd;
}

void MemorySampler::spool_new() {
  int fd = -1;
  {
    std::lock_guard<std::mutex> guard(mutex_);  // taken out: a drain at a marker never waits for the write
    writing_.swap(pending_);
    fd = spool_fd_;
  }
  // Whatever is not written is dropped, and counted so at MPI_Finalize; the spool ends there, with
  // whole records as far as they got.
  if (!spool_failed_ && fd >= 0 && !writing_.empty())
    spool_failed_ = !write_all(fd, writing_.data(), writing_.size() * sizeof(SampleRecord));
  writing_.clear();  // its room stays for the next swap
}

std::size_t MemorySampler::pending() {
  std::lock_guard<std::mutex> guard(mutex_);
  return pending_.size();
}

void MemorySampler::mark(int iteration) {
  std::lock_guard<std::mutex> guard(mutex_);
  marks_.add(clock_seconds() + clock_offset_, iteration);
}

void MemorySampler::stop() {
  std::lock_guard<std::mutex> guard(mutex_);
  active_.store(false, std::memory_order_release);
  close_rings();
  if (spool_fd_ >= 0) ::close(spool_fd_);
  spool_fd_ = -1;
}

MemorySampler::~MemorySampler() { stop(); }

}  // namespace ripple::trace::detail
