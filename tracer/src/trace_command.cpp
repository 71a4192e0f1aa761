#include "ripple/trace/trace_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "recover.hpp"
#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"
#include "ripple/common/index_list.hpp"
#include "ripple/common/install_layout.hpp"
#include "ripple/common/pcontrol.hpp"
#include "ripple/trace/trace_reader.hpp"
#include "sources_text.hpp"

namespace ripple::trace {
namespace {

namespace fs = std::filesystem;

// libripple-trace.so: $RIPPLE_TRACE_LIBRARY, else the installation's (lib/ beside this bin/, wherever
// the prefix was moved), else the build tree's.
std::string library_path() {
  if (const char* env = std::getenv("RIPPLE_TRACE_LIBRARY")) return env;
  if (const fs::path lib = installed_dir(InstallDir::Lib); !lib.empty()) {
    std::error_code ec;
    if (fs::exists(lib / "libripple-trace.so", ec)) return (lib / "libripple-trace.so").string();
  }
  return RIPPLE_TRACE_BUILD_LIBRARY;
}

// The library's largest sample period (RIPPLE_TRACE_SAMPLE_PERIOD in recorder_start.cpp).
constexpr std::uint64_t kMostSamplePeriod = 1'000'000'000'000'000;

struct Sampling {
  std::string event = "auto";
  std::uint64_t period = 4000, ldlat = 30;
};

int launch(const std::string& output, double buffer_mib, double flush_seconds, const Sampling& sampling,
           const std::vector<std::string>& command) {
  if (command.empty()) throw InputError("ripple trace: name the program to run after --, e.g. ripple trace -- ./app args");
  // Absolute: the dynamic loader looks for a name without a slash only in the system's library
  // directories, and for a relative path from wherever the program is started (a wrapper script may
  // first change directory); either way the program would run untraced.
  std::error_code ec;
  const std::string lib = fs::absolute(library_path(), ec).string();
  if (ec || !fs::exists(lib))
    throw InputError(fmt::format("ripple trace: tracer library '{}' not found: set RIPPLE_TRACE_LIBRARY", lib));
  // LD_PRELOAD separates its entries by spaces and colons, with no way to quote one: such a path
  // would be split, and the program run untraced.
  if (lib.find_first_of(" \t\n:") != std::string::npos)
    throw InputError(
        fmt::format("ripple trace: the tracer library's path '{}' has a space or colon, which LD_PRELOAD cannot "
                    "hold: link or copy it to a path without one and name that in RIPPLE_TRACE_LIBRARY",
                    lib));
  const fs::path out = fs::absolute(output);
  // Said now, not after the run (its events would then wait in the spool for `recover`).
  if (const std::string why = hdf5_output_refused(out.string()); !why.empty())
    throw InputError(fmt::format("ripple trace: cannot write the trace to '{}': {}", out.string(), why));
  std::string preload = lib;
  if (const char* old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0') preload += std::string(":") + old;
  ::setenv("LD_PRELOAD", preload.c_str(), 1);
  ::setenv("RIPPLE_TRACE_OUTPUT", out.c_str(), 1);
  ::setenv("RIPPLE_TRACE_PID", std::to_string(::getpid()).c_str(), 1);  // execvp keeps it: untraced_exit.cpp
  ::setenv("RIPPLE_TRACE_BUFFER_MIB", fmt::format("{}", buffer_mib).c_str(), 1);
  ::setenv("RIPPLE_TRACE_FLUSH_SECONDS", fmt::format("{}", flush_seconds).c_str(), 1);
  ::setenv("RIPPLE_TRACE_SAMPLES", sampling.event.c_str(), 1);
  ::setenv("RIPPLE_TRACE_SAMPLE_PERIOD", fmt::format("{}", sampling.period).c_str(), 1);
  ::setenv("RIPPLE_TRACE_LDLAT", fmt::format("{}", sampling.ldlat).c_str(), 1);
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  throw InputError(fmt::format("ripple trace: cannot run '{}': {}", command[0], std::strerror(errno)));
}

struct CallStats {
  std::int64_t count = 0;
  double seconds = 0;
  std::int64_t bytes = 0;
};

// The ranks whose sources differ from rank 0's, grouped by what they say, in the order first seen.
// (A map from text to group: a run of 10^5 ranks may have as many groups.)
std::vector<std::pair<std::string, std::vector<int>>> differing_sources(const TraceReader& t) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  std::unordered_map<std::string_view, std::size_t> group_of;
  const std::vector<std::string>& all = t.rank_sources();
  for (int r = 1; r < static_cast<int>(all.size()); ++r) {
    const std::string& mine = all[static_cast<std::size_t>(r)];
    if (mine == all.front()) continue;
    const auto [g, added] = group_of.try_emplace(mine, groups.size());
    if (added) groups.emplace_back(mine, std::vector<int>{});
    groups[g->second].second.push_back(r);
  }
  return groups;
}

int info(const std::string& path, bool json) {
  const TraceReader t(path, false);  // events and samples piece by piece: memory stays bounded
  std::vector<std::map<std::string, CallStats>> per_rank(static_cast<std::size_t>(t.ranks()));
  std::map<std::string, CallStats> total;
  std::vector<std::set<int>> iterations(static_cast<std::size_t>(t.ranks()));
  double first = 1e300, last = -1e300;
  std::int64_t untimed = 0;  // events whose time is not known (NaN: see TraceReader::read_events)
  const auto times_overflow = [&] { return InputError(fmt::format("{}: the events' times overflow (corrupted file?)", path)); };
  constexpr std::int64_t kPiece = 1 << 16;  // 5.8 MB of events at a time
  for (std::int64_t at = 0; at < t.event_count(); at += kPiece)
    for (const auto& e : t.read_events(at, kPiece)) {
      const std::string name = t.call_name(e.call);
      // Counted, but adding nothing to any time or to the duration (JSON has no NaN).
      const bool timed = std::isfinite(e.t_enter) && std::isfinite(e.t_exit);
      untimed += timed ? 0 : 1;
      // A completion record carries the times of the call that completed it: that time is the
      // call's, and summing it again per request would count a Waitall's wait once per request.
      const double seconds = name == "completion" || !timed ? 0.0 : e.t_exit - e.t_enter;
      if (!std::isfinite(seconds)) throw times_overflow();
      for (auto* s : {&per_rank[static_cast<std::size_t>(e.rank)][name], &total[name]}) {
        ++s->count;
        s->seconds += seconds;
        if (!std::isfinite(s->seconds)) throw times_overflow();
        if (__builtin_add_overflow(s->bytes, e.bytes, &s->bytes))
          throw InputError(fmt::format("{}: the events' byte counts overflow (corrupted file?)", path));
      }
      if (name == "MPI_Pcontrol" && e.tag == kPcontrolIteration && e.iteration >= 0)
        iterations[static_cast<std::size_t>(e.rank)].insert(e.iteration);
      if (timed) {
        first = std::min(first, e.t_enter);
        last = std::max(last, e.t_exit);
      }
    }
  const double duration = untimed == t.event_count() ? 0.0 : last - first;
  if (!std::isfinite(duration)) throw times_overflow();
  // A recovered rank's losses may be unknown (-1): the total is then unknown too (-1 in JSON), and
  // the text gives the known part.
  std::int64_t lost = 0;
  bool lost_unknown = t.lost_events() < 0;
  for (const auto l : t.rank_lost()) {
    if (l < 0)
      lost_unknown = true;
    else
      lost += l;
  }
  std::vector<std::int64_t> samples(static_cast<std::size_t>(t.ranks())), counter_rows(static_cast<std::size_t>(t.ranks()));
  for (std::int64_t at = 0; at < t.sample_count(); at += kPiece)
    for (const auto& x : t.read_samples(at, kPiece)) ++samples[static_cast<std::size_t>(x.rank)];
  for (const auto r : t.counters().rank) ++counter_rows[static_cast<std::size_t>(r)];
  if (json) {
    // Keys in the order written (ordered_json); the run's object is written rank by rank, so that the
    // output of 10^6 ranks is never held whole.
    using Json = nlohmann::ordered_json;
    const auto calls_json = [](const std::map<std::string, CallStats>& calls) {  // {name: {count, time, bytes}}
      Json j = Json::object();
      for (const auto& [name, s] : calls) j[name] = {{"count", s.count}, {"time", s.seconds}, {"bytes", s.bytes}};
      return j;
    };
    const auto parsed = [&](const std::string& text) {  // the file's sources, JSON text it holds
      try {
        return Json::parse(text);
      } catch (const Json::parse_error&) {
        throw InputError(fmt::format("{}: its sources are not JSON: the file is damaged", path));
      }
    };
    const Json head = {{"file", path},
                       {"ranks", t.ranks()},
                       {"nodes", t.nodes()},
                       {"events", t.event_count()},
                       {"lost_events", lost_unknown ? -1 : lost},
                       {"events_untimed", untimed},
                       {"duration", duration},
                       {"sources", parsed(t.sources())},
                       {"calls", calls_json(total)}};
    // Invalid UTF-8 (a path's or a host's bytes) becomes U+FFFD rather than an exception.
    const auto dump = [](const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); };
    std::string text = dump(head);
    text.pop_back();  // the closing brace: per_rank follows
    std::fputs((text + ", \"per_rank\": [").c_str(), stdout);
    for (int r = 0; r < t.ranks(); ++r) {
      const auto i = static_cast<std::size_t>(r);
      const TraceReader::Losses& l = t.rank_losses()[i];
      Json rank = {{"rank", r},
                   {"iterations", iterations[i].size()},
                   {"counter_samples", counter_rows[i]},
                   {"memory_samples", samples[i]},
                   {"lost",
                    {{"events", t.rank_lost()[i]},
                     {"memory_samples", l.samples_lost},
                     {"memory_samples_dropped", l.samples_dropped},
                     {"counter_samples", l.counter_samples},
                     {"requests_untracked", l.requests_untracked},
                     {"peers_untranslated", l.peers_untranslated}}}};
      if (!t.rank_sources().empty()) rank["sources"] = parsed(t.rank_sources()[i]);
      if (!t.placement().empty()) {
        const trace::Placement& p = t.placement()[i];
        rank.update({{"host", p.host},
                     {"node", p.node},
                     {"binding", p.binding},
                     {"core", p.core},
                     {"package", p.package},
                     {"numa", p.numa}});
      }
      rank["calls"] = calls_json(per_rank[i]);
      std::fputs(((r ? ", " : "") + dump(rank)).c_str(), stdout);
    }
    std::puts("]}");
    return 0;
  }
  const std::string no_time = untimed == 0 ? "" : fmt::format(", {} without a known time", untimed);
  const std::string lost_text = !lost_unknown ? fmt::format("{} lost", lost)
                                : lost > 0    ? fmt::format("{} lost, and an unknown number more", lost)
                                              : "an unknown number lost";
  std::printf("%s%s: %d ranks on %d node(s), %lld events (%s%s), %.6f s\n", path.c_str(),
              t.recovered().empty() ? "" : " (recovered from the spools of a run that did not reach MPI_Finalize)", t.ranks(),
              t.nodes(), static_cast<long long>(t.event_count()), lost_text.c_str(), no_time.c_str(), duration);
  std::printf("%s\n", sources_text(t.sources()).c_str());
  for (const auto& [sources, ranks] : differing_sources(t))
    std::printf("sources of rank%s %s (not as rank 0's): %s\n\n", ranks.size() > 1 ? "s" : "", index_list(ranks).c_str(),
                sources.c_str());
  int width = 28;  // the name column: as wide as the longest name (MPI_Dist_graph_create_adjacent)
  for (const auto& entry : total) width = std::max(width, static_cast<int>(entry.first.size()) + 2);
  std::printf("%-*s %12s %14s %16s\n", width, "call (all ranks)", "count", "time [s]", "bytes");
  for (const auto& [name, s] : total)
    std::printf("%-*s %12lld %14.6f %16lld\n", width, name.c_str(), static_cast<long long>(s.count), s.seconds,
                static_cast<long long>(s.bytes));
  for (int r = 0; r < t.ranks(); ++r) {
    std::printf("\nrank %d: %zu iterations seen, %lld memory samples, %lld counter samples", r,
                iterations[static_cast<std::size_t>(r)].size(), static_cast<long long>(samples[static_cast<std::size_t>(r)]),
                static_cast<long long>(counter_rows[static_cast<std::size_t>(r)]));
    if (!t.placement().empty()) {
      const trace::Placement& p = t.placement()[static_cast<std::size_t>(r)];
      std::printf("; host %s (node %d), bound to CPUs %s, ran on core %d, package %d, NUMA node %d", p.host, p.node, p.binding,
                  p.core, p.package, p.numa);
    }
    std::printf("\n");
    const TraceReader::Losses& l = t.rank_losses()[static_cast<std::size_t>(r)];
    const std::int64_t lost_events = t.rank_lost()[static_cast<std::size_t>(r)];
    const auto n = [](std::int64_t v) { return v < 0 ? std::string("unknown") : std::to_string(v); };
    if (lost_events != 0 || l.samples_lost != 0 || l.samples_dropped != 0 || l.counter_samples != 0)
      std::printf("  not in the file: %s events, %s memory samples lost in the kernel, %s dropped, %s counter samples\n",
                  n(lost_events).c_str(), n(l.samples_lost).c_str(), n(l.samples_dropped).c_str(), n(l.counter_samples).c_str());
    if (l.requests_untracked != 0 || l.peers_untranslated != 0)
      std::printf("  incomplete: %s requests untracked (request -1), %s peers untranslated (peer -1)\n",
                  n(l.requests_untracked).c_str(), n(l.peers_untranslated).c_str());
    for (const auto& [name, s] : per_rank[static_cast<std::size_t>(r)])
      std::printf("  %-*s %12lld %14.6f %16lld\n", width - 2, name.c_str(), static_cast<long long>(s.count), s.seconds,
                  static_cast<long long>(s.bytes));
  }
  return 0;
}

// info, where a file's tables exhaust memory (the reader holds no more than the file's size allows,
// but a crafted file may still ask more than this machine has): bad input, exit code 2.
int info_of(const std::string& path, bool json) {
  try {
    return info(path, json);
  } catch (const std::bad_alloc&) {
    throw InputError(fmt::format("{}: not enough memory to summarise it (a damaged file claiming huge tables?)", path));
  } catch (const std::length_error&) {
    throw InputError(fmt::format("{}: its tables are too large to hold (a damaged file claiming huge tables?)", path));
  }
}

}  // namespace

int trace_main(int argc, char** argv) {
  CLI::App app{
      "Trace an MPI program: ripple trace [options] -- ./app args   (under mpirun or srun, once per rank)\n"
      "or summarise a trace: ripple trace info FILE [--json]",
      "ripple trace"};
  std::string output = "ripple-trace.h5";
  double buffer_mib = 64, flush_seconds = 1;
  std::vector<std::string> command;
  app.add_option("-o,--output", output, "the HDF5 trace file (one per run)")->capture_default_str();
  app.add_option("--buffer-mib", buffer_mib, "in-memory event buffer per rank before it is spooled to disk")
      ->capture_default_str();
  app.add_option("--flush-seconds", flush_seconds, "spool at least this often (what a crash can lose)")->capture_default_str();
  Sampling sampling;
  app.add_option("--samples", sampling.event,
                 "precise memory samples: auto (PEBS load latency or AMD IBS), mem-loads, ibs_op, off, or a software "
                 "event with data addresses: page-faults, minor-faults, major-faults")
      ->check(CLI::IsMember({"auto", "off", "mem-loads", "ibs_op", "page-faults", "minor-faults", "major-faults"}))
      ->capture_default_str();
  app.add_option("--sample-period", sampling.period, "events between two samples")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--ldlat", sampling.ldlat, "PEBS load-latency threshold in cycles")
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  app.add_option("command", command, "the program and its arguments, after --");
  auto* recover_cmd = app.add_subcommand("recover", "rebuild a trace file from the spools of a run that died");
  std::string recover_input, recover_output;
  recover_cmd->add_option("spool", recover_input, "the spool directory, or the trace path it belongs to")->required();
  recover_cmd->add_option("-o,--output", recover_output, "the trace file to write (default: the run's trace path)");
  auto* info_cmd = app.add_subcommand("info", "summarise a trace file");
  std::string info_file;
  bool json = false;
  info_cmd->add_option("file", info_file, "trace file")->required();
  info_cmd->add_flag("--json", json, "machine-readable output");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_command_line(app, e, "ripple trace --help");
  }
  bool launching = false;
  try {
    if (*info_cmd) return info_of(info_file, json);
    if (*recover_cmd) return recover(recover_input, recover_output);
    launching = true;                               // once per rank under the launcher, before MPI: rank 0 speaks for all
    if (!(buffer_mib > 0) || !(flush_seconds > 0))  // NaN too
      throw InputError("ripple trace: --buffer-mib and --flush-seconds must be positive");
    // The library replaces a setting outside these ranges by its default (env_number in
    // recorder_start.cpp): refused here, before the run, rather than a run with a value not asked for.
    if (buffer_mib < 1.0 / 1024 || buffer_mib > 1 << 30)
      throw InputError(fmt::format("ripple trace: --buffer-mib {} is not from 1/1024 to 2^30", buffer_mib));
    if (flush_seconds < 1e-6) throw InputError(fmt::format("ripple trace: --flush-seconds {} is below 1e-6", flush_seconds));
    if (sampling.period > kMostSamplePeriod)
      throw InputError(fmt::format("ripple trace: --sample-period {} is beyond {}", sampling.period, kMostSamplePeriod));
    // Without --, CLI11 takes the program's own options (-o, --samples, ...) as ripple trace's and
    // runs the program without them.
    const auto dashes = std::find_if(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--"; });
    if (!command.empty() && (dashes == argv + argc || std::vector<std::string>(dashes + 1, argv + argc) != command))
      throw InputError(
          fmt::format("ripple trace: put -- before the program ('{}'): ripple trace [options] -- ./app args", command.front()));
    return launch(output, buffer_mib, flush_seconds, sampling, command);
  } catch (const Error& e) {
    if (!launching || launcher_rank() == 0) std::fprintf(stderr, "ripple: error: %s\n", e.what());
    return launching ? after_rank_zero_spoke(e.exit_code()) : e.exit_code();
  } catch (const std::exception& e) {  // e.g. sizes in a damaged file that exhaust memory
    std::fprintf(stderr, "ripple: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace ripple::trace
