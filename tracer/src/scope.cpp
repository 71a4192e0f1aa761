// The hot path's out-of-line half: commit() (one event into the ring), and the Scope functions the
// generated wrappers call for requests and their completions (recorder.hpp). They stay in one
// translation unit with the per-thread completion scratch: committing a call's completions inlines
// commit(), and the scratch's thread-locals are reached without another unit's TLS wrapper call.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "recorder.hpp"
#include "recorder_state.hpp"
#include "request_table.hpp"

namespace ripple::trace {

using detail::g_state;
using detail::Guard;
using detail::State;
using detail::status_bytes;

namespace detail {
// A full ring, or several producers (MPI_THREAD_MULTIPLE): under the producers' lock, spooling a
// full ring first (without holding that lock meanwhile).
[[gnu::noinline]] static void commit_contended(const Event& e) {
  State& s = *g_state;
  for (;;) {
    {
      const Guard guard(s);
      if (push(e)) return;
    }
    detail::flush_all();
  }
}

// One event into the ring: for a single producer no lock and no atomic read-modify-write at all.
void commit(const Event& e) {
  State& s = *g_state;
  if (!s.threaded && push(e)) [[likely]]
    return;
  commit_contended(e);
}
}  // namespace detail

namespace {

// Per thread: completion records of the current call, status scratch, request handles before MPI
// overwrote them. They grow only when a call completes more requests than any before it.
RIPPLE_TLS thread_local std::vector<Event> t_completions(64);
RIPPLE_TLS thread_local std::vector<MPI_Status> t_statuses(64);
RIPPLE_TLS thread_local std::vector<MPI_Request> t_handles(64);
RIPPLE_TLS thread_local std::vector<detail::RequestInfo> t_infos(64);  // what the handles meant before the call
RIPPLE_TLS constinit thread_local MPI_Status t_status{};               // a single status (MPI_Recv, MPI_Wait): no init check
}  // namespace

void Scope::commit_now() {
  if (!recording_ || !detail::recording()) return;
  commit_call();
  recording_ = false;
}

void Scope::commit_together() {
  State& s = *g_state;
  const auto need = static_cast<std::uint64_t>(pending_) + 1;
  const std::uint64_t slots = detail::g_recording.ring_mask + 1;
  if (need > slots) {  // more than a whole (tiny) ring holds: one at a time, each under the lock
    event_.t_exit = detail::stamp();
    detail::commit(event_);
    commit_completions();
    pending_ = 0;
    return;
  }
  for (;;) {
    {
      const Guard guard(s);
      const std::uint64_t taken =
          detail::g_recording.head->load(std::memory_order_relaxed) - detail::g_recording.tail->load(std::memory_order_acquire);
      if (slots - taken >= need) {
        event_.t_exit = detail::stamp();
        detail::push(event_);
        for (int k = 0; k < pending_; ++k) {
          Event& c = t_completions[static_cast<std::size_t>(k)];
          c.t_enter = event_.t_enter;
          c.t_exit = event_.t_exit;
          detail::push(c);
        }
        pending_ = 0;
        return;
      }
    }
    detail::flush_all();  // without the lock, as commit_contended does
  }
}

void Scope::commit_completions() {
  for (int k = 0; k < pending_; ++k) {
    Event& c = t_completions[static_cast<std::size_t>(k)];
    c.t_enter = event_.t_enter;
    c.t_exit = event_.t_exit;
    detail::commit(c);
  }
}

MPI_Status* Scope::status(MPI_Status* s) {
  if (!recording_ || s != MPI_STATUS_IGNORE) return s;
  return &t_status;
}

MPI_Status* Scope::statuses(MPI_Status* s, int count) {
  if (!recording_ || s != MPI_STATUSES_IGNORE) return s;
  if (t_statuses.size() < static_cast<std::size_t>(count)) t_statuses.resize(static_cast<std::size_t>(count));
  return t_statuses.data();
}

// Resolves the requests before MPI completes (and may free and reuse) their handles.
void Scope::snapshot(const MPI_Request* requests, int count) {
  if (!recording_ || count <= 0) return;
  snapshot_count_ = count;
  if (t_handles.size() < static_cast<std::size_t>(count)) {
    t_handles.resize(static_cast<std::size_t>(count));
    t_infos.resize(static_cast<std::size_t>(count));
  }
  State& s = *g_state;
  // The table's lock and round are taken at the first live handle: null requests (a polling loop of
  // MPI_Test on MPI_REQUEST_NULL) are never looked up.
  std::optional<Guard> guard;
  for (int k = 0; k < count; ++k) {
    t_handles[static_cast<std::size_t>(k)] = requests[k];
    const auto handle = reinterpret_cast<std::uintptr_t>(requests[k]);
    // A handle that stands for several requests (request_table.hpp): its nth use here is its nth
    // oldest (a handle given more often than it has entries: its oldest).
    const detail::RequestInfo* info = nullptr;
    if (requests[k] != MPI_REQUEST_NULL) {
      if (!guard) {
        guard.emplace(s);
        s.requests.new_round();
      }
      info = s.requests.next_in_round(handle);
      if (info == nullptr) info = s.requests.find(handle);
    }
    t_infos[static_cast<std::size_t>(k)] = info != nullptr ? *info : detail::RequestInfo{};
  }
}

Event& Scope::new_completion(int index) {
  if (static_cast<std::size_t>(pending_) >= t_completions.size()) t_completions.resize(t_completions.size() * 2);
  Event& c = t_completions[static_cast<std::size_t>(pending_++)];
  c = Event{};
  c.call = static_cast<std::int32_t>(Call::completion);
  c.rank = event_.rank;
  c.iteration = event_.iteration;
  c.call_site = event_.call_site;
  c.count = index;
  return c;
}

void Scope::completion(int index, const MPI_Status* status, bool freed) {
  if (index < 0 || index >= snapshot_count_) return;                           // not one of the requests the call was given
  if (t_handles[static_cast<std::size_t>(index)] == MPI_REQUEST_NULL) return;  // nothing was pending
  if (errors_in_status_ && status != nullptr && status->MPI_ERROR == MPI_ERR_PENDING) return;  // not completed
  const detail::RequestInfo copy = t_infos[static_cast<std::size_t>(index)];
  State& s = *g_state;
  const auto handle = reinterpret_cast<std::uintptr_t>(t_handles[static_cast<std::size_t>(index)]);
  if (copy.persistent && !copy.active) {  // an inactive persistent request completes at once, empty
    if (freed && copy.id >= 0) {
      const Guard guard(s);
      s.requests.erase_if(handle, copy.id);
    }
    return;
  }
  Event& c = new_completion(index);
  if (copy.id >= 0) {
    const Guard guard(s);
    if (copy.persistent && !freed)
      s.requests.set_active(handle, false);
    else
      s.requests.erase_if(handle, copy.id);
  }
  c.request = copy.id;
  c.comm = copy.comm;
  if (copy.cancelling && status != nullptr) {
    int cancelled = 0;
    PMPI_Test_cancelled(status, &cancelled);
    if (cancelled != 0) return;  // MPI leaves the status's source, tag and count undefined: none recorded
  }
  if (copy.receive && status != nullptr) {
    c.bytes = status_bytes(status);
    c.tag = status->MPI_TAG;
    if (status->MPI_SOURCE == MPI_PROC_NULL)
      c.peer = -3;
    else if (copy.comm >= 0 && status->MPI_SOURCE >= 0)
      c.peer = detail::world_rank(copy.comm, status->MPI_SOURCE);
    c.same_node = detail::same_node(c.peer);
  } else if (copy.file_access && status != nullptr) {
    c.bytes = status_bytes(status);
  }
}

void Scope::completed_one(int index, const MPI_Status* status) {
  if (recording_) completion(index, status);
}

void Scope::completed_all(int count, const MPI_Status* statuses) {
  if (!recording_) return;
  for (int k = 0; k < count; ++k)
    if (t_handles[static_cast<std::size_t>(k)] != MPI_REQUEST_NULL) completion(k, statuses + k);
}

void Scope::completed_some(int outcount, const int* indices, const MPI_Status* statuses) {
  if (!recording_ || outcount == MPI_UNDEFINED) return;
  for (int k = 0; k < outcount; ++k) completion(indices[k], statuses + k);
}

void Scope::completed_failed(const MPI_Request* requests, int count, const MPI_Status* status) {
  if (!recording_ || requests == nullptr) return;
  for (int k = 0; k < count && k < snapshot_count_; ++k)
    if (t_handles[static_cast<std::size_t>(k)] != MPI_REQUEST_NULL && requests[k] == MPI_REQUEST_NULL)
      completion(k, status, true);  // Waitany and Testany complete one at most
}

void Scope::received(int source, const MPI_Status* status, MPI_Comm c) {
  if (!recording_ || status == nullptr) return;
  Event& r = new_completion(0);
  r.comm = event_.comm;
  if (source == MPI_PROC_NULL) {  // an empty receive, recorded as the completion of MPI_Irecv's would be
    r.peer = -3;
    return;
  }
  r.bytes = status_bytes(status);
  r.tag = status->MPI_TAG;
  const int from = source == MPI_ANY_SOURCE ? status->MPI_SOURCE : source;
  r.peer = from >= 0 ? detail::world_rank(event_.comm >= 0 ? event_.comm : detail::comm_id(c), from) : -1;
  r.same_node = detail::same_node(r.peer);
}

void Scope::started(const MPI_Request* r, int count) {
  if (!recording_ || r == nullptr) return;
  State& s = *g_state;
  const Guard guard(s);
  for (int k = 0; k < count; ++k) {
    if (r[k] == MPI_REQUEST_NULL) continue;
    detail::RequestInfo* info = s.requests.find(reinterpret_cast<std::uintptr_t>(r[k]));
    if (info == nullptr) continue;
    info->active = true;
    if (count == 1) event_.request = info->id;  // MPI_Start: the persistent request it started
  }
}

void Scope::cancelling(const MPI_Request* r) {
  if (!recording_ || r == nullptr || *r == MPI_REQUEST_NULL) return;
  State& s = *g_state;
  const Guard guard(s);
  if (detail::RequestInfo* info = s.requests.find(reinterpret_cast<std::uintptr_t>(*r))) {
    info->cancelling = true;
    event_.request = info->id;
  }
}

void Scope::forget_request(const MPI_Request* r) {
  if (!recording_ || r == nullptr) return;
  const Guard guard(*g_state);
  const auto handle = reinterpret_cast<std::uintptr_t>(*r);
  if (const detail::RequestInfo* info = g_state->requests.find(handle)) event_.request = info->id;  // the request freed
  g_state->requests.erase(handle);
}

void Scope::request(const MPI_Request* r, unsigned kind) {
  if (r == nullptr || *r == MPI_REQUEST_NULL) return;
  State& s = *g_state;
  detail::RequestInfo info;
  info.handle = reinterpret_cast<std::uintptr_t>(*r);
  info.receive = (kind & kReceive) != 0;
  info.persistent = (kind & kPersistent) != 0;
  info.file_access = (kind & kFileAccess) != 0;
  bool shared = false;
  {
    const Guard guard(s);
    info.id = s.next_request;
    info.comm = event_.comm;
    // A full table leaves the request untracked: no completion will carry an id, so the call gets none.
    if (!s.requests.insert(info, &shared)) return;
    event_.request = s.next_request++;
  }
  // A handle the table already held: MPI's shared object for requests complete at once (kept
  // apart, request_table.hpp), or a live request whose older entries are stale (their completions
  // went unseen, under MPI_ERRORS_RETURN say): those go. MPI is asked outside the lock.
  if (!shared) return;
  int complete = 1;
  PMPI_Request_get_status(*r, &complete, MPI_STATUS_IGNORE);
  if (complete != 0) return;
  const Guard guard(s);
  while (s.requests.find(info.handle, 1) != nullptr) s.requests.erase(info.handle);  // all but the newest, this one
}

}  // namespace ripple::trace
