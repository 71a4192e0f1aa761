// The recorder's state and its flushing: the globals the inline path reads, flush_all (the ring's
// events and the side spools' records to disk), the flusher thread that calls it in the background,
// counter samples at iteration markers, the clock offsets to rank 0, and MPI_Pcontrol. start() is in
// recorder_start.cpp, commit() and the Scope functions in scope.cpp and scope_arguments.cpp.
#include "recorder.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "recorder_state.hpp"
#include "ripple/common/pcontrol.hpp"
#include "side_spools.hpp"

namespace ripple::trace {

using detail::State;

namespace detail {
State* g_state = nullptr;
Recording g_recording;
RIPPLE_TLS constinit thread_local int t_depth = 0;
// No generation matches ~0: the first lookup always asks MPI.
RIPPLE_TLS constinit thread_local DatatypeCache t_datatype{{}, ~std::uint64_t{0}, 0, 0};

void lookup_datatype(MPI_Datatype type) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  t_datatype = {type, g_recording.datatype_generation.load(std::memory_order_relaxed), size, extent};
}

// Writes the ring's new events to the spool and releases their slots. Producers keep recording
// meanwhile: they only write slots beyond head, and reuse a slot only after tail has passed it
// (release/acquire on head and tail). One writer at a time (write_mutex). Failed writes count as lost.
void flush_all() {
  State& s = *g_state;
  std::lock_guard<std::mutex> writer(s.write_mutex);
  const std::uint64_t head = s.head.load(std::memory_order_acquire);
  spool_clock(s);  // before the events, whose ticks it converts
  s.tail.store(s.spool.append(s.ring.data(), s.ring.size(), head), std::memory_order_release);
  spool_side(s);
  s.last_flush.store(now(), std::memory_order_relaxed);
}
}  // namespace detail

void forget_datatype() { detail::g_recording.datatype_generation.fetch_add(1, std::memory_order_relaxed); }

namespace {

using detail::g_state;
using detail::now;

// Spools what is buffered at least every flush_seconds, even while the application computes, so
// that a killed run loses at most that much, and whenever a quarter of the ring is taken, so that
// producers seldom find it full and write it themselves, or 16 Ki memory samples wait (1 MiB).
// It wakes every 0.1 s, or sooner where events come fast enough to fill a quarter of the ring in
// less (a rank that calls MPI back to back fills 64 MiB in about 35 ms).
void flusher_loop(State* s) {
  // The application's signals go to its own threads: a handler it installs must not run here, in
  // the middle of a flush (exit() from it would join this thread from itself). The thread starts
  // with them blocked (start); blocked here again all the same.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  const double longest = std::min(0.1, s->flush_seconds / 4);
  double pause = longest, last_anchor = detail::monotonic_seconds();
  std::uint64_t last_head = s->head.load(std::memory_order_relaxed);
  while (!s->stop_flusher.load(std::memory_order_relaxed)) {
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    s->sampler.drain();  // keeps the kernel's ring buffer from overflowing
    if (const double t = detail::monotonic_seconds(); t - last_anchor >= 0.1) {  // the clock map: a piece per 0.1 s
      detail::anchor_tracer_clock();
      last_anchor = t;
    }
    const std::uint64_t head = s->head.load(std::memory_order_relaxed);
    const double rate = static_cast<double>(head - last_head) / pause;  // events per second, about
    last_head = head;
    pause = std::clamp(static_cast<double>(s->ring.size()) / 4 / std::max(rate, 1.0), std::min(0.001, longest), longest);
    const std::uint64_t taken = head - s->tail.load(std::memory_order_relaxed);
    if (taken >= s->ring.size() / 4 || s->sampler.pending() >= (1u << 14) ||
        now() - s->last_flush.load(std::memory_order_relaxed) >= s->flush_seconds)
      detail::flush_all();
  }
}

}  // namespace

namespace detail {
// The flusher thread, off the rank's CPUs where it can; without one (out of threads) events reach
// the spool only when the ring is full and at MPI_Finalize. Called by start() under write_mutex.
void start_flusher(State& s) {
  try {
    // Made with every signal blocked, so that it starts with them blocked: none reaches it even
    // before its first instruction. The calling thread's mask is restored at once.
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &before);
    try {
      s.flusher = std::thread(flusher_loop, &s);
    } catch (...) {
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
      throw;
    }
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    // Off the rank's CPUs where some CPU of the node is bound to no rank: its encoding and writing
    // then take no rank's time. Said with the placement (sources.hwloc).
    s.placement.status += "; " + place_tracer_thread(s.flusher.native_handle(), s.placement);
  } catch (const std::system_error& e) {  // out of threads (a pids cgroup, ulimit -u): record, go on
    s.placement.status += std::string("; no tracer thread (") + e.what() +
                          "): events reach the spool when the ring is full and at MPI_Finalize, not at the flush interval";
    if (s.rank == 0)
      std::fprintf(stderr, "ripple trace: no background thread (%s): spooling only when the ring is full\n", e.what());
  }
}
}  // namespace detail

void abort_flush() {
  if (g_state == nullptr || !detail::recording()) return;
  detail::flush_all();
}

namespace detail {
void sample_counters(State& s) {
  // A row of -1 at every marker would say nothing and fill the counter spool (64 bytes per marker of
  // the default list): a rank none of whose counters works takes no samples.
  if (!s.counters.any_active()) return;
  const std::size_t n = s.counters.size();
  std::int64_t values[64];
  std::vector<std::int64_t> wide;
  std::int64_t* v = values;
  if (n > 64) {
    wide.resize(n);
    v = wide.data();
  }
  s.counters.read(v);
  const detail::CounterRecordHead head{now(), g_recording.iteration.load(std::memory_order_relaxed), 0};
  bool full = false;
  {
    const std::lock_guard<std::mutex> pending(s.counter_pending_mutex);
    ++s.counter_samples;
    if (s.counter_spool_path.empty()) return;  // no spool: lost, and counted so at MPI_Finalize
    // Queued for the next flush: no I/O in the MPI call. The queue's capacity survives flush's swap:
    // after the first flushes, no allocation.
    auto& q = s.counter_pending;
    const std::size_t at = q.size();
    q.resize(at + sizeof head + 8 * n);
    std::memcpy(q.data() + at, &head, sizeof head);
    std::memcpy(q.data() + at + sizeof head, v, 8 * n);
    full = q.size() >= State::kCounterQueueBytes;
  }
  if (full) detail::flush_all();  // markers faster than the flusher: spooled at once, like a full ring, so memory stays bounded
}

void stop_flusher(State& s) {
  s.stop_flusher = true;
  if (s.flusher.joinable()) s.flusher.join();
}
}  // namespace detail

void set_iteration(int iteration) { detail::g_recording.iteration.store(iteration, std::memory_order_relaxed); }

namespace detail {
OffsetSample measure_offset(int rank, int ranks) {
  constexpr int kRounds = 10;
  constexpr int kTag = 31337;
  std::vector<PingPong> samples;
  for (int r = 1; r < ranks; ++r) {
    for (int k = 0; k < kRounds; ++k) {
      if (rank == 0) {
        double ping = 0;
        PMPI_Recv(&ping, 1, MPI_DOUBLE, r, kTag, g_state->sync_comm, MPI_STATUS_IGNORE);
        const double stamp = clock_seconds();
        PMPI_Send(&stamp, 1, MPI_DOUBLE, r, kTag, g_state->sync_comm);
      } else if (rank == r) {
        PingPong p{clock_seconds(), 0, 0};
        PMPI_Send(&p.sent, 1, MPI_DOUBLE, 0, kTag, g_state->sync_comm);
        PMPI_Recv(&p.remote, 1, MPI_DOUBLE, 0, kTag, g_state->sync_comm, MPI_STATUS_IGNORE);
        p.received = clock_seconds();
        samples.push_back(p);
      }
    }
  }
  if (rank == 0) {
    OffsetSample self;
    self.local = clock_seconds();
    return self;  // rank 0 is the reference
  }
  return estimate_offset(samples);
}

}  // namespace detail

}  // namespace ripple::trace

// MPI_Pcontrol takes variable arguments, so it is written by hand. Ripple's levels (pcontrol.hpp,
// docs/trace-format.md): kPcontrolIteration carries the iteration that starts now, kPcontrolDelay
// the iteration and seconds of injected work, kPcontrolLoopEnd nothing. Counters are sampled at the
// start of every iteration and at the loop's end, so that each iteration has its own difference.
extern "C" RIPPLE_TRACE_EXPORT int MPI_Pcontrol(const int level, ...) {
  int iteration = 0;
  double seconds = 0;
  if (level == ripple::kPcontrolIteration || level == ripple::kPcontrolDelay) {
    va_list args;
    va_start(args, level);
    iteration = va_arg(args, int);
    if (level == ripple::kPcontrolDelay) seconds = va_arg(args, double);
    va_end(args);
  }
  if (level == ripple::kPcontrolIteration) ripple::trace::set_iteration(iteration);
  if ((level == ripple::kPcontrolIteration || level == ripple::kPcontrolLoopEnd) && ripple::trace::detail::g_state != nullptr &&
      ripple::trace::detail::recording()) {
    ripple::trace::detail::State& s = *ripple::trace::detail::g_state;
    ripple::trace::detail::sample_counters(s);
    if (level == ripple::kPcontrolIteration && s.sampler.active()) {
      s.sampler.mark(iteration);
      s.sampler.drain();
    }
  }
  ripple::trace::Scope scope(ripple::trace::Call::MPI_Pcontrol, __builtin_return_address(0));
  if (scope.recording()) {
    scope.tag(level);
    if (level == ripple::kPcontrolDelay) scope.injected_delay(iteration, seconds);
  }
  return PMPI_Pcontrol(level);
}
