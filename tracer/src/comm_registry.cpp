// The communicator registry: ids for the communicators, windows and MPI-IO files a run uses, and the
// translation of a communicator's ranks to world ranks (recorder_state.hpp says what is kept and for
// how long). Lookups of the communicator or window a thread used last take no lock; files (a
// handful, each access microseconds at least) are looked up under the lock.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "recorder.hpp"
#include "recorder_state.hpp"

namespace ripple::trace {

using detail::g_state;
using detail::State;

namespace {
void comm_lock(State& s) {
  while (s.comm_lock.test_and_set(std::memory_order_acquire)) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
}
void comm_unlock(State& s) { s.comm_lock.clear(std::memory_order_release); }

// The world ranks of comm's ranks (of the remote group for an intercommunicator); empty where they
// are the world's in order (a duplicate of MPI_COMM_WORLD: no memory per rank). MPI calls only.
std::vector<int> world_ranks_of(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  MPI_Group group, world;
  if (inter != 0)
    PMPI_Comm_remote_group(comm, &group);
  else
    PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> local(static_cast<std::size_t>(size)), out(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) local[static_cast<std::size_t>(r)] = r;
  PMPI_Group_translate_ranks(group, size, local.data(), world, out.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  bool identity = inter == 0 && size == g_state->ranks;
  for (int r = 0; identity && r < size; ++r) identity = out[static_cast<std::size_t>(r)] == r;
  if (identity) out.clear();
  return out;
}
}  // namespace

namespace {
// A freed communicator's translation joins the recently freed; the oldest beyond the bounds go,
// unless a window still needs them. Caller holds comm_lock.
void retire_comm_locked(State& s, int id) {
  const auto it = s.comm_world.find(id);
  if (it == s.comm_world.end()) return;
  s.freed_comms.push_back(id);
  s.freed_ranks += it->second.world.size();
  while (s.freed_comms.size() > State::kFreedCommsKept || (s.freed_ranks > State::kFreedRanksKept && s.freed_comms.size() > 1)) {
    const auto old = s.comm_world.find(s.freed_comms.front());
    s.freed_comms.pop_front();
    if (old == s.comm_world.end()) continue;
    s.freed_ranks -= old->second.world.size();
    old->second.kept = false;
    if (old->second.windows == 0) s.comm_world.erase(old);
  }
}

// comm's id, registering it with its translation. `learned`: found in use, made by a call the
// tracer does not wrap; another thread may have learned it first, and then its id stands.
// Otherwise comm was just made: a live entry for the same handle was freed by a call the tracer
// does not wrap, and retires. Caller holds comm_lock.
// `agreed`: the id the members of a just-made communicator agreed on (agreed_comm_id), -1 for one
// learned in use.
int add_comm_locked(State& s, MPI_Comm comm, std::vector<int>&& world, bool learned, int agreed = -1) {
  if (const auto it = s.live_comms.find(comm); it != s.live_comms.end()) {
    if (learned) return it->second;
    retire_comm_locked(s, it->second);
    s.live_comms.erase(it);
  }
  // Ids stay unique within the rank: if another thread made a communicator during the agreement,
  // this one takes the next id (which its peers may not share: said in docs/trace-format.md).
  const int id = std::max(agreed, s.next_comm_id);
  s.next_comm_id = id + 1;
  s.comm_world.emplace(id, detail::CommTranslation{std::move(world)});
  s.live_comms.emplace(comm, id);
  s.comm_generation.fetch_add(1, std::memory_order_release);
  return id;
}
}  // namespace

namespace {
// The id all members of the just-made `comm` give it: the largest next id among them. Each rank
// numbers the communicators it has in order, so without this a rank that got MPI_COMM_NULL from a
// split, or that learned a communicator at first use, would number every later one differently
// from its peers, and a send's communicator would not be its receive's. A collective on `comm`,
// which all its members are making now (and only they: MPI_Comm_create_group).
int agreed_comm_id(State& s, MPI_Comm comm) {
  comm_lock(s);
  const int mine = s.next_comm_id;
  comm_unlock(s);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  int id = mine;
  PMPI_Allreduce(&mine, &id, 1, MPI_INT, MPI_MAX, comm);
  if (inter != 0) {  // on an intercommunicator each group gets the other group's maximum: once more
    const int both = std::max(mine, id);
    PMPI_Allreduce(&both, &id, 1, MPI_INT, MPI_MAX, comm);
  }
  return id;
}
}  // namespace

void register_comm(MPI_Comm comm) {
  if (g_state == nullptr || comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD) return;
  State& s = *g_state;
  std::vector<int> world = world_ranks_of(comm);  // outside the lock: MPI calls
  const int agreed = agreed_comm_id(s, comm);
  comm_lock(s);
  add_comm_locked(s, comm, std::move(world), false, agreed);
  comm_unlock(s);
}

void forget_comm(MPI_Comm comm) {
  if (g_state == nullptr || comm == MPI_COMM_WORLD) return;
  State& s = *g_state;
  comm_lock(s);
  if (const auto it = s.live_comms.find(comm); it != s.live_comms.end()) {
    retire_comm_locked(s, it->second);  // its translation stays a while, for requests still pending on it
    s.live_comms.erase(it);
    s.comm_generation.fetch_add(1, std::memory_order_release);
  }
  comm_unlock(s);
}

void register_window(MPI_Win win, MPI_Comm comm) {
  if (g_state == nullptr || win == MPI_WIN_NULL) return;
  State& s = *g_state;
  const int id = detail::comm_id(comm);
  comm_lock(s);
  s.windows.emplace_back(win, id);
  if (const auto it = s.comm_world.find(id); it != s.comm_world.end()) ++it->second.windows;  // keeps the translation
  s.comm_generation.fetch_add(1, std::memory_order_release);
  comm_unlock(s);
}

void register_file(MPI_File file, MPI_Comm comm) {
  if (g_state == nullptr || file == MPI_FILE_NULL) return;
  State& s = *g_state;
  const int id = detail::comm_id(comm);
  comm_lock(s);
  s.files.emplace_back(file, id);  // a handful at a time: no translation kept, peers are not ranks
  comm_unlock(s);
}

void forget_file(MPI_File file) {
  if (g_state == nullptr) return;
  State& s = *g_state;
  comm_lock(s);
  for (std::size_t k = s.files.size(); k-- > 0;)
    if (s.files[k].first == file) {
      s.files.erase(s.files.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
  comm_unlock(s);
}

void forget_window(MPI_Win win) {
  if (g_state == nullptr) return;
  State& s = *g_state;
  comm_lock(s);
  for (std::size_t k = s.windows.size(); k-- > 0;)
    if (s.windows[k].first == win) {
      const auto it = s.comm_world.find(s.windows[k].second);
      if (it != s.comm_world.end() && --it->second.windows == 0 && !it->second.kept) s.comm_world.erase(it);
      s.windows.erase(s.windows.begin() + static_cast<std::ptrdiff_t>(k));
      s.comm_generation.fetch_add(1, std::memory_order_release);
      break;
    }
  comm_unlock(s);
}

namespace detail {
namespace {
// The last handle this thread looked up in a registry (communicators, windows) and the id found,
// valid while the registries' generation is unchanged: repeated lookups take no lock.
template <class Handle>
struct HandleCache {
  Handle handle;
  int id;
  std::uint64_t generation;
  bool holds(Handle h, std::uint64_t g) const { return handle == h && generation == g; }
};
RIPPLE_TLS thread_local HandleCache<MPI_Comm> t_comm_cache{MPI_COMM_NULL, -1, ~std::uint64_t{0}};
RIPPLE_TLS thread_local HandleCache<MPI_Win> t_window_cache{MPI_WIN_NULL, -1, ~std::uint64_t{0}};

// The id of the live communicator comm, or -1. Caller holds comm_lock.
int find_comm(const State& s, MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return 0;
  const auto it = s.live_comms.find(comm);
  return it == s.live_comms.end() ? -1 : it->second;
}
}  // namespace

int comm_id(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return 0;  // never freed: id 0, the identity
  if (comm == MPI_COMM_NULL) return -1;  // an erroneous call (under MPI_ERRORS_RETURN): no communicator
  State& s = *g_state;
  const std::uint64_t generation = s.comm_generation.load(std::memory_order_acquire);
  if (t_comm_cache.holds(comm, generation)) return t_comm_cache.id;
  const int id = comm_id_locked(comm);
  t_comm_cache = {comm, id, generation};
  return id;
}

int comm_id_locked(MPI_Comm comm) {
  State& s = *g_state;
  comm_lock(s);
  const int id = find_comm(s, comm);
  comm_unlock(s);
  if (id >= 0) return id;
  // Made by a call the tracer does not wrap: learned now (rare).
  std::vector<int> world = world_ranks_of(comm);  // outside the lock: MPI calls
  comm_lock(s);
  const int learned = add_comm_locked(s, comm, std::move(world), true);
  comm_unlock(s);
  return learned;
}

int world_rank(int id, int rank) {
  State& s = *g_state;
  if (id == 0) return rank >= 0 && rank < s.ranks ? rank : -1;  // MPI_COMM_WORLD: identity, no lock
  comm_lock(s);
  int world = -1;
  if (const auto it = s.comm_world.find(id); it != s.comm_world.end()) {
    const auto& w = it->second.world;
    if (w.empty())
      world = rank >= 0 && rank < s.ranks ? rank : -1;
    else if (rank >= 0 && static_cast<std::size_t>(rank) < w.size())
      world = w[static_cast<std::size_t>(rank)];
  } else if (id > 0) {
    ++s.peers_untranslated;  // freed, and no longer among the recently freed
  }
  comm_unlock(s);
  return world == MPI_UNDEFINED ? -1 : world;
}

int window_comm(MPI_Win win) {
  State& s = *g_state;
  const std::uint64_t generation = s.comm_generation.load(std::memory_order_acquire);
  if (t_window_cache.holds(win, generation)) return t_window_cache.id;
  comm_lock(s);
  int id = -1;  // a window made by a call the tracer does not wrap
  for (std::size_t k = s.windows.size(); k-- > 0;)
    if (s.windows[k].first == win) {
      id = s.windows[k].second;
      break;
    }
  comm_unlock(s);
  t_window_cache = {win, id, generation};
  return id;
}

int file_comm(MPI_File file) {
  State& s = *g_state;
  comm_lock(s);
  int id = -1;  // a file opened by a call the tracer does not wrap
  for (const auto& [handle, comm] : s.files)
    if (handle == file) {
      id = comm;
      break;
    }
  comm_unlock(s);
  return id;
}

}  // namespace detail

}  // namespace ripple::trace
