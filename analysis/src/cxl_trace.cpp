// A Ripple trace as the CXL model's input: receives with their buffers (an MPI_Irecv's buffer and
// its completion's time, bytes, source and tag), the load samples, and the whole run's counters.
#include <fmt/format.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "ripple/analysis/call_kinds.hpp"
#include "ripple/analysis/cxl_run.hpp"
#include "ripple/common/error.hpp"
#include "ripple/trace/trace_reader.hpp"

namespace ripple::analysis {
namespace {

// The level names of /samples/records as brackets; false: no data source (left out).
bool bracket_of(const std::string& level, std::uint64_t data_src, bool prefetch_known, Bracket& b) {
  static const char* cache[] = {"L1", "L2", "L3", "L4", "RemoteCache", "AnyCache"};
  static const char* memory[] = {"LocalDram", "RemoteDram", "Pmem", "Cxl", "Io", "Uncached"};
  if (level == "LFB") {
    b = Bracket::Lfb;
    return true;
  }
  for (const char* c : cache)
    if (level == c) {
      const bool prefetch = ((data_src >> PERF_MEM_OP_SHIFT) & PERF_MEM_OP_PFETCH) != 0;
      b = prefetch ? Bracket::PrefetchHit : prefetch_known ? Bracket::DemandHit : Bracket::Hit;
      return true;
    }
  for (const char* m : memory)
    if (level == m) {
      b = Bracket::Miss;
      return true;
    }
  return false;
}

// Sample period from the sampler's status ("..., period 4000, ..."); 0 if it says none.
double period_of(const std::string& status) {
  const auto at = status.find("period ");
  if (at == std::string::npos) return 0;
  try {
    return std::stod(status.substr(at + 7));
  } catch (const std::exception&) {
    return 0;
  }
}

void read_receives(const trace::TraceReader& reader, CxlRun& run) {
  const std::vector<CallKind> kinds = classify_calls(reader.call_names());
  auto kind = [&](std::int32_t call) {
    return call >= 0 && call < static_cast<std::int32_t>(kinds.size()) ? kinds[call] : CallKind::Other;
  };
  double first = INFINITY, last = -INFINITY;
  std::unordered_map<std::int64_t, std::size_t> pending;  // this rank's request id -> receive
  int rank = -1;
  double completing_exit = 0;  // the exit of the call that the completion records follow
  constexpr std::int64_t kPiece = 1 << 16;
  for (std::int64_t at = 0; at < reader.event_count(); at += kPiece)
    for (const trace::Event& e : reader.read_events(at, kPiece)) {
      if (std::isfinite(e.t_enter)) first = std::min(first, e.t_enter);
      if (std::isfinite(e.t_exit)) last = std::max(last, e.t_exit);
      if (e.rank != rank) {
        pending.clear();
        rank = e.rank;
      }
      const CallKind k = kind(e.call);
      if (k != CallKind::Completion) completing_exit = e.t_exit;
      if (k == CallKind::Recv || k == CallKind::Irecv) {
        if (e.buffer == 0 || e.extent <= 0) {
          ++run.receives_without_buffer;
          continue;
        }
        run.receives.push_back({e.rank, e.call_site, e.tag, e.peer, e.buffer, e.extent, e.bytes, e.t_enter, e.t_exit});
        if (k == CallKind::Irecv && e.request >= 0) pending[e.request] = run.receives.size() - 1;
      } else if (k == CallKind::Completion && e.request >= 0) {
        auto it = pending.find(e.request);
        if (it == pending.end()) continue;
        CxlReceive& r = run.receives[it->second];
        r.t_done = completing_exit;
        r.bytes = e.bytes;
        r.tag = e.tag;
        r.peer = e.peer;
        pending.erase(it);
      } else if (k == CallKind::Sendrecv) {
        ++run.receives_without_buffer;  // its receive half records no buffer
      }
    }
  run.duration = std::isfinite(first) && last > first ? last - first : 0;
}

void read_samples(const trace::TraceReader& reader, CxlRun& run) {
  const std::string& status = reader.samples_status();
  if (status.rfind("active", 0) != 0) {
    run.samples_why = status.empty() ? "the trace has no memory samples" : "memory samples " + status;
    return;
  }
  if (status.find("fault") != std::string::npos) {
    run.samples_why = "the trace's memory samples are page faults, not load samples (" + status + ")";
    return;
  }
  const bool prefetch_known = status.find("prefetch known") != std::string::npos;
  const auto& names = reader.sample_level_names();
  for (const trace::SampleRecord& s : reader.samples()) {
    Bracket b{};
    const std::string level = s.level >= 0 && s.level < static_cast<int>(names.size()) ? names[s.level] : "";
    if (!bracket_of(level, s.data_src, prefetch_known, b)) {
      ++run.samples_unknown_source;
      continue;
    }
    run.samples.push_back({s.rank, s.time, s.addr, static_cast<double>(s.weight), b});
  }
  if (run.samples.empty()) run.samples_why = "no memory sample of the trace says where its load was served";
  const double period = period_of(status);
  run.sample_rate = period > 0 ? period : 1;
  run.rate_how = period > 0 ? fmt::format("the sampling period, {}", period) : "1 (the sampler names no period)";
}

// Whole-run totals: per rank, the last counter sample less the first, summed over ranks.
void read_counters(const trace::TraceReader& reader, CxlRun& run) {
  const auto& c = reader.counters();
  if (c.events.empty() || c.time.empty()) {
    run.counters_why = "the trace has no counters";
    return;
  }
  const std::size_t n = c.events.size();
  std::map<int, std::pair<std::size_t, std::size_t>> span;  // rank -> first, last row
  for (std::size_t row = 0; row < c.rank.size(); ++row) {
    auto [it, fresh] = span.try_emplace(c.rank[row], row, row);
    if (!fresh) it->second.second = row;
  }
  auto total = [&](auto&& wanted) {
    double sum = 0;
    bool any = false;
    for (std::size_t col = 0; col < n; ++col) {
      if (!wanted(c.events[col])) continue;
      for (const auto& [rank, rows] : span) {
        const std::int64_t a = c.values[rows.first * n + col], b = c.values[rows.second * n + col];
        if (a < 0 || b < 0) continue;
        sum += static_cast<double>(b - a);
        any = true;
      }
    }
    return any ? sum : -1.0;
  };
  auto named = [](std::initializer_list<const char*> names) {
    return [names](const std::string& e) { return std::find(names.begin(), names.end(), e) != names.end(); };
  };
  run.counters.loads = total(named({"PAPI_LD_INS"}));
  run.counters.l1_misses = total(named({"PAPI_L1_LDM", "PAPI_L1_DCM"}));
  run.counters.l3_misses = total(named({"PAPI_L3_LDM"}));
  const double cas = total([](const std::string& e) { return e.find("cas_count_read") != std::string::npos; });
  run.counters.memory_bytes = cas >= 0 ? 64 * cas : -1;
  run.counters.seconds = run.duration;
  if (run.counters.loads <= 0 || run.counters.l1_misses < 0 || run.counters.l3_misses < 0)
    run.counters_why = "the trace's counters lack PAPI_LD_INS, PAPI_L1_LDM or PAPI_L3_LDM (" +
                       (c.status.empty() ? std::string("no status") : c.status) + ")";
}

}  // namespace

CxlRun read_cxl_run(const std::string& path) {
  const trace::TraceReader reader(path, true);
  CxlRun run;
  run.path = path;
  run.ranks = reader.ranks();
  read_receives(reader, run);
  if (run.receives.empty())
    throw InputError(run.receives_without_buffer > 0
                         ? fmt::format("{}: none of its {} receives records a buffer extent (a trace of an older tracer, or "
                                       "only MPI_Sendrecv?)",
                                       path, run.receives_without_buffer)
                         : fmt::format("{}: the trace has no receives to model", path));
  read_samples(reader, run);
  read_counters(reader, run);
  const auto sources = nlohmann::json::parse(reader.sources(), nullptr, false);
  if (sources.is_object() && sources.contains("import") && sources["import"].is_object() &&
      sources["import"].value("conventions", "") == "published")
    run.conventions = "published";
  if (run.counters_why.empty() && !run.samples.empty() && run.counters.loads > 0) {
    run.sample_rate = run.counters.loads / static_cast<double>(run.samples.size() + run.samples_unknown_source);
    run.rate_how = "PAPI_LD_INS / samples";
  }
  return run;
}

}  // namespace ripple::analysis
