#include "recorder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "eager_limits.hpp"
#include "recorder_state.hpp"
#include "spool_dir.hpp"

namespace ripple::trace {
using detail::SpoolHeader;
using detail::State;
}  // namespace ripple::trace
#include "ripple/common/pcontrol.hpp"

namespace ripple::trace {

namespace detail {
void close_stderr_copy();  // untraced_exit.cpp
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
}  // namespace detail

void forget_datatype() { detail::g_recording.datatype_generation.fetch_add(1, std::memory_order_relaxed); }

namespace {

using detail::g_state;
using detail::now;

void lock(State& s) {
  while (s.lock.test_and_set(std::memory_order_acquire)) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
}
void unlock(State& s) { s.lock.clear(std::memory_order_release); }

// Only with MPI_THREAD_MULTIPLE can two application threads record at once; otherwise the recorder's
// shared state (ring head, request table, counter samples) has one user at a time and needs no lock.
class Guard {
public:
  explicit Guard(State& s) : s_(s), on_(s.threaded) {
    if (on_) lock(s_);
  }
  ~Guard() {
    if (on_) unlock(s_);
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

private:
  State& s_;
  bool on_;
};

// Appends `bytes` to a side spool; one that fails is closed for good (-1), so that a recovered
// trace ends that table where the file ends, with whole records only as far as they got.
bool append_side(int& fd, const void* data, std::size_t bytes) {
  if (fd < 0) return false;
  if (detail::write_all(fd, data, bytes)) return true;
  ::close(fd);
  fd = -1;
  return false;
}

// The counter and sample records queued since the last flush, to their spools (under write_mutex).
void spool_side(State& s) {
  {
    const std::lock_guard<std::mutex> pending(s.counter_pending_mutex);
    s.counter_writing.swap(s.counter_pending);
  }
  append_side(s.counter_spool_fd, s.counter_writing.data(), s.counter_writing.size());
  s.counter_writing.clear();
  s.sampler.spool_new();
}

// The clock map's new pieces (one per re-anchoring, 0.1 s), so that MPI_Finalize and `recover` can
// convert the ticks of the events spooled after them (under write_mutex); spooled, they leave memory.
// Without a clock spool they stay in memory for MPI_Finalize, and `recover` uses the start's rate.
void spool_clock(State& s) {
  if (s.clock_spool_fd < 0) return;
  const std::vector<TickSegment> fresh = detail::tick_segments(s.clock_spooled);
  if (!append_side(s.clock_spool_fd, fresh.data(), fresh.size() * sizeof(TickSegment))) return;
  s.clock_spooled += fresh.size();
  detail::release_tick_segments(s.clock_spooled);
}

// Writes the ring's new events to the spool and releases their slots. Producers keep recording
// meanwhile: they only write slots beyond head, and reuse a slot only after tail has passed it
// (release/acquire on head and tail). One writer at a time (write_mutex). Failed writes count as lost.
void flush() {
  State& s = *g_state;
  std::lock_guard<std::mutex> writer(s.write_mutex);
  const std::uint64_t head = s.head.load(std::memory_order_acquire);
  spool_clock(s);  // before the events, whose ticks it converts
  s.tail.store(s.spool.append(s.ring.data(), s.ring.size(), head), std::memory_order_release);
  spool_side(s);
  s.last_flush.store(now(), std::memory_order_relaxed);
}

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
    pause = std::clamp(static_cast<double>(s->ring.size() / 4) / std::max(rate, 1.0), std::min(0.001, longest), longest);
    const std::uint64_t taken = head - s->tail.load(std::memory_order_relaxed);
    if (taken >= s->ring.size() / 4 || s->sampler.pending() >= (1u << 14) ||
        now() - s->last_flush.load(std::memory_order_relaxed) >= s->flush_seconds)
      flush();
  }
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// A numeric setting from the environment (the launcher checks its options; a program linked with the
// library, or run with LD_PRELOAD, sets these itself): the whole text a number in [low, high], or
// `fallback`, with what was wrong added to `ignored` (rank 0 says it in one line).
double env_number(const char* name, double fallback, double low, double high, std::string& ignored) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(v, &end);
  if (end != v && *end == '\0' && errno == 0 && x >= low && x <= high) return x;
  ignored +=
      fmt::format("{}{}='{}' (not a number from {} to {}; {} used)", ignored.empty() ? "" : ", ", name, v, low, high, fallback);
  return fallback;
}

detail::SamplerConfig sampler_config(std::string& ignored) {
  detail::SamplerConfig c;
  c.event = env_or("RIPPLE_TRACE_SAMPLES", "auto");
  c.period = static_cast<std::uint64_t>(env_number("RIPPLE_TRACE_SAMPLE_PERIOD", 4000, 1, 1e15, ignored));
  c.ldlat = static_cast<std::uint64_t>(env_number("RIPPLE_TRACE_LDLAT", 30, 1, 65535, ignored));
  c.max_samples = static_cast<std::uint64_t>(env_number("RIPPLE_TRACE_MAX_SAMPLES", 262144, 0, 1e12, ignored));
  return c;
}

}  // namespace

// A side spool <spool_dir>/rank-NNNNNN.<kind>: its header and text, written now; records follow at
// each flush. -1 (and no path) if it cannot be created: a recovered trace then lacks it, the run goes on.
int open_side_spool(State& s, const char* kind, const void* header, std::size_t header_bytes, const std::string& text,
                    std::string& path) {
  char name[64];
  std::snprintf(name, sizeof name, "/rank-%06d.%s", s.rank, kind);
  const std::string where = s.spool_dir + name;
  const int fd = ::open(where.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    std::string bytes(static_cast<const char*>(header), header_bytes);
    bytes += text;
    if (detail::write_all(fd, bytes.data(), bytes.size())) {
      path = where;  // removed at MPI_Finalize like the event spool
      return fd;
    }
    const int err = errno;
    ::close(fd);
    ::unlink(where.c_str());  // a header cut short would only be a damaged spool to `recover`
    errno = err;
  }
  std::fprintf(stderr, "ripple trace: rank %d cannot write %s: %s (the trace says what is missing)\n", s.rank, where.c_str(),
               std::strerror(errno));
  return -1;
}

void open_counter_spool(State& s) {
  if (s.counters.size() == 0) return;
  const std::string names = s.counters.names_text(), status = s.counters.status_text();
  detail::CounterSpoolHeader h;
  h.values = static_cast<std::int32_t>(s.counters.size());
  h.rank = s.rank;
  h.ranks = s.ranks;
  h.names_bytes = static_cast<std::int32_t>(names.size());
  h.status_bytes = static_cast<std::int32_t>(status.size());
  s.counter_spool_fd = open_side_spool(s, "counters", &h, sizeof h, names + status, s.counter_spool_path);
  s.counter_data_offset = static_cast<std::int64_t>(sizeof h + names.size() + status.size());
  s.counter_pending.reserve(1u << 16);
}

void open_clock_spool(State& s) {
  detail::ClockSpoolHeader h;
  h.rank = s.rank;
  h.ranks = s.ranks;
  s.clock_spool_fd = open_side_spool(s, "clock", &h, sizeof h, std::string(), s.clock_spool_path);
}

// Where this rank runs, for `recover` (MPI_Finalize writes it from memory): written once, whole.
void write_placement_spool(State& s) {
  detail::PlacementSpoolHeader h;
  h.rank = s.rank;
  h.ranks = s.ranks;
  h.xml_bytes = static_cast<std::int64_t>(s.placement.node_xml.size());
  h.status_bytes = static_cast<std::int32_t>(s.placement.status.size());
  const std::string text = std::string(reinterpret_cast<const char*>(&s.placement.me), sizeof s.placement.me) +
                           s.placement.node_xml + s.placement.status;
  const int fd = open_side_spool(s, "placement", &h, sizeof h, text, s.placement_spool_path);
  if (fd >= 0) ::close(fd);
}

void open_sample_spool(State& s) {
  if (!s.sampler.active()) return;
  detail::SampleSpoolHeader h;
  h.rank = s.rank;
  h.ranks = s.ranks;
  h.status_bytes = static_cast<std::int32_t>(s.sampler.status().size());
  const int fd = open_side_spool(s, "samples", &h, sizeof h, s.sampler.status(), s.sample_spool_path);
  s.sample_data_offset = static_cast<std::int64_t>(sizeof h + s.sampler.status().size());
  s.sampler.spool_to(fd);  // without it (-1) the samples are dropped, and counted so per rank
}

void start(Call init_call, const void* call_site) {
  if (g_state != nullptr) return;
  auto* s = new State;
  PMPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &s->ranks);
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  s->threaded = provided == MPI_THREAD_MULTIPLE;
  s->eager_limits = detail::eager_limits_json();
  // Relative to where MPI_Init ran: an application that changes directory before MPI_Finalize (the
  // launcher's path is absolute; a linked program's, or the default, may not be) must find its spool
  // there, and write the file beside it.
  s->output = env_or("RIPPLE_TRACE_OUTPUT", "ripple-trace.h5");
  if (std::error_code ec; s->output.front() != '/')
    if (const std::filesystem::path whole = std::filesystem::absolute(s->output, ec); !ec) s->output = whole.string();
  std::string ignored;  // settings from the environment that were not numbers in range
  const double mib = env_number("RIPPLE_TRACE_BUFFER_MIB", 64, 1.0 / 1024, 1 << 30, ignored);
  // Infinite: never by time (still whenever a quarter of the ring is taken).
  s->flush_seconds = std::min(env_number("RIPPLE_TRACE_FLUSH_SECONDS", 1, 1e-6, HUGE_VAL, ignored), 1e9);
  // The ring: the largest power of two of events within the memory bound (at least 1024).
  const auto fit = static_cast<std::size_t>(mib * 1048576.0 / sizeof(Event));
  std::size_t slots = 1024;
  while (slots * 2 <= fit) slots *= 2;
  bool have_ring = true;  // if not, the run goes on untraced: decided with the spool below, by all ranks
  try {
    s->ring.allocate(slots);
  } catch (const std::bad_alloc&) {
    have_ring = false;
  }

  // Which world ranks share this node.
  MPI_Comm node = MPI_COMM_NULL;
  PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, s->rank, MPI_INFO_NULL, &node);
  MPI_Group world_group, node_group;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  PMPI_Comm_group(node, &node_group);
  std::vector<int> ranks(static_cast<std::size_t>(s->ranks)), in_node(static_cast<std::size_t>(s->ranks));
  for (int r = 0; r < s->ranks; ++r) ranks[static_cast<std::size_t>(r)] = r;
  PMPI_Group_translate_ranks(world_group, s->ranks, ranks.data(), node_group, in_node.data());
  s->on_node.resize(static_cast<std::size_t>(s->ranks));
  for (int r = 0; r < s->ranks; ++r)
    s->on_node[static_cast<std::size_t>(r)] = in_node[static_cast<std::size_t>(r)] != MPI_UNDEFINED;
  PMPI_Group_free(&world_group);
  PMPI_Group_free(&node_group);
  PMPI_Comm_free(&node);

  s->messages.reserve(64);
  g_state = s;
  detail::close_stderr_copy();  // untraced_exit.cpp: MPI_Init ran

  // The spool: one file per rank in <output>.spool/, with a header, then blocks of encoded events.
  // Rank 0 makes the directory, with a file named for this run in it: a rank that does not see that
  // file has its output path on another file system (node-local /tmp, say, where an earlier run's
  // spool directory may be), and the collective write at MPI_Finalize would hang there. No rank
  // records then.
  s->spool_dir = s->output + ".spool";
  char run_mark[96] = {};
  int made = 0;  // rank 0: 0, or the errno of making the directory and its mark
  std::string moved;
  if (s->rank == 0) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    std::snprintf(run_mark, sizeof run_mark, "/.run-%ld-%ld-%ld", static_cast<long>(::getpid()), static_cast<long>(now.tv_sec),
                  static_cast<long>(now.tv_nsec));
    made = detail::make_spool_dir(s->spool_dir, run_mark, moved, s->spool_lock_fd);
  }
  PMPI_Bcast(run_mark, sizeof run_mark, MPI_CHAR, 0, MPI_COMM_WORLD);
  PMPI_Bcast(&made, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!moved.empty())
    std::fprintf(stderr,
                 "ripple trace: an earlier run's spool directory was in the way; it is now '%s' (ripple trace recover %s)\n",
                 moved.c_str(), moved.c_str());
  char name[64];
  std::snprintf(name, sizeof name, "/rank-%06d.bin", s->rank);
  s->spool_path = s->spool_dir + name;
  const bool shared = made == 0 && ::access((s->spool_dir + run_mark).c_str(), F_OK) == 0;
  const bool mine = have_ring && shared && s->spool.open(s->spool_path);
  const int open_errno = errno;
  const std::string why = !have_ring ? std::string("cannot map the event buffer (--buffer-mib)")
                          : made == EBUSY
                              ? "finds the spool directory '" + s->spool_dir +
                                    "' in use by another run that writes the same trace: give each run its own output (-o)"
                          : made != 0 ? "cannot make the spool directory '" + s->spool_dir + "': " + std::strerror(made)
                          : !shared   ? "does not see the spool directory rank 0 made, '" + s->spool_dir +
                                          "': the output must be on a file system that every rank shares"
                                    : "cannot write its spool in '" + s->spool_dir + "': " + std::strerror(open_errno);
  int failing[2] = {mine ? s->ranks : s->rank, mine ? 0 : 1};  // the lowest rank that cannot record, how many
  PMPI_Allreduce(MPI_IN_PLACE, &failing[0], 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  PMPI_Allreduce(MPI_IN_PLACE, &failing[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (s->rank == 0 && made == 0) ::unlink((s->spool_dir + run_mark).c_str());  // every rank has looked
  if (failing[1] > 0) {
    if (s->rank == failing[0])  // said once, by a rank that knows why
      std::fprintf(stderr, "ripple trace: not recording: rank %d %s (%d of %d ranks cannot record); the run goes on untraced\n",
                   s->rank, why.c_str(), failing[1], s->ranks);
    s->spool.close();
    if (mine) ::unlink(s->spool_path.c_str());
    PMPI_Barrier(MPI_COMM_WORLD);
    if (s->rank == 0 && made != EBUSY) {  // nothing was recorded: nothing stays behind (another run's directory stays)
      detail::release_spool_dir(s->spool_dir, s->spool_lock_fd, true);
      ::rmdir(s->spool_dir.c_str());
    }
    return;  // not active
  }

  s->placement = detail::probe_placement(MPI_COMM_WORLD);

  // The tracer clock: events carry CLOCK_MONOTONIC (or the TSC mapped onto it) less this rank's t0; the
  // writer maps them onto rank 0's clock through the offsets measured now and at MPI_Finalize
  // (docs/trace-format.md).
  s->clock_source = detail::start_tracer_clock();
  PMPI_Comm_dup(MPI_COMM_WORLD, &s->sync_comm);  // ping-pongs never match the application's receives
  s->sync_start = detail::measure_offset(s->rank, s->ranks);
  PMPI_Barrier(MPI_COMM_WORLD);
  s->tick0 = detail::raw_tick();
  s->t0 = detail::tick_seconds(s->tick0);
  s->t0_root = s->t0;
  PMPI_Bcast(&s->t0_root, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  SpoolHeader header;
  header.rank = s->rank;
  header.ranks = s->ranks;
  header.t0 = s->t0;
  header.t0_root = s->t0_root;
  header.tick0 = s->tick0;
  const std::vector<TickSegment> map = detail::tick_segments();
  header.tick_rate = map.empty() ? 0.0 : map.back().rate;
  header.offset = s->sync_start.offset;
  header.offset_error = s->sync_start.error;
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  header.wall_start = static_cast<double>(wall.tv_sec) + 1e-9 * static_cast<double>(wall.tv_nsec);
  if (!s->spool.write_header(header, call_names_text()))  // rare and rank-specific: said by the rank it happens to
    std::fprintf(stderr,
                 "ripple trace: rank %d cannot write its spool's header in '%s': `ripple trace recover` will not read it\n",
                 s->rank, s->spool_dir.c_str());
  s->last_flush = 0;
  detail::g_recording.t0 = s->t0;
  detail::g_recording.tick0 = s->tick0;
  detail::g_recording.rank = s->rank;
  detail::g_recording.ranks = s->ranks;
  detail::g_recording.on_node = s->on_node.data();
  detail::g_recording.ring = s->ring.data();
  detail::g_recording.ring_mask = s->ring.size() - 1;
  detail::g_recording.head = &s->head;
  detail::g_recording.tail = &s->tail;
  detail::g_recording.threaded = s->threaded;
  detail::g_recording.on.store(true, std::memory_order_release);
  // A program that ends without MPI_Finalize still leaves its buffer in the spool (not a forked child:
  // it would append the parent's events a second time).
  static const pid_t owner = ::getpid();
  // The tracer's thread stops first: it must not flush meanwhile, nor run on into the static
  // destructors that follow (the tracer clock's among them).
  std::atexit([] {
    if (g_state == nullptr || !detail::recording() || ::getpid() != owner) return;
    if (g_state->flusher.joinable() && g_state->flusher.get_id() != std::this_thread::get_id()) detail::stop_flusher(*g_state);
    flush();
  });
  // Optional sources: each records why it is missing; an unexpected failure must not end MPI_Init.
  const auto optional = [&](const char* what, auto&& start_source) {
    try {
      start_source();
    } catch (const std::exception& e) {
      if (s->rank == 0) std::fprintf(stderr, "ripple trace: %s not started: %s\n", what, e.what());
    }
  };
  const detail::SamplerConfig sampling = sampler_config(ignored);
  if (s->rank == 0 && !ignored.empty()) std::fprintf(stderr, "ripple trace: settings ignored: %s\n", ignored.c_str());
  // The flusher starts before the counters and the sampler, which inherit to the threads started
  // after them: the tracer's own thread is neither counted nor sampled. It spools nothing until the
  // side spools are open (write_mutex).
  {
    const std::lock_guard<std::mutex> writer(s->write_mutex);
    try {
      // Made with every signal blocked, so that it starts with them blocked: none reaches it even
      // before its first instruction. The calling thread's mask is restored at once.
      sigset_t all, before;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &before);
      try {
        s->flusher = std::thread(flusher_loop, s);
      } catch (...) {
        pthread_sigmask(SIG_SETMASK, &before, nullptr);
        throw;
      }
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
      // Off the rank's CPUs where some CPU of the node is bound to no rank: its encoding and writing
      // then take no rank's time. Said with the placement (sources.hwloc).
      s->placement.status += "; " + detail::place_tracer_thread(s->flusher.native_handle(), s->placement);
    } catch (const std::system_error& e) {  // out of threads (a pids cgroup, ulimit -u): record, go on
      s->placement.status += std::string("; no tracer thread (") + e.what() +
                             "): events reach the spool when the ring is full and at MPI_Finalize, not at the flush interval";
      if (s->rank == 0)
        std::fprintf(stderr, "ripple trace: no background thread (%s): spooling only when the ring is full\n", e.what());
    }
    // Counters: RIPPLE_PAPI_EVENTS (comma-separated) or what the CXL model needs. A missing one is
    // recorded with its reason and reported in one line by rank 0; the run goes on.
    optional("counters", [&] {
      const char* list = std::getenv("RIPPLE_PAPI_EVENTS");
      s->counters.start(list != nullptr ? detail::split_event_list(list) : detail::default_counter_events());
      // Uncore (memory-controller) counters: RIPPLE_UNCORE_EVENTS, counted once per package by its leader.
      const char* uncore = std::getenv("RIPPLE_UNCORE_EVENTS");
      s->counters.start_uncore(uncore != nullptr ? detail::split_event_list(uncore) : detail::default_uncore_events(),
                               s->placement.me.socket_leader != 0, s->placement.package_cpus);
    });
    open_counter_spool(*s);
    open_clock_spool(*s);
    write_placement_spool(*s);
    spool_clock(*s);  // the map's first piece at once: a rank killed before its first flush keeps it
    // Precise memory samples: RIPPLE_TRACE_SAMPLES (auto: PEBS load latency or AMD IBS). The flusher
    // may drain them as soon as they start (the sampler's lock), and spools them once their spool is open.
    optional("memory sampling", [&] {
      s->sampler.start(sampling, s->rank, s->t0);
      open_sample_spool(*s);
    });
  }
  detail::sample_counters(*s);  // outside write_mutex: a full queue flushes
  if (s->rank == 0) {
    std::string missing;
    for (const auto& c : s->counters.status())
      if (!c.active) missing += (missing.empty() ? "" : "; ") + c.name + ": " + c.how;
    if (!missing.empty())
      std::fprintf(stderr, "ripple trace: counters unavailable (recorded in the trace): %s\n", missing.c_str());
    if (!s->sampler.active() && sampling.event != "off")
      std::fprintf(stderr, "ripple trace: memory sampling %s (recorded in the trace)\n", s->sampler.status().c_str());
  }
  Event e;
  e.call = static_cast<std::int32_t>(init_call);
  e.rank = s->rank;
  e.call_site = reinterpret_cast<std::uint64_t>(call_site);
  detail::commit(e);
}

void abort_flush() {
  if (g_state == nullptr || !detail::recording()) return;
  flush();
}

namespace detail {
void flush_all() { flush(); }

// A full ring, or several producers (MPI_THREAD_MULTIPLE): under the producers' lock, spooling a
// full ring first (without holding that lock meanwhile).
[[gnu::noinline]] static void commit_contended(const Event& e) {
  State& s = *g_state;
  for (;;) {
    {
      const Guard guard(s);
      if (push(e)) return;
    }
    flush();
  }
}

// One event into the ring: for a single producer no lock and no atomic read-modify-write at all.
void commit(const Event& e) {
  State& s = *g_state;
  if (!s.threaded && push(e)) [[likely]]
    return;
  commit_contended(e);
}

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
  if (full) flush();  // markers faster than the flusher: spooled at once, like a full ring, so memory stays bounded
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

namespace {
// Bytes a status describes (-1 if MPI cannot tell); MPI_Count holds messages beyond 2 GiB.
std::int64_t status_bytes(const MPI_Status* status) {
  MPI_Count bytes = 0;
  if (PMPI_Get_elements_x(status, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes == MPI_UNDEFINED) return -1;
  return static_cast<std::int64_t>(bytes);
}

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
    flush();  // without the lock, as commit_contended does
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
  const Guard guard(s);
  s.requests.new_round();
  for (int k = 0; k < count; ++k) {
    t_handles[static_cast<std::size_t>(k)] = requests[k];
    const auto handle = reinterpret_cast<std::uintptr_t>(requests[k]);
    // A handle that stands for several requests (request_table.hpp): its nth use here is its nth
    // oldest (a handle given more often than it has entries: its oldest).
    const detail::RequestInfo* info = nullptr;
    if (requests[k] != MPI_REQUEST_NULL) {
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

void Scope::resolve_source(const MPI_Status* status, MPI_Comm c) {
  if (!recording_ || status == nullptr || status->MPI_SOURCE < 0) return;  // MPI_PROC_NULL's status says nothing
  if (event_.peer == -2) peer(status->MPI_SOURCE, c);                      // the actual sender of an MPI_ANY_SOURCE receive
  if (event_.tag == MPI_ANY_TAG) event_.tag = status->MPI_TAG;             // and the actual tag of an MPI_ANY_TAG one
  // A probe has no buffer: the pending message's bytes. A receive keeps count x size, as every call
  // does, whichever source it named (its completion-free form costs no status read per call).
  if (event_.buffer == 0 && event_.count == 0) event_.bytes = status_bytes(status);
}

void Scope::probed(const MPI_Message* message) {
  if (!recording_ || message == nullptr || *message == MPI_MESSAGE_NULL || *message == MPI_MESSAGE_NO_PROC) return;
  State& s = *g_state;
  const Guard guard(s);
  s.messages.emplace_back(reinterpret_cast<std::uintptr_t>(*message), event_.comm);  // room reserved at MPI_Init
}

void Scope::taking(const MPI_Message* message) {
  if (!recording_ || message == nullptr || *message == MPI_MESSAGE_NULL) return;
  if (*message == MPI_MESSAGE_NO_PROC) {
    event_.peer = -3;  // a probe of MPI_PROC_NULL's
    return;
  }
  State& s = *g_state;
  const Guard guard(s);
  const auto handle = reinterpret_cast<std::uintptr_t>(*message);
  const auto it = std::find_if(s.messages.begin(), s.messages.end(), [&](const auto& m) { return m.first == handle; });
  if (it == s.messages.end()) return;  // probed by a call the tracer did not record
  event_.comm = it->second;
  *it = s.messages.back();
  s.messages.pop_back();
}

void Scope::received_message(const MPI_Status* status) {
  if (!recording_ || status == nullptr || event_.peer == -3) return;
  if (event_.comm >= 0 && status->MPI_SOURCE >= 0) {
    event_.peer = detail::world_rank(event_.comm, status->MPI_SOURCE);
    event_.same_node = detail::same_node(event_.peer);
  }
  event_.tag = status->MPI_TAG;  // a matched receive names no tag: the message's
  event_.bytes = status_bytes(status);
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

void Scope::window(MPI_Win w) { event_.comm = detail::window_comm(w); }

void Scope::file(MPI_File f) { event_.comm = detail::file_comm(f); }

void Scope::transferred(const MPI_Status* status) {
  if (!recording_ || status == nullptr) return;
  if (const std::int64_t moved = status_bytes(status); moved >= 0) event_.bytes = moved;
}

void Scope::window_peer(int target) {
  if (event_.comm < 0) {
    event_.peer = -1;  // a window made by a call the tracer does not wrap
    return;
  }
  peer(target, MPI_COMM_NULL);
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

namespace {
// The members a collective on `comm` exchanges with (Scope::Over).
int members(MPI_Comm comm, Scope::Over over) {
  int n = 0;
  if (over == Scope::Over::neighbors) {
    int topology = MPI_UNDEFINED;
    PMPI_Topo_test(comm, &topology);
    if (topology == MPI_CART) {
      PMPI_Cartdim_get(comm, &n);
      n *= 2;
    } else if (topology == MPI_GRAPH) {
      int me = 0;
      PMPI_Comm_rank(comm, &me);
      PMPI_Graph_neighbors_count(comm, me, &n);
    } else if (topology == MPI_DIST_GRAPH) {
      int in = 0, weighted = 0;
      PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
    }
  } else {
    int inter = 0;
    if (over == Scope::Over::peers) PMPI_Comm_test_inter(comm, &inter);
    if (inter != 0)
      PMPI_Comm_remote_size(comm, &n);
    else
      PMPI_Comm_size(comm, &n);
  }
  return n;
}
}  // namespace

void Scope::buffer_each(const void* buf, int count, MPI_Datatype type, MPI_Comm comm, Over over) {
  if (buf == MPI_IN_PLACE || type == MPI_DATATYPE_NULL || comm == MPI_COMM_NULL) return;
  const std::int64_t total = std::int64_t{count} * members(comm, over);
  const detail::DatatypeCache& t = detail::datatype(type);
  event_.count = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
  event_.buffer = reinterpret_cast<std::uint64_t>(buf);
  event_.bytes = total * t.size;
  event_.extent = total * t.extent;
}

void Scope::buffer_v(const void* buf, const int counts[], const int displs[], MPI_Datatype type, MPI_Comm comm, Over over) {
  if (buf == MPI_IN_PLACE || counts == nullptr || type == MPI_DATATYPE_NULL || comm == MPI_COMM_NULL) return;
  const int n = members(comm, over);
  std::int64_t total = 0, end = 0;
  for (int i = 0; i < n; ++i) {
    total += counts[i];
    end = std::max<std::int64_t>(end, (displs != nullptr ? displs[i] : total - counts[i]) + std::int64_t{counts[i]});
  }
  const detail::DatatypeCache& t = detail::datatype(type);
  event_.count = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
  event_.buffer = reinterpret_cast<std::uint64_t>(buf);
  event_.bytes = total * t.size;
  event_.extent = end * t.extent;
}

void Scope::buffer_own(const void* buf, const int counts[], MPI_Datatype type, MPI_Comm comm) {
  int me = 0;
  if (counts == nullptr || comm == MPI_COMM_NULL || PMPI_Comm_rank(comm, &me) != MPI_SUCCESS) return;
  buffer(buf, counts[me], type);
}

void Scope::translate_peer(int rank, MPI_Comm c) {
  if (rank == MPI_ANY_SOURCE) {
    event_.peer = -2;
    return;
  }
  if (rank == MPI_ROOT) {  // the root of an intercommunicator collective: this rank itself
    event_.peer = detail::g_recording.rank;
    event_.same_node = 1;
    return;
  }
  if (rank == MPI_PROC_NULL || rank < 0) {
    event_.peer = -3;
    return;
  }
  const int world = detail::world_rank(event_.comm >= 0 ? event_.comm : detail::comm_id(c), rank);
  event_.peer = world;
  event_.same_node = detail::same_node(world);
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
