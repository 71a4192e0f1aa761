// The Mitos records as a Ripple trace (docs/cxl.md): calls as events with the completions the model
// reads, samples by rank, whole-run counters as two rows per rank.
#include <fmt/format.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "ripple/analysis/mitos_import.hpp"
#include "ripple/common/error.hpp"

namespace ripple::analysis {

const char* const kMitosLevelNames =
    "Unknown\nL1\nL2\nL3\nL4\nLFB\nLocalDram\nRemoteDram\nRemoteCache\nPmem\nCxl\nIo\nUncached\nAnyCache";

int mitos_level(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::map<std::string, int> exact = {{"l1", 1},   {"l2", 2},  {"l3", 3},  {"l4", 4},   {"lfb", 5},
                                                   {"mshr", 5}, {"mem", 6}, {"ram", 6}, {"dram", 6}, {"pmem", 9},
                                                   {"cxl", 10}, {"io", 11}, {"i/o", 11}};
  if (const auto it = exact.find(t); it != exact.end()) return it->second;
  // Decoded PEBS sources ("Remote RAM (1 hop)", "LFB/MAB", "L3 hit"): most specific first.
  static const std::pair<const char*, int> contains[] = {
      {"remote cache", 8}, {"remote ram", 7}, {"remote dram", 7}, {"any cache", 13}, {"fill buffer", 5}, {"lfb", 5},
      {"local ram", 6},    {"local dram", 6}, {"pmem", 9},        {"cxl", 10},       {"i/o", 11},        {"uncached", 12},
      {"l1", 1},           {"l2", 2},         {"l3", 3},          {"llc", 3},        {"l4", 4},          {"ram", 6}};
  for (const auto& [name, level] : contains)
    if (t.find(name) != std::string::npos) return level;
  return 0;
}

namespace {

std::int32_t call_id(const std::string& name) {
  for (int i = 0; i < trace::call_count(); ++i)
    if (name == trace::call_name(i)) return i;
  return -1;
}

bool is_cache(int level) { return level >= 1 && level <= 4; }

// The rank of a buffer [start, end) that holds addr (the lowest start wins), -1 if none: the buffers
// that start at most `widest` bytes below it.
int rank_by_address(const std::multimap<std::uint64_t, std::pair<std::uint64_t, int>>& buffers, std::uint64_t widest,
                    std::uint64_t addr) {
  auto it = buffers.lower_bound(addr > widest ? addr - widest : 0);
  for (; it != buffers.end() && it->first <= addr; ++it)
    if (addr < it->second.first) return it->second.second;
  return -1;
}

// The pending requests a wait completes. mitoshooks names a request by the address of the caller's
// MPI_Request variable, and an MPI_Waitall by its array and length (no request): the pending
// requests at array + k * slot, k < length, for the slot (8 bytes in Open MPI, 4 in MPICH) that
// finds more of them; on a tie 4 (Open MPI's 8-byte handles find as many at slot 4 only in an array
// of one, the same request; MPICH's array followed by another finds as many at 8, the wrong ones).
std::vector<std::int64_t> completed_requests(const MitosCall& m, bool array_waits,
                                             const std::unordered_map<std::int64_t, trace::Event>& pending) {
  std::vector<std::int64_t> found;
  if (!array_waits || m.request >= 0 || m.func != "MPI_Waitall") {
    if (pending.contains(m.request)) found.push_back(m.request);
    return found;
  }
  const std::int64_t length = std::min<std::int64_t>(m.count, 1 << 24);  // a damaged count does not hang the scan
  for (const std::int64_t slot : {4, 8}) {
    std::vector<std::int64_t> at;
    for (std::int64_t k = 0; k < length; ++k)
      if (const auto a = static_cast<std::int64_t>(m.buffer) + k * slot; pending.contains(a)) at.push_back(a);
    if (at.size() > found.size()) found = std::move(at);
  }
  return found;
}

}  // namespace

trace::TraceContent build_mitos_trace(const MitosRecords& r, const std::string& command_line) {
  trace::TraceContent c;
  c.command_line = command_line;
  std::vector<MitosCall> calls = r.calls;
  std::stable_sort(calls.begin(), calls.end(), [](const MitosCall& a, const MitosCall& b) {
    return std::tie(a.rank, a.t_start) < std::tie(b.rank, b.t_start);
  });
  c.ranks = calls.back().rank + 1;
  const std::int32_t completion = call_id("completion");
  std::map<int, std::pair<double, double>> span;  // rank -> first entry, last exit
  std::set<std::string> unknown;
  std::unordered_map<std::int64_t, trace::Event> pending;  // this rank's request -> its call
  int rank = -1;
  for (const MitosCall& m : calls) {
    if (m.rank != rank) pending.clear(), rank = m.rank;
    const std::int32_t id = call_id(m.func);
    if (id < 0) {
      unknown.insert(m.func);
      continue;
    }
    auto [sp, fresh] = span.try_emplace(m.rank, m.t_start, m.t_end);
    if (!fresh)
      sp->second.first = std::min(sp->second.first, m.t_start), sp->second.second = std::max(sp->second.second, m.t_end);
    trace::Event e;
    e.t_enter = m.t_start;
    e.t_exit = m.t_end;
    e.call = id;
    e.rank = m.rank;
    e.call_site = m.call_site;
    e.comm = m.comm;
    const bool completes = m.func.starts_with("MPI_Wait") || m.func.starts_with("MPI_Test");
    if (completes) {
      const std::vector<std::int64_t> requests = completed_requests(m, r.variant == "mitoshooks", pending);
      e.count = static_cast<std::int32_t>(std::max<std::size_t>(1, requests.size()));
      c.events.push_back(e);
      for (const std::int64_t request : requests) {
        trace::Event done = pending.at(request);  // carries the bytes, tag and source of the receive
        done.call = completion;
        done.t_enter = done.t_exit = m.t_end;
        done.count = 0;
        done.buffer = 0;
        done.extent = 0;
        c.events.push_back(done);
        pending.erase(request);
      }
      continue;
    }
    e.buffer = m.buffer;
    e.bytes = m.count * m.dtype_size;
    e.extent = e.bytes;
    e.count = static_cast<std::int32_t>(m.count);
    e.peer = m.peer;
    e.tag = m.tag;
    e.request = m.func.starts_with("MPI_I") ? m.request : -1;
    c.events.push_back(e);
    if (e.request >= 0) pending[e.request] = e;
  }
  // Samples: their rank, else by pid (sorted pids as ranks, where there are as many), else the rank
  // whose receive buffer holds the address (the published tool assigns samples by address alone).
  std::set<std::int64_t> pids;
  bool all_ranked = true;
  for (const MitosSample& s : r.samples) all_ranked = all_ranked && s.rank >= 0, pids.insert(s.pid);
  const bool by_pid = !all_ranked && static_cast<int>(pids.size()) == c.ranks;
  std::multimap<std::uint64_t, std::pair<std::uint64_t, int>> buffers;  // start -> end, rank
  std::uint64_t widest = 0;
  for (const trace::Event& e : c.events)
    if (e.extent > 0 && e.call != completion) {
      buffers.emplace(e.buffer, std::pair(e.buffer + static_cast<std::uint64_t>(e.extent), e.rank));
      widest = std::max(widest, static_cast<std::uint64_t>(e.extent));
    }
  std::vector<trace::SampleRecord> samples;
  for (const MitosSample& s : r.samples) {
    trace::SampleRecord o;
    o.time = s.time;
    o.ip = s.ip;
    o.addr = s.addr;
    o.weight = s.cycles;
    o.level = s.level;
    o.cpu = s.cpu;
    o.tid = static_cast<std::int32_t>(s.pid);
    o.hit = is_cache(s.level) ? 1 : s.level == 5 ? -1 : 0;
    o.data_src = static_cast<std::uint64_t>(s.prefetch ? PERF_MEM_OP_PFETCH : PERF_MEM_OP_LOAD) << PERF_MEM_OP_SHIFT;
    o.rank = s.rank;
    if (o.rank < 0 && by_pid) o.rank = static_cast<int>(std::distance(pids.begin(), pids.find(s.pid)));
    if (o.rank < 0) o.rank = rank_by_address(buffers, widest, s.addr);
    o.rank = std::clamp(o.rank, 0, c.ranks - 1);
    samples.push_back(o);
  }
  std::stable_sort(samples.begin(), samples.end(),
                   [](const auto& a, const auto& b) { return std::tie(a.rank, a.time) < std::tie(b.rank, b.time); });
  c.samples = std::move(samples);
  c.level_names = kMitosLevelNames;
  c.sample_status =
      fmt::format("active: imported from Mitos ({}){}{}", r.variant,
                  r.variant == "simulator" ? ", every load a sample, period 1" : "", r.prefetch_known ? ", prefetch known" : "");
  // Counters: per rank, zero at its first event and the totals at its last; whole-run totals on rank 0.
  std::set<std::string> names;
  for (const auto& [rk, values] : r.counters)
    for (const auto& [name, v] : values) names.insert(name);
  names.erase("time");
  if (!names.empty()) {
    c.counter_events.assign(names.begin(), names.end());
    c.counter_status = fmt::format("imported from Mitos ({}): whole-run totals", r.variant);
    for (const auto& [rk, values] : r.counters) {
      const int at = std::clamp(rk, 0, c.ranks - 1);
      const auto s = span.count(at) ? span[at] : std::pair<double, double>{0, 0};
      for (int row = 0; row < 2; ++row) {
        c.counter_time.push_back(row == 0 ? s.first : s.second);
        c.counter_iteration.push_back(-1);
        c.counter_rank.push_back(at);
        for (const std::string& n : c.counter_events) {
          const auto v = values.find(n);
          c.counter_values.push_back(v == values.end() ? -1 : row == 0 ? 0 : static_cast<std::int64_t>(std::llround(v->second)));
        }
      }
    }
    // Rows by rank, as the trace's readers expect.
    std::vector<std::size_t> order(c.counter_rank.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return c.counter_rank[a] < c.counter_rank[b]; });
    auto t = c.counter_time;
    auto rk = c.counter_rank;
    auto vals = c.counter_values;
    const std::size_t n = c.counter_events.size();
    for (std::size_t i = 0; i < order.size(); ++i) {
      c.counter_time[i] = t[order[i]];
      c.counter_rank[i] = rk[order[i]];
      std::copy_n(vals.begin() + static_cast<std::ptrdiff_t>(order[i] * n), n,
                  c.counter_values.begin() + static_cast<std::ptrdiff_t>(i * n));
    }
  }
  nlohmann::json src;
  src["import"] = {{"from", "mitos"},
                   {"variant", r.variant},
                   {"conventions", r.variant == "simulator" ? "published" : "ripple"},
                   {"malformed_rows", r.malformed_rows},
                   {"notes", r.notes},
                   {"unknown_calls", std::vector<std::string>(unknown.begin(), unknown.end())}};
  c.sources = src.dump();
  return c;
}

}  // namespace ripple::analysis
