#pragma once
// The recorder behind the PMPI wrappers. Hot path (Scope, inline here so that each generated
// wrapper compiles to straight-line code): no allocation, no locks unless MPI runs with
// MPI_THREAD_MULTIPLE, no stdio, no call into MPI for the common cases. Events go into a
// preallocated ring, which the event spool appends to a per-rank file when a quarter of it is taken,
// at the flush interval, or when it is full, so a crashed run leaves everything up to the last
// flush on disk. MPI_Finalize merges all ranks' events into one HDF5 file, written collectively
// (docs/trace-format.md).
#include <mpi.h>

#include <atomic>
#include <bit>
#include <cstdint>

#include "ripple/trace/event.hpp"
#include "tracer_clock.hpp"

// The library exports only the MPI functions it wraps: everything else is hidden, so calls within
// it are direct rather than through the PLT.
#define RIPPLE_TRACE_EXPORT __attribute__((visibility("default")))
// Thread-locals of a preloaded library: the initial-exec model avoids a __tls_get_addr call per
// access (the library is loaded at start-up, where static TLS space is reserved).
#define RIPPLE_TLS __attribute__((tls_model("initial-exec")))
// The hot path must stay inline in every wrapper: with 170 wrappers in one file the compiler's unit
// growth limit otherwise makes Scope's constructor a call (seen: +5 to +8 ns per call, paired).
#define RIPPLE_HOT [[gnu::always_inline]] inline

namespace ripple::trace {

// After PMPI_Init*: sets up the recorder (environment: RIPPLE_TRACE_OUTPUT, RIPPLE_TRACE_BUFFER_MIB,
// RIPPLE_TRACE_FLUSH_SECONDS) and records the init call, made from `call_site` in the application.
void start(Call init_call, const void* call_site);
// Before PMPI_Finalize (called from `call_site`): records it, flushes, writes the HDF5 file
// collectively, removes the spool.
void stop(const void* call_site);
// In MPI_Abort: flush what is buffered so that `ripple trace recover` finds it.
void abort_flush();
// MPI_Pcontrol(kPcontrolIteration, i) sets the iteration recorded with the following events.
void set_iteration(int iteration);

// Communicators: new ones get an id and their world ranks; freed ones are forgotten.
void register_comm(MPI_Comm comm);
void forget_comm(MPI_Comm comm);
// Windows: the communicator that translates one-sided targets to world ranks.
void register_window(MPI_Win win, MPI_Comm comm);
void forget_window(MPI_Win win);
// MPI-IO files: the communicator a file was opened on becomes the communicator of its calls.
void register_file(MPI_File file, MPI_Comm comm);
void forget_file(MPI_File file);
// Before and after MPI_Type_free: sizes cached per thread are dropped (the handle may come back as a
// new type; after it too, since another thread may have cached the size while the type was being freed).
void forget_datatype();

namespace detail {
// What the inline path reads. start() fills it (and chooses the clock: g_use_ticks) before it sets
// `on` with release; Scope reads `on` with acquire (free on x86), so any thread that sees it set
// sees all of that. stop() clears `on` first.
struct Recording {
  std::atomic<bool> on{false};
  std::atomic<int> iteration{-1};  // last MPI_Pcontrol iteration marker
  int rank = 0, ranks = 1;
  const std::uint8_t* on_node = nullptr;              // per world rank: 1 if it runs on this node
  double t0 = 0;                                      // this rank's tracer clock at the start, seconds
  std::uint64_t tick0 = 0;                            // its raw tick: event times count from it
  std::atomic<std::uint64_t> datatype_generation{0};  // bumped by MPI_Type_free
  // The event ring (State's), for the commit inline in every wrapper: producers append at head, the
  // spool writer takes [tail, head); free-running counters, slot = counter & mask.
  Event* ring = nullptr;
  std::uint64_t ring_mask = 0;
  std::atomic<std::uint64_t>* head = nullptr;
  const std::atomic<std::uint64_t>* tail = nullptr;
  bool threaded = false;  // MPI_THREAD_MULTIPLE: several producers, commit() takes the lock
};
extern Recording g_recording;
inline bool recording() { return g_recording.on.load(std::memory_order_relaxed); }  // between MPI_Init and MPI_Finalize
// constinit: no dynamic initialisation, so no TLS wrapper call on each access.
extern RIPPLE_TLS constinit thread_local int t_depth;  // > 0 inside a recorded call: MPI's own calls are not recorded

// 1 if world rank `world` runs on this rank's node.
inline std::int32_t same_node(int world) {
  return world >= 0 && world < g_recording.ranks && g_recording.on_node[world] != 0 ? 1 : 0;
}
inline double now() { return clock_seconds() - g_recording.t0; }
// An event's time: raw ticks since tick0, exact in a double for 2^53 ticks (40 days of TSC). The
// writer and `recover` turn them into seconds with the clock's map (TickMap).
RIPPLE_HOT double stamp() { return static_cast<double>(static_cast<std::int64_t>(raw_tick() - g_recording.tick0)); }

// A datatype's size and extent, cached for the thread's last datatype (two MPI calls otherwise).
struct DatatypeCache {
  MPI_Datatype type;
  std::uint64_t generation;
  int size;
  MPI_Aint extent;
};
extern RIPPLE_TLS constinit thread_local DatatypeCache t_datatype;
void lookup_datatype(MPI_Datatype type);  // fills t_datatype
// The size and extent of `type`, from this thread's cache (looked up when it holds another type, or
// a type may have been freed since).
RIPPLE_HOT const DatatypeCache& datatype(MPI_Datatype type) {
  if (t_datatype.type != type || t_datatype.generation != g_recording.datatype_generation.load(std::memory_order_relaxed))
    lookup_datatype(type);
  return t_datatype;
}

// The event into the ring's next slot, unless the ring is full. One producer at a time.
RIPPLE_HOT bool push(const Event& e) {
  Recording& r = g_recording;
  const std::uint64_t head = r.head->load(std::memory_order_relaxed);
  if (head - r.tail->load(std::memory_order_acquire) > r.ring_mask) return false;
  r.ring[head & r.ring_mask] = e;
  r.head->store(head + 1, std::memory_order_release);
  return true;
}
void commit(const Event& e);  // into the ring: push, or under the lock (several producers, a full ring)
int comm_id(MPI_Comm comm);   // registering comm if the tracer has not seen it
}  // namespace detail

// Records one call: enter time at construction, exit time and commit at destruction. Nested MPI
// calls made by MPI itself (or by the recorder) are not recorded.
class Scope {
public:
  // `call_site` is the wrapper's return address: where the application called MPI.
  RIPPLE_HOT Scope(Call call, const void* call_site) {
    if (detail::t_depth++ != 0 || !detail::g_recording.on.load(std::memory_order_acquire)) return;
    recording_ = true;
    event_.call = static_cast<std::int32_t>(call);
    event_.rank = detail::g_recording.rank;
    event_.iteration = detail::g_recording.iteration.load(std::memory_order_relaxed);
    event_.call_site = reinterpret_cast<std::uint64_t>(call_site);
    event_.t_enter = detail::stamp();
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  RIPPLE_HOT ~Scope() {
    --detail::t_depth;
    if (!recording_ || !detail::recording()) return;
    commit_call();
    if (pending_ != 0) commit_completions();
  }
  [[nodiscard]] bool recording() const { return recording_; }
  // Records the call now (for calls that do not return, MPI_Abort); nothing more is recorded.
  void commit_now();
  RIPPLE_HOT void buffer(const void* buf, int count, MPI_Datatype type) {
    if (buf == MPI_IN_PLACE) return;  // its count and type may be anything
    event_.count = count;
    if (type == MPI_DATATYPE_NULL) return;
    const detail::DatatypeCache& t = detail::datatype(type);
    event_.buffer = reinterpret_cast<std::uint64_t>(buf);
    event_.bytes = static_cast<std::int64_t>(count) * t.size;
    event_.extent = static_cast<std::int64_t>(count) * t.extent;
  }
  // A v-collective's buffer: counts[i] (displacements displs[i], if given) elements of `type` for
  // each member of `over`: comm's group (for an intercommunicator its remote group, the peers of an
  // all-to-all), its local group only (a reduce-scatter's result), or the outgoing neighbours of its
  // topology. Records the sum of the counts.
  enum class Over { peers, local_group, neighbors };
  void buffer_v(const void* buf, const int counts[], const int displs[], MPI_Datatype type, MPI_Comm comm, Over over);
  // An all-to-all's buffer: `count` elements of `type` for each member of `over`, contiguous. Records
  // the whole (count x members), as the v-form records the sum of its counts.
  void buffer_each(const void* buf, int count, MPI_Datatype type, MPI_Comm comm, Over over);
  // An in-place v-collective (MPI_Gatherv at the root, MPI_Allgatherv, MPI_Scatterv at the root):
  // this rank's own contribution, counts[its rank in comm] elements of `type` in `buf`.
  void buffer_own(const void* buf, const int counts[], MPI_Datatype type, MPI_Comm comm);
  void count(int n) { event_.count = n; }
  // An injected-delay marker (MPI_Pcontrol(kPcontrolDelay, iteration, seconds)): the iteration in
  // `count`, the seconds' IEEE-754 bits in `buffer` (exact; docs/trace-format.md).
  void injected_delay(int iteration, double seconds) {
    event_.count = iteration;
    event_.buffer = std::bit_cast<std::uint64_t>(seconds);
  }
  RIPPLE_HOT void comm(MPI_Comm c) { event_.comm = c == MPI_COMM_WORLD ? 0 : c == MPI_COMM_NULL ? -1 : detail::comm_id(c); }
  RIPPLE_HOT void peer(int rank, MPI_Comm c) {
    if (event_.comm == 0 && rank >= 0 && rank < detail::g_recording.ranks) {  // MPI_COMM_WORLD: no translation
      event_.peer = rank;
      event_.same_node = detail::g_recording.on_node[rank];
      return;
    }
    translate_peer(rank, c);
  }
  void tag(int t) { event_.tag = t; }
  // A request the call made. `kind` (the generator gives it from the call): a receive, whose
  // completion records the sender, tag and bytes from its status; persistent (MPI_*_init: completed
  // by a wait only when started); an MPI-IO access, whose completion records the bytes moved.
  static constexpr unsigned kReceive = 1, kPersistent = 2, kFileAccess = 4;
  void request(const MPI_Request* r, unsigned kind);
  // Completion calls (generated wrappers call these around the PMPI call).
  MPI_Status* status(MPI_Status* s);  // a status to read, even if the caller ignores it
  MPI_Status* statuses(MPI_Status* s, int count);
  void snapshot(const MPI_Request* requests, int count);  // handles before MPI frees them
  void completed_one(int index, const MPI_Status* status);
  void completed_all(int count, const MPI_Status* statuses);
  void completed_some(int outcount, const int* indices, const MPI_Status* statuses);
  // The call returned MPI_ERR_IN_STATUS: each status's MPI_ERROR says whether its request completed.
  void errors_in_status() { errors_in_status_ = true; }
  // The call returned another error (MPI_ERRORS_RETURN): index, outcount and statuses may be
  // undefined, but MPI frees a request that failed, so each handle it set to MPI_REQUEST_NULL
  // completed. `status`: the single request's (MPI_Wait, MPI_Test, MPI_Waitany, MPI_Testany), or null.
  void completed_failed(const MPI_Request* requests, int count, const MPI_Status* status);
  // A probe or receive: the actual sender of an MPI_ANY_SOURCE one, and the bytes the status gives
  // (a probe has no buffer: the pending message's bytes).
  void resolve_source(const MPI_Status* status, MPI_Comm c);
  // Matched probes: the message a probe returned keeps its communicator (probed) for the receive that
  // takes it (taking, before the call; received_message after MPI_Mrecv: sender and bytes).
  void probed(const MPI_Message* message);
  void taking(const MPI_Message* message);
  void received_message(const MPI_Status* status);
  // The receive half of a combined call (MPI_Sendrecv): a completion record (request -1) with the
  // actual source, tag and bytes from the status.
  void received(int source, const MPI_Status* status, MPI_Comm c);
  void file(MPI_File f);  // the communicator the file was opened on becomes the event's
  // An MPI-IO access: the bytes its status says it moved (a read that meets the end of the file
  // moves fewer than it asked for).
  void transferred(const MPI_Status* status);
  void window(MPI_Win w);        // the window's communicator becomes the event's
  void window_peer(int target);  // a target rank of that communicator
  void started(const MPI_Request* r, int count);
  void forget_request(const MPI_Request* r);
  void cancelling(const MPI_Request* r);  // MPI_Cancel: its completion may carry an undefined status

private:
  // The exit time, and the call's record into the ring: inline for a single producer whose ring has
  // room, through commit() otherwise (the lock of several producers, or spooling a full ring first).
  RIPPLE_HOT void commit_call() {
    if (detail::g_recording.threaded) [[unlikely]] {
      commit_together();
      return;
    }
    event_.t_exit = detail::stamp();
    if (!detail::push(event_)) [[unlikely]]
      detail::commit(event_);
  }
  void commit_completions();  // after their call, so that a reader meets the call first
  // MPI_THREAD_MULTIPLE: the call and its completions in one go under the producers' lock, stamped
  // there, so that no other thread's event comes between them and a rank's events stay in exit order.
  void commit_together();
  void translate_peer(int rank, MPI_Comm c);
  void completion(int index, const MPI_Status* status, bool freed = false);  // freed: MPI freed it, persistent or not
  Event& new_completion(int index);
  Event event_;
  bool recording_ = false;
  int pending_ = 0;         // completion records waiting in the thread's scratch
  int snapshot_count_ = 0;  // requests the completion call was given
  bool errors_in_status_ = false;
};

}  // namespace ripple::trace
