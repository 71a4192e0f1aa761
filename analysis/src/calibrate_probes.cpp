#include "ripple/analysis/calibrate_probes.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "ripple/common/error.hpp"
#include "ripple/common/numa.hpp"

namespace ripple::analysis {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Memory that is given back when it goes; on huge pages where the kernel grants them, so that the
// chase measures memory, not the page walks of a 4 KiB TLB.
struct Mapping {
  void* p = MAP_FAILED;
  std::size_t n = 0;
  Mapping(std::size_t bytes, bool shared) : n(bytes) {
    p = mmap(nullptr, n, PROT_READ | PROT_WRITE, (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw Error(fmt::format("calibrate: cannot map {} bytes", n));
    madvise(p, n, MADV_HUGEPAGE);
  }
  ~Mapping() {
    if (p != MAP_FAILED) munmap(p, n);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
};

}  // namespace

Measurement summarize(std::vector<double> s, bool larger_is_better, std::string how) {
  std::sort(s.begin(), s.end());
  Measurement m;
  m.best = larger_is_better ? s.back() : s.front();
  m.median = s[s.size() / 2];
  m.how = std::move(how);
  return m;
}

std::size_t last_level_cache_bytes() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long v = sysconf(name);
    if (v > 0) return static_cast<std::size_t>(v);
  }
  return 32u << 20;
}

Measurement pointer_chase_ns(std::size_t bytes, int repetitions, int numa_node) {
  constexpr std::size_t kLine = 64, kStep = kLine / sizeof(std::size_t);
  const std::size_t lines = bytes / kLine;
  Mapping mem(lines * kLine, false);
  if (numa_node >= 0) bind_to_numa_node(mem.p, mem.n, numa_node);  // before the first touch places it
  auto* next = static_cast<std::size_t*>(mem.p);
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(42);
  for (std::size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng() % i]);  // Sattolo: one cycle
  for (std::size_t i = 0; i < lines; ++i) next[order[i] * kStep] = order[(i + 1) % lines] * kStep;
  const std::size_t steps = std::min<std::size_t>(lines, 1u << 21);
  std::vector<double> ns;
  std::size_t at = 0;
  for (std::size_t i = 0; i < steps; ++i) at = next[at];  // warm the TLB and the page tables
  if (numa_node >= 0) {  // where the first touch put it: a failed bind would measure another node
    if (const int where = numa_node_of(mem.p); where != numa_node)
      throw Error(fmt::format("calibrate: the chase's memory is on NUMA node {}, not on {}", where, numa_node));
  }
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < steps; ++i) at = next[at];
    ns.push_back(seconds_since(t0) * 1e9 / static_cast<double>(steps));
  }
  if (at == static_cast<std::size_t>(-1)) std::puts("");  // keeps the chase
  return summarize(ns, false,
                   fmt::format("pointer chase over {} MiB ({} lines, random cycle), {} loads, best of {}{}", bytes >> 20, lines,
                               steps, repetitions, numa_node >= 0 ? fmt::format(", memory on NUMA node {}", numa_node) : ""));
}

// The CPUs that share CPU `cpu`'s last-level cache (sysfs), empty if unknown.
std::set<int> last_level_cache_peers(int cpu) {
  int best_level = -1;
  std::set<int> peers;
  for (int index = 0;; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index{}/", cpu, index);
    std::ifstream level_file(dir + "level"), list_file(dir + "shared_cpu_list");
    int level = 0;
    std::string list;
    if (!(level_file >> level) || !(list_file >> list)) break;
    if (level <= best_level) continue;
    best_level = level;
    peers.clear();
    std::istringstream ranges(list);  // "0-3,8-11"
    for (std::string range; std::getline(ranges, range, ',');) {
      int lo = 0, hi = 0;
      if (std::sscanf(range.c_str(), "%d-%d", &lo, &hi) != 2) hi = lo = std::atoi(range.c_str());
      for (int c = lo; c <= hi; ++c) peers.insert(c);
    }
  }
  return peers;
}

// Puts this process on the CPU it runs on and the child on another one, as mpirun places two ranks,
// preferring a CPU that shares no last-level cache with this one: there a hand-over leaves the
// caches, as an atomic on a CXL pool does; within a shared cache it is a cache's hit (35 ns against
// 190-200 ns on the development VM, whose hypervisor moves its two vCPUs between the two cases
// unseen). A forked child inherits the parent's affinity: under mpirun's default binding to a core
// both would share that core, and each round trip would be two trips through the scheduler (64-97
// us on the development VM). Returns the child's CPU, -1 if none other is allowed (then they share,
// and the description says so).
enum class CacheSharing { Unknown, Shared, Apart };
int place_apart(pid_t child, cpu_set_t& parent_before, CacheSharing& sharing) {
  sched_getaffinity(0, sizeof parent_before, &parent_before);
  const int here = sched_getcpu();
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (here < 0 || cpus < 2) return -1;
  const std::set<int> near = last_level_cache_peers(here);
  cpu_set_t mine, other;
  CPU_ZERO(&mine);
  CPU_SET(here, &mine);
  for (const bool apart : {true, false})
    for (long c = 1; c < cpus; ++c) {  // the next CPU round from this one
      const int cpu = static_cast<int>((here + c) % cpus);
      if (apart == near.contains(cpu)) continue;
      CPU_ZERO(&other);
      CPU_SET(cpu, &other);
      if (sched_setaffinity(child, sizeof other, &other) == 0) {
        sched_setaffinity(0, sizeof mine, &mine);
        sharing = near.empty() ? CacheSharing::Unknown : apart ? CacheSharing::Apart : CacheSharing::Shared;
        return cpu;
      }
    }
  return -1;
}

// Where the hand-over ran, for the description.
std::string where(int child_cpu, CacheSharing sharing) {
  if (child_cpu < 0) return "on one CPU (no other allowed): a scheduler's round trip";
  const std::string cpus = fmt::format("on two CPUs ({} and {})", sched_getcpu(), child_cpu);
  switch (sharing) {
    case CacheSharing::Apart:
      return cpus + " without a shared cache";
    case CacheSharing::Shared:
      return cpus +
             " that share a last-level cache as the system reports it (no allowed CPU shares none): a "
             "hand-over there may stay within it";
    case CacheSharing::Unknown:
      break;
  }
  return cpus + ", whether they share a cache unknown (no cache topology in sysfs)";
}

Measurement atomic_handover_ns(int round_trips, int repetitions) {
  Mapping mem(4096, true);
  auto* flag = new (mem.p) std::atomic<std::int64_t>(0);
  const pid_t child = fork();
  if (child < 0) throw Error("calibrate: fork failed");
  const std::int64_t total = static_cast<std::int64_t>(round_trips) * repetitions;
  // Spin with a yield now and then: on a machine with fewer free cores than the two processes the
  // other one must get to run (the round trip is then a scheduler's, which the spread shows).
  auto wait_for = [&](std::int64_t v) {
    for (unsigned spins = 0; flag->load(std::memory_order_acquire) != v; ++spins) {
      _mm_pause();
      if ((spins & 1023) == 1023) sched_yield();
    }
  };
  if (child == 0) {
    for (std::int64_t k = 0; k < total; ++k) {
      wait_for(2 * k + 1);
      flag->store(2 * k + 2, std::memory_order_release);
    }
    _exit(0);
  }
  cpu_set_t before;
  CacheSharing sharing = CacheSharing::Unknown;
  const int child_cpu = place_apart(child, before, sharing);
  std::vector<double> ns;
  std::int64_t k = 0;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < round_trips; ++i, ++k) {
      flag->store(2 * k + 1, std::memory_order_release);
      wait_for(2 * k + 2);
    }
    ns.push_back(seconds_since(t0) * 1e9 / (2.0 * round_trips));  // two hand-overs a round trip
  }
  int status = 0;
  waitpid(child, &status, 0);
  sched_setaffinity(0, sizeof before, &before);
  return summarize(ns, false,
                   fmt::format("half a flag ping-pong between two processes on shared memory, {} round trips, best of {}, {}",
                               round_trips, repetitions, where(child_cpu, sharing)));
}

Measurement read_bandwidth(std::size_t bytes, int repetitions) {
  Mapping mem(bytes, false);
  auto* a = static_cast<std::uint64_t*>(mem.p);
  const std::size_t n = bytes / sizeof(std::uint64_t);
  for (std::size_t i = 0; i < n; ++i) a[i] = i;
  const std::size_t passes = std::max<std::size_t>(1, (std::size_t{256} << 20) / bytes);  // about 256 MiB a repetition
  std::vector<double> rate;
  volatile std::uint64_t sink = 0;
  for (int r = 0; r < repetitions; ++r) {
    std::uint64_t sum = 0;
    const auto t0 = Clock::now();
    for (std::size_t p = 0; p < passes; ++p)
      for (std::size_t i = 0; i < n; ++i) sum += a[i];
    rate.push_back(static_cast<double>(bytes * passes) / seconds_since(t0));
    sink = sink + sum;
  }
  return summarize(rate, true, fmt::format("streaming read of {} KiB, {} passes, best of {}", bytes >> 10, passes, repetitions));
}

Measurement clock_ghz(int repetitions) {
  std::vector<double> ghz;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    const std::uint64_t c0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::uint64_t c1 = __rdtsc();
    ghz.push_back(static_cast<double>(c1 - c0) / seconds_since(t0) * 1e-9);
  }
  // The rate is the same in every repetition; the median is the robust one.
  Measurement m =
      summarize(ghz, false, fmt::format("time-stamp counter against the steady clock over 20 ms, median of {}", repetitions));
  m.best = m.median;
  return m;
}

}  // namespace ripple::analysis
