// start(), after PMPI_Init*: the settings from the environment, the ranks on this node, the event
// spool every rank must manage to open (or none records), the tracer clock and its offset to rank 0,
// then the flusher thread and the optional sources (counters, clock map, placement, memory samples)
// with their side spools.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "eager_limits.hpp"
#include "recorder.hpp"
#include "recorder_state.hpp"
#include "side_spools.hpp"
#include "sources_json.hpp"
#include "spool_dir.hpp"

namespace ripple::trace {

namespace detail {
void close_stderr_copy();  // untraced_exit.cpp
}  // namespace detail

using detail::g_state;
using detail::SpoolHeader;
using detail::State;

namespace {

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

// The settings from the environment, and the event ring: false if it cannot be mapped (the run then
// goes on untraced, decided with the event spool by all ranks). Numbers out of range are added to
// `ignored`.
bool read_settings(State& s, std::string& ignored) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &s.ranks);
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  s.threaded = provided == MPI_THREAD_MULTIPLE;
  s.eager_limits = detail::eager_limits_json();
  // Relative to where MPI_Init ran: an application that changes directory before MPI_Finalize (the
  // launcher's path is absolute; a linked program's, or the default, may not be) must find its spool
  // there, and write the file beside it.
  s.output = env_or("RIPPLE_TRACE_OUTPUT", "ripple-trace.h5");
  if (std::error_code ec; s.output.front() != '/')
    if (const std::filesystem::path whole = std::filesystem::absolute(s.output, ec); !ec) s.output = whole.string();
  const double mib = env_number("RIPPLE_TRACE_BUFFER_MIB", 64, 1.0 / 1024, 1 << 30, ignored);
  // Infinite: never by time (still whenever a quarter of the ring is taken).
  s.flush_seconds = std::min(env_number("RIPPLE_TRACE_FLUSH_SECONDS", 1, 1e-6, HUGE_VAL, ignored), 1e9);
  // The ring: the largest power of two of events within the memory bound (at least 1024).
  const auto fit = static_cast<std::size_t>(mib * 1048576.0 / sizeof(Event));
  std::size_t slots = 1024;
  while (slots * 2 <= fit) slots *= 2;
  try {
    s.ring.allocate(slots);
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

// Which world ranks share this node (State::on_node).
void find_node_ranks(State& s) {
  MPI_Comm node = MPI_COMM_NULL;
  PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, s.rank, MPI_INFO_NULL, &node);
  MPI_Group world_group, node_group;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  PMPI_Comm_group(node, &node_group);
  std::vector<int> ranks(static_cast<std::size_t>(s.ranks)), in_node(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) ranks[static_cast<std::size_t>(r)] = r;
  PMPI_Group_translate_ranks(world_group, s.ranks, ranks.data(), node_group, in_node.data());
  s.on_node.resize(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r)
    s.on_node[static_cast<std::size_t>(r)] = in_node[static_cast<std::size_t>(r)] != MPI_UNDEFINED;
  PMPI_Group_free(&world_group);
  PMPI_Group_free(&node_group);
  PMPI_Comm_free(&node);
}

// The event spool: true if every rank opened its own, false (said once, and nothing left behind) if
// any could not, and then no rank records.
bool open_event_spool(State& s, bool have_ring) {
  // The spool: one file per rank in <output>.spool/, with a header, then blocks of encoded events.
  // Rank 0 makes the directory, with a file named for this run in it: a rank that does not see that
  // file has its output path on another file system (node-local /tmp, say, where an earlier run's
  // spool directory may be), and the collective write at MPI_Finalize would hang there. No rank
  // records then.
  s.spool_dir = s.output + ".spool";
  char run_mark[96] = {};
  int made = 0;  // rank 0: 0, or the errno of making the directory and its mark
  std::string moved;
  if (s.rank == 0) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    std::snprintf(run_mark, sizeof run_mark, "/.run-%ld-%ld-%ld", static_cast<long>(::getpid()), static_cast<long>(now.tv_sec),
                  static_cast<long>(now.tv_nsec));
    made = detail::make_spool_dir(s.spool_dir, run_mark, moved, s.spool_lock_fd);
  }
  PMPI_Bcast(run_mark, sizeof run_mark, MPI_CHAR, 0, MPI_COMM_WORLD);
  PMPI_Bcast(&made, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!moved.empty())
    std::fprintf(stderr,
                 "ripple trace: an earlier run's spool directory was in the way; it is now '%s' (ripple trace recover %s)\n",
                 moved.c_str(), moved.c_str());
  char name[64];
  std::snprintf(name, sizeof name, "/rank-%06d.bin", s.rank);
  s.spool_path = s.spool_dir + name;
  const bool shared = made == 0 && ::access((s.spool_dir + run_mark).c_str(), F_OK) == 0;
  const bool mine = have_ring && shared && s.spool.open(s.spool_path);
  const int open_errno = errno;
  const std::string why = !have_ring ? std::string("cannot map the event buffer (--buffer-mib)")
                          : made == EBUSY
                              ? "finds the spool directory '" + s.spool_dir +
                                    "' in use by another run that writes the same trace: give each run its own output (-o)"
                          : made != 0 ? "cannot make the spool directory '" + s.spool_dir + "': " + std::strerror(made)
                          : !shared   ? "does not see the spool directory rank 0 made, '" + s.spool_dir +
                                          "': the output must be on a file system that every rank shares"
                                    : "cannot write its spool in '" + s.spool_dir + "': " + std::strerror(open_errno);
  int failing[2] = {mine ? s.ranks : s.rank, mine ? 0 : 1};  // the lowest rank that cannot record, how many
  PMPI_Allreduce(MPI_IN_PLACE, &failing[0], 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  PMPI_Allreduce(MPI_IN_PLACE, &failing[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (s.rank == 0 && made == 0) ::unlink((s.spool_dir + run_mark).c_str());  // every rank has looked
  if (failing[1] > 0) {
    if (s.rank == failing[0])  // said once, by a rank that knows why
      std::fprintf(stderr, "ripple trace: not recording: rank %d %s (%d of %d ranks cannot record); the run goes on untraced\n",
                   s.rank, why.c_str(), failing[1], s.ranks);
    s.spool.close();
    if (mine) ::unlink(s.spool_path.c_str());
    PMPI_Barrier(MPI_COMM_WORLD);
    if (s.rank == 0 && made != EBUSY) {  // nothing was recorded: nothing stays behind (another run's directory stays)
      detail::release_spool_dir(s.spool_dir, s.spool_lock_fd, true);
      ::rmdir(s.spool_dir.c_str());
    }
    return false;  // not active
  }
  return true;
}

// The tracer clock: events carry CLOCK_MONOTONIC (or the TSC mapped onto it) less this rank's t0; the
// writer maps them onto rank 0's clock through the offsets measured now and at MPI_Finalize
// (docs/trace-format.md). The event spool's header records them.
void start_clock(State& s) {
  s.clock_source = detail::start_tracer_clock();
  PMPI_Comm_dup(MPI_COMM_WORLD, &s.sync_comm);  // ping-pongs never match the application's receives
  s.sync_start = detail::measure_offset(s.rank, s.ranks);
  PMPI_Barrier(MPI_COMM_WORLD);
  s.tick0 = detail::raw_tick();
  s.t0 = detail::tick_seconds(s.tick0);
  s.t0_root = s.t0;
  PMPI_Bcast(&s.t0_root, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  SpoolHeader header;
  header.rank = s.rank;
  header.ranks = s.ranks;
  header.t0 = s.t0;
  header.t0_root = s.t0_root;
  header.tick0 = s.tick0;
  const std::vector<TickSegment> map = detail::tick_segments();
  header.tick_rate = map.empty() ? 0.0 : map.back().rate;
  header.offset = s.sync_start.offset;
  header.offset_error = s.sync_start.error;
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  header.wall_start = static_cast<double>(wall.tv_sec) + 1e-9 * static_cast<double>(wall.tv_nsec);
  if (!s.spool.write_header(header, call_names_text()))  // rare and rank-specific: said by the rank it happens to
    std::fprintf(stderr,
                 "ripple trace: rank %d cannot write its spool's header in '%s': `ripple trace recover` will not read it\n",
                 s.rank, s.spool_dir.c_str());
}

// What the inline path reads (recorder.hpp), then recording on; and the flush at exit of a program
// that ends without MPI_Finalize.
void publish(State& s) {
  s.last_flush = 0;
  detail::g_recording.t0 = s.t0;
  detail::g_recording.tick0 = s.tick0;
  detail::g_recording.rank = s.rank;
  detail::g_recording.ranks = s.ranks;
  detail::g_recording.on_node = s.on_node.data();
  detail::g_recording.ring = s.ring.data();
  detail::g_recording.ring_mask = s.ring.size() - 1;
  detail::g_recording.head = &s.head;
  detail::g_recording.tail = &s.tail;
  detail::g_recording.threaded = s.threaded;
  detail::g_recording.on.store(true, std::memory_order_release);
  // A program that ends without MPI_Finalize still leaves its buffer in the spool (not a forked child:
  // it would append the parent's events a second time).
  static const pid_t owner = ::getpid();
  // The tracer's thread stops first: it must not flush meanwhile, nor run on into the static
  // destructors that follow (the tracer clock's among them).
  std::atexit([] {
    if (g_state == nullptr || !detail::recording() || ::getpid() != owner) return;
    if (g_state->flusher.joinable() && g_state->flusher.get_id() != std::this_thread::get_id()) detail::stop_flusher(*g_state);
    detail::flush_all();
  });
}

// What the sources take from the environment.
struct SourceSettings {
  detail::SamplerConfig sampling;
};

// A data source beside the events: started, then its side spool opened, both under write_mutex
// once the flusher runs (start_sources). `start` may fail: an exception says the source is missing
// (each also records why in the trace) and the run goes on.
struct Source {
  const char* what;                                         // "ripple trace: <what> not started: ..."
  void (*start)(State& s, const SourceSettings& settings);  // null: nothing to start
  void (*open_spool)(State& s);                             // null: start opens it, if it has one
};

// Counters: RIPPLE_PAPI_EVENTS (comma-separated) or what the CXL model needs. A missing one is
// recorded with its reason and reported in one line by rank 0; the run goes on.
void start_counters(State& s, const SourceSettings&) {
  const char* list = std::getenv("RIPPLE_PAPI_EVENTS");
  s.counters.start(list != nullptr ? detail::split_event_list(list) : detail::default_counter_events());
  // Uncore (memory-controller) counters: RIPPLE_UNCORE_EVENTS, counted once per package by its leader.
  const char* uncore = std::getenv("RIPPLE_UNCORE_EVENTS");
  s.counters.start_uncore(uncore != nullptr ? detail::split_event_list(uncore) : detail::default_uncore_events(),
                          s.placement.me.socket_leader != 0, s.placement.package_cpus);
}

// The clock map (started with the tracer clock): its spool, and the map's first piece in it at once,
// so that a rank killed before its first flush keeps it.
void open_clock(State& s) {
  detail::open_clock_spool(s);
  detail::spool_clock(s);
}

// Precise memory samples: RIPPLE_TRACE_SAMPLES (auto: PEBS load latency or AMD IBS). The flusher
// may drain them as soon as they start (the sampler's lock), and spools them once their spool is open.
void start_sampler(State& s, const SourceSettings& settings) {
  s.sampler.start(settings.sampling, s.rank, s.t0);
  detail::open_sample_spool(s);
}

// Every source beside the events, in the order they start.
constexpr Source kSources[] = {
    {"counters", start_counters, detail::open_counter_spool},
    {"clock map", nullptr, open_clock},
    {"placement", nullptr, detail::write_placement_spool},  // probed before the clock started
    {"memory sampling", start_sampler, nullptr},
};

// The flusher starts before the counters and the sampler, which inherit to the threads started
// after them: the tracer's own thread is neither counted nor sampled. It spools nothing until the
// side spools are open (write_mutex).
void start_sources(State& s, const SourceSettings& settings) {
  const std::lock_guard<std::mutex> writer(s.write_mutex);
  detail::start_flusher(s);
  for (const Source& source : kSources) {
    if (source.start != nullptr) {
      try {  // an unexpected failure must not end MPI_Init
        source.start(s, settings);
      } catch (const std::exception& e) {
        if (s.rank == 0) std::fprintf(stderr, "ripple trace: %s not started: %s\n", source.what, e.what());
      }
    }
    if (source.open_spool != nullptr) source.open_spool(s);
  }
}

// Rank 0 says what is missing (each rank records its own in the trace): a line per reason, naming
// every counter it holds for (six counters without a PMU share one reason).
void report_sources(const State& s, const SourceSettings& settings) {
  if (s.rank != 0) return;
  std::vector<std::pair<std::string, std::string>> missing;  // (counter, why)
  for (const auto& c : s.counters.status())
    if (!c.active) missing.emplace_back(c.name, c.how);
  if (!missing.empty()) {
    std::string text = "ripple trace: counters unavailable (recorded in the trace):\n";
    for (const auto& [names, why] : detail::grouped_by_value(missing)) text += "  " + names + ": " + why + "\n";
    std::fputs(text.c_str(), stderr);
  }
  if (!s.sampler.active() && settings.sampling.event != "off")
    std::fprintf(stderr, "ripple trace: memory sampling %s (recorded in the trace)\n", s.sampler.status().c_str());
}

}  // namespace

void start(Call init_call, const void* call_site) {
  if (g_state != nullptr) return;
  auto* s = new State;
  std::string ignored;  // settings from the environment that were not numbers in range
  const bool have_ring = read_settings(*s, ignored);
  find_node_ranks(*s);
  s->messages.reserve(64);
  g_state = s;
  detail::close_stderr_copy();                   // untraced_exit.cpp: MPI_Init ran
  if (!open_event_spool(*s, have_ring)) return;  // not active
  s->placement = detail::probe_placement(MPI_COMM_WORLD);
  start_clock(*s);
  publish(*s);
  const SourceSettings settings{sampler_config(ignored)};
  if (s->rank == 0 && !ignored.empty()) std::fprintf(stderr, "ripple trace: settings ignored: %s\n", ignored.c_str());
  start_sources(*s, settings);
  detail::sample_counters(*s);  // outside write_mutex: a full queue flushes
  report_sources(*s, settings);
  Event e;
  e.call = static_cast<std::int32_t>(init_call);
  e.rank = s->rank;
  e.call_site = reinterpret_cast<std::uint64_t>(call_site);
  detail::commit(e);
}

}  // namespace ripple::trace
