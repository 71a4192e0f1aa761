#include "placement.hpp"

#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ripple/common/index_list.hpp"

namespace ripple::trace::detail {
namespace {

// RAII for the topology and a bitmap.
struct Topology {
  hwloc_topology_t t = nullptr;
  bool loaded = false;
  Topology() {
    if (hwloc_topology_init(&t) == 0) loaded = hwloc_topology_load(t) == 0;
  }
  ~Topology() {
    if (t != nullptr) hwloc_topology_destroy(t);
  }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
};
struct Bitmap {
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  ~Bitmap() { hwloc_bitmap_free(b); }
  Bitmap() = default;
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
};

void copy_text(char* out, std::size_t size, const char* text) { std::snprintf(out, size, "%s", text); }

// Fills `bind` with the rank's binding (left empty where hwloc cannot tell).
void locate(Topology& topo, PlacementInfo& info, Bitmap& bind) {
  Placement& p = info.me;
  Bitmap last;
  if (hwloc_get_cpubind(topo.t, bind.b, HWLOC_CPUBIND_PROCESS) == 0) {
    char* text = nullptr;
    if (hwloc_bitmap_list_asprintf(&text, bind.b) >= 0) copy_text(p.binding, sizeof p.binding, text);
    std::free(text);
  }
  if (hwloc_get_last_cpu_location(topo.t, last.b, HWLOC_CPUBIND_THREAD) != 0 || hwloc_bitmap_iszero(last.b)) return;
  const int os = hwloc_bitmap_first(last.b);
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo.t, static_cast<unsigned>(os));
  if (pu == nullptr) return;
  p.pu = os;
  if (hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo.t, HWLOC_OBJ_CORE, pu))
    p.core = static_cast<int>(core->logical_index);
  if (hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo.t, HWLOC_OBJ_PACKAGE, pu)) {
    p.package = static_cast<int>(pkg->logical_index);
    for (int c = hwloc_bitmap_first(pkg->cpuset); c >= 0; c = hwloc_bitmap_next(pkg->cpuset, c)) info.package_cpus.push_back(c);
  }
  if (hwloc_obj_t numa = hwloc_get_next_obj_covering_cpuset_by_type(topo.t, pu->cpuset, HWLOC_OBJ_NUMANODE, nullptr))
    p.numa = static_cast<int>(numa->os_index);
}

}  // namespace

std::vector<int> affinity_of(pid_t pid) {
  const long configured = ::sysconf(_SC_NPROCESSORS_CONF);
  const int n = static_cast<int>(std::max(configured, 1024L));
  cpu_set_t* set = CPU_ALLOC(n);
  const std::size_t bytes = CPU_ALLOC_SIZE(n);
  std::vector<int> cpus;
  if (set != nullptr && ::sched_getaffinity(pid, bytes, set) == 0)
    for (int c = 0; c < n; ++c)
      if (CPU_ISSET_S(c, bytes, set)) cpus.push_back(c);
  if (set != nullptr) CPU_FREE(set);
  return cpus;
}

namespace {

// The CPUs of the node that hwloc may use (the job's cgroup) and the launcher may run on, that no
// rank of `node` is bound to; of this rank's package where it has some. A rank whose binding is
// unknown counts as bound to all. Collective over `node`: the bindings are OR-ed as 64-bit words.
void find_free_cpus(const Topology& topo, const Bitmap& bind, PlacementInfo& info, MPI_Comm node) {
  const bool known = topo.loaded && !hwloc_bitmap_iszero(bind.b);
  hwloc_const_bitmap_t all = topo.loaded ? hwloc_topology_get_allowed_cpuset(topo.t) : nullptr;
  int words = all != nullptr && hwloc_bitmap_last(all) >= 0 ? hwloc_bitmap_last(all) / 64 + 1 : 1;
  PMPI_Allreduce(MPI_IN_PLACE, &words, 1, MPI_INT, MPI_MAX, node);
  std::vector<std::uint64_t> bound(static_cast<std::size_t>(words), known ? 0 : ~std::uint64_t{0});
  for (int c = known ? hwloc_bitmap_first(bind.b) : -1; c >= 0 && c / 64 < words; c = hwloc_bitmap_next(bind.b, c))
    bound[static_cast<std::size_t>(c / 64)] |= std::uint64_t{1} << (c % 64);
  PMPI_Allreduce(MPI_IN_PLACE, bound.data(), words, MPI_UINT64_T, MPI_BOR, node);
  if (!known) {
    info.no_free_cpus = "this rank's binding is unknown (hwloc)";
    return;
  }
  std::vector<int> free;
  for (int c = all != nullptr ? hwloc_bitmap_first(all) : -1; c >= 0 && c / 64 < words; c = hwloc_bitmap_next(all, c))
    if (((bound[static_cast<std::size_t>(c / 64)] >> (c % 64)) & 1) == 0) free.push_back(c);
  if (free.empty()) {
    info.no_free_cpus = "every CPU of the node is bound to a rank, or a rank's binding is unknown";
    return;
  }
  // The launcher's (mpirun's, prted's, slurmstepd's, or a wrapper script's) affinity: a user who
  // restricted the launch (taskset, numactl) meant the job to stay there.
  if (const std::vector<int> launcher = affinity_of(::getppid()); !launcher.empty()) {
    std::erase_if(free, [&](int c) { return !std::binary_search(launcher.begin(), launcher.end(), c); });
    if (free.empty()) {
      info.no_free_cpus = "the CPUs bound to no rank are outside the launcher's affinity";
      return;
    }
  }
  std::vector<int> near;
  for (const int c : free)
    if (std::find(info.package_cpus.begin(), info.package_cpus.end(), c) != info.package_cpus.end()) near.push_back(c);
  info.free_cpus = near.empty() ? free : near;
}

// Rank 0 of each group of `comm` split by `color`: whether this rank leads its group.
bool lowest_of(MPI_Comm comm, int color, int key) {
  MPI_Comm group = MPI_COMM_NULL;
  PMPI_Comm_split(comm, color, key, &group);
  int r = 0;
  PMPI_Comm_rank(group, &r);
  PMPI_Comm_free(&group);
  return r == 0;
}

}  // namespace

PlacementInfo probe_placement(MPI_Comm world) {
  PlacementInfo info;
  Placement& p = info.me;
  int rank = 0;
  PMPI_Comm_rank(world, &rank);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  copy_text(p.host, sizeof p.host, host);

  Topology topo;
  Bitmap bind;
  if (topo.loaded) {
    locate(topo, info, bind);
    info.status = "hwloc " HWLOC_VERSION;
  } else {
    info.status = "unavailable: hwloc could not load this machine's topology";
  }

  // Node leaders, and node indices in the order of their leaders' world ranks.
  MPI_Comm node = MPI_COMM_NULL;
  PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_rank = 0;
  PMPI_Comm_rank(node, &node_rank);
  p.node_leader = node_rank == 0 ? 1 : 0;
  int before = 0;
  PMPI_Exscan(&p.node_leader, &before, 1, MPI_INT, MPI_SUM, world);
  if (rank == 0) before = 0;
  int index = p.node_leader != 0 ? before : 0;
  PMPI_Bcast(&index, 1, MPI_INT, 0, node);
  p.node = index;
  // One socket leader per package of each node; ranks whose package is unknown share one.
  p.socket_leader = lowest_of(node, p.package + 1, rank) ? 1 : 0;
  find_free_cpus(topo, bind, info, node);
  PMPI_Comm_free(&node);

  if (p.node_leader != 0 && topo.loaded) {
    char* xml = nullptr;
    int length = 0;
    if (hwloc_topology_export_xmlbuffer(topo.t, &xml, &length, 0) == 0) {
      info.node_xml.assign(xml, length > 0 ? static_cast<std::size_t>(length - 1) : 0);  // without the final NUL
      hwloc_free_xmlbuffer(topo.t, xml);
    }
  }
  return info;
}

std::string place_tracer_thread(pthread_t thread, const PlacementInfo& where) {
  // Named last: a thread named ripple-flusher is where it will stay (tests look for the name).
  const auto named = [&](const std::string& said) {
    ::pthread_setname_np(thread, "ripple-flusher");  // 14 characters: within the kernel's 15
    return "the tracer's thread " + said;
  };
  const char* want = std::getenv("RIPPLE_TRACE_FLUSHER_CPUS");
  if (want != nullptr && std::string(want) == "rank") return named("on the rank's CPUs (RIPPLE_TRACE_FLUSHER_CPUS=rank)");
  const std::vector<int>& cpus = where.free_cpus;
  if (cpus.empty()) return named("on the rank's CPUs (" + where.no_free_cpus + ")");
  cpu_set_t* set = CPU_ALLOC(cpus.back() + 1);
  const std::size_t bytes = CPU_ALLOC_SIZE(cpus.back() + 1);
  if (set == nullptr) return named("on the rank's CPUs (no memory to move it)");
  CPU_ZERO_S(bytes, set);
  for (const int c : cpus) CPU_SET_S(c, bytes, set);
  const int rc = ::pthread_setaffinity_np(thread, bytes, set);
  CPU_FREE(set);
  if (rc != 0) return named("on the rank's CPUs (moving it failed: " + std::string(std::strerror(rc)) + ")");
  std::string said = cpus.size() > 1 ? "on CPUs " : "on CPU ";
  said += index_list(cpus);
  said += ", bound to no rank of the node (RIPPLE_TRACE_FLUSHER_CPUS=rank keeps it on the rank's)";
  return named(said);
}

}  // namespace ripple::trace::detail
