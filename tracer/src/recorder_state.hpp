#pragma once
// The recorder's process-wide state, shared by the recorder's files (recorder.cpp, recorder_start.cpp,
// scope.cpp, scope_arguments.cpp, side_spools.cpp, comm_registry.cpp) and the writer.
#include <mpi.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "counters.hpp"
#include "event_ring.hpp"
#include "event_spool.hpp"
#include "placement.hpp"
#include "recorder.hpp"
#include "request_table.hpp"
#include "ripple/trace/clock_model.hpp"
#include "ripple/trace/event.hpp"
#include "sampler.hpp"
#include "spool_format.hpp"
#include "tracer_clock.hpp"

namespace ripple::trace::detail {

// A communicator's translation to world ranks: kept while it is live, among the recently freed, or
// the communicator of a live window.
struct CommTranslation {
  std::vector<int> world;  // world rank of each (remote, for intercommunicators) rank; empty: identity
  int windows = 0;         // live windows made on it
  bool kept = true;        // live or recently freed; once neither, it goes with its last window
};

struct State {
  bool threaded = false;
  std::string eager_limits;  // eager_limits_json(), read at MPI_Init
  int rank = 0, ranks = 1;
  std::string output, spool_dir, spool_path;
  int spool_lock_fd = -1;        // rank 0: its hold on spool_dir (spool_dir.hpp), until the run is done with it
  bool output_replaced = false;  // MPI_Finalize's writer has replaced what was at `output`: a failed file goes
  EventSpool spool;              // the ring's events on disk; written by flush() under write_mutex
  // Side spools beside the event spool, written by flush() like it: counter samples (queued in
  // counter_pending by sample_counters), the sampler's records (MemorySampler::spool_new) and the
  // clock map's pieces. Memory holds only what the next flush spools; MPI_Finalize reads them back.
  // The placement spool is written once, at MPI_Init, for `recover` only.
  std::string counter_spool_path, sample_spool_path, clock_spool_path, placement_spool_path;
  std::int64_t counter_data_offset = 0, sample_data_offset = 0;  // where their records start
  int counter_spool_fd = -1;
  int clock_spool_fd = -1;
  std::size_t clock_spooled = 0;  // pieces of the clock map in the clock spool (released from memory)
  std::mutex counter_pending_mutex;
  std::vector<char> counter_pending, counter_writing;         // records not yet spooled; flush's swap buffer
  static constexpr std::size_t kCounterQueueBytes = 1 << 18;  // counter_pending is spooled at once beyond this
  std::int64_t counter_samples = 0;                           // taken; those not in the counter spool at the end are lost
  // The record ring (a power of two of events): producers append at head, the spool writer takes
  // [tail, head). Free-running counters; slot = counter & (ring.size() - 1).
  EventRing ring;
  std::atomic<std::uint64_t> head{0}, tail{0};
  std::mutex write_mutex;  // one spool writer at a time
  std::atomic<double> last_flush{0};
  double t0 = 0, flush_seconds = 1;    // t0: this rank's clock at the start, seconds
  std::uint64_t tick0 = 0;             // t0's raw tick: event times count ticks from it
  double t0_root = 0;                  // rank 0's t0 on rank 0's clock
  std::string clock_source;            // which clock stamps events, and why (tracer_clock.hpp)
  OffsetSample sync_start, sync_end;   // this rank's clock against rank 0's
  MPI_Comm sync_comm = MPI_COMM_NULL;  // private to the clock ping-pongs
  // The communicators the tracer has seen, guarded by comm_lock. Ids count up from 1 (0 is
  // MPI_COMM_WORLD, not stored) and are never reused. A freed communicator's translation stays
  // while it is among the last kFreedCommsKept freed (holding at most kFreedRanksKept world ranks in
  // all), for requests that outlive it, and while a window made on it lives: memory is bounded by the
  // live communicators and windows, however many a run creates and frees.
  std::unordered_map<MPI_Comm, int> live_comms;         // handle -> id
  std::unordered_map<int, CommTranslation> comm_world;  // id -> translation
  std::deque<int> freed_comms;                          // recently freed ids, oldest first
  std::size_t freed_ranks = 0;                          // world ranks their translations hold
  static constexpr std::size_t kFreedCommsKept = 1024, kFreedRanksKept = 1 << 20;
  std::int64_t peers_untranslated = 0;  // a freed communicator's translation was gone
  std::atomic_flag comm_lock = ATOMIC_FLAG_INIT;
  std::atomic<std::uint64_t> comm_generation{0};  // bumped whenever comms or windows change: per-thread caches check it
  int next_comm_id = 1;
  std::vector<std::pair<MPI_Win, int>> windows;  // window, communicator id; guarded by comm_lock
  std::vector<std::pair<MPI_File, int>> files;   // open MPI-IO file, communicator id; guarded by comm_lock
  std::vector<std::uint8_t> on_node;             // per world rank
  std::int64_t next_request = 0;
  RequestTable requests;
  // Matched-probe messages not yet received, and their communicator ids (lock): a handful at a time.
  std::vector<std::pair<std::uintptr_t, int>> messages;
  PlacementInfo placement;                   // probed at MPI_Init
  Counters counters;                         // read at MPI_Init, every iteration marker and MPI_Finalize
  MemorySampler sampler;                     // drained by the flusher, at iteration markers and at MPI_Finalize
  std::atomic_flag lock = ATOMIC_FLAG_INIT;  // with MPI_THREAD_MULTIPLE: one producer at a time, request table
  std::thread flusher;                       // spools the buffer at least every flush_seconds
  std::atomic<bool> stop_flusher{false};
};

extern State* g_state;

// Only with MPI_THREAD_MULTIPLE can two application threads record at once; otherwise the recorder's
// shared state (ring head, request table, counter samples) has one user at a time and needs no lock.
class Guard {
public:
  explicit Guard(State& s) : s_(s), on_(s.threaded) {
    if (on_)
      while (s_.lock.test_and_set(std::memory_order_acquire)) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
      }
  }
  ~Guard() {
    if (on_) s_.lock.clear(std::memory_order_release);
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

private:
  State& s_;
  bool on_;
};

// Bytes a status describes (-1 if MPI cannot tell); MPI_Count holds messages beyond 2 GiB.
inline std::int64_t status_bytes(const MPI_Status* status) {
  MPI_Count bytes = 0;
  if (PMPI_Get_elements_x(status, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes == MPI_UNDEFINED) return -1;
  return static_cast<std::int64_t>(bytes);
}

// Ping-pongs with rank 0 on MPI_COMM_WORLD (PMPI, collective): this rank's offset to rank 0.
OffsetSample measure_offset(int rank, int ranks);
// The id of comm, registering it if the tracer has not seen it (made by an unwrapped call).
int comm_id(MPI_Comm comm);
int comm_id_locked(MPI_Comm comm);  // comm_id without the per-thread cache
// World rank of `rank` in communicator `id` (bounds-checked): -1 if out of range.
int world_rank(int id, int rank);
// The id of the communicator a window was made on, or a file opened on; -1 if the tracer did not
// see it made.
int window_comm(MPI_Win win);
int file_comm(MPI_File file);
// The flusher thread (recorder.cpp), started by start() under write_mutex, stopped by stop() and atexit.
void start_flusher(State& s);
void stop_flusher(State& s);
void flush_all();  // spools everything buffered: the ring's events, then the side spools' records
void sample_counters(State& s);

}  // namespace ripple::trace::detail
