#include "ripple/analysis/cxl_predict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

#include "ripple/common/error.hpp"

namespace ripple::analysis {

void CxlCosts::add(const CxlCosts& o) {
  mpi_transfer += o.mpi_transfer;
  cxl_transfer += o.cxl_transfer;
  mpi_access += o.mpi_access;
  cxl_access += o.cxl_access;
  mpi_access_window += o.mpi_access_window;
  cxl_access_window += o.cxl_access_window;
  samples += o.samples;
  samples_window += o.samples_window;
  first_accesses += o.first_accesses;
}

namespace {

constexpr std::uint64_t kLine = 64;

void choose_weights(const CxlRun& run, const Machine& m, const CxlOptions& o, CxlResult& r) {
  if (o.weights) {
    r.weights = normalized(*o.weights);
    r.weights_how = "--weights";
    return;
  }
  if (run.counters_why.empty()) {
    CounterTotals c = run.counters;
    if (r.published) c.mlat_scale = 64;
    r.characterization = characterize(c, m);
    r.weights = r.characterization->weights;
    r.weights_how = "the trace's counters";
    return;
  }
  static const char* keys[] = {"WEIGHT_MBW", "WEIGHT_MLAT", "WEIGHT_CBW", "WEIGHT_CLAT", "WEIGHT_COMPUTE"};
  Weights w{};
  bool all = true;
  double sum = 0;
  for (int c = 0; c < kCategories; ++c) {
    all = all && m.has(keys[c]);
    w[c] = all ? m[keys[c]] : 0;
    sum += w[c];
  }
  if (all && sum > 0) {
    r.weights = normalized(w);
    r.weights_how = "the machine file's WEIGHT_* (no counters: " + run.counters_why + ")";
    return;
  }
  r.weights = {0, 0, 0, 0, 1};
  r.weights_how = "all Compute (no counters: " + run.counters_why + "; no --weights, no WEIGHT_* in the machine file)";
}

// A rank's receive buffer and its receives in time order.
struct BufferTrack {
  std::size_t buffer = 0;
  std::vector<std::size_t> receives;  // indices into run.receives, by t_done
};

// Costs the load samples of every buffer (both matchings), or, without samples, one load per
// line of the bytes received.
void cost_access(const CxlRun& run, const Machine& m, const CxlOptions& o, CxlResult& r, std::vector<BufferTrack>& tracks,
                 const std::vector<std::size_t>& buffer_of_receive) {
  const AccessParams p = AccessParams::of(m);
  const Weights later = r.weights, first = first_access_weights(r.weights);
  if (!run.samples_why.empty()) {
    r.access_how =
        "estimated from the bytes received, one load per 64-byte line at LOCAL_MEM_LAT as a miss (" + run.samples_why + ")";
    for (std::size_t i = 0; i < run.receives.size(); ++i) {
      const double lines = std::ceil(static_cast<double>(run.receives[i].bytes) / kLine);
      CxlCosts& c = r.buffers[buffer_of_receive[i]].costs;
      const double mpi = lines * mpi_access_ns(first, p.mem_lat, p);
      const double cxl = lines * cxl_access_ns(first, Bracket::Miss, p.mem_lat, p, o.unpack);
      c.mpi_access += mpi;
      c.cxl_access += cxl;
      c.mpi_access_window += mpi;
      c.cxl_access_window += cxl;
    }
    return;
  }
  r.access_how = "load samples matched to the receive buffers";
  r.sample_rate = r.published ? 1 : run.sample_rate;
  r.rate_how = r.published ? "1, the published tool's" : run.rate_how;
  const double ghz = m["CLOCK_GHZ"];
  if (ghz <= 0) throw InputError("CLOCK_GHZ must be > 0");
  std::map<int, std::vector<std::size_t>> by_rank;  // rank -> tracks
  for (std::size_t t = 0; t < tracks.size(); ++t) by_rank[r.buffers[tracks[t].buffer].rank].push_back(t);
  std::vector<std::size_t> order(run.samples.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(run.samples[a].rank, run.samples[a].time) < std::tie(run.samples[b].rank, run.samples[b].time);
  });
  std::unordered_set<std::uint64_t> seen;  // (track, instance, line) of first accesses, hashed
  for (std::size_t i : order) {
    const CxlSample& s = run.samples[i];
    auto it = by_rank.find(s.rank);
    if (it == by_rank.end()) continue;
    const BufferTrack* track = nullptr;  // the narrowest buffer that holds the address
    for (std::size_t t : it->second) {
      const CxlBuffer& b = r.buffers[tracks[t].buffer];
      if (s.addr >= b.address && s.addr - b.address < static_cast<std::uint64_t>(b.extent) &&
          (track == nullptr || b.extent < r.buffers[track->buffer].extent))
        track = &tracks[t];
    }
    if (track == nullptr) continue;
    // The last receive into the buffer that completed at or before the sample.
    const auto& rv = track->receives;
    const auto after =
        std::upper_bound(rv.begin(), rv.end(), s.time, [&](double t, std::size_t k) { return t < run.receives[k].t_done; });
    const std::ptrdiff_t k = (after - rv.begin()) - 1;
    bool is_first = false;
    if (k >= 0) {
      const std::uint64_t key = (static_cast<std::uint64_t>(track - tracks.data()) * 0x9e3779b97f4a7c15ull) ^
                                (static_cast<std::uint64_t>(k) << 40) ^ (s.addr / kLine);
      is_first = seen.insert(key).second;
    }
    const bool in_window = k >= 0 && (after == rv.end() || s.time < run.receives[*after].t_post);
    const Weights& w = is_first && !r.published ? first : later;
    const double lat = s.cycles / ghz;
    const double mpi = r.sample_rate * mpi_access_ns(w, lat, p);
    const double cxl = r.sample_rate * cxl_access_ns(w, s.bracket, lat, p, o.unpack);
    CxlCosts& c = r.buffers[track->buffer].costs;
    c.mpi_access += mpi;
    c.cxl_access += cxl;
    ++c.samples;
    c.first_accesses += is_first;
    if (in_window) {
      c.mpi_access_window += mpi;
      c.cxl_access_window += cxl;
      ++c.samples_window;
    }
  }
}

}  // namespace

CxlResult predict_cxl(const CxlRun& run, const Machine& m, const CxlOptions& o) {
  if (!(o.unpack >= 0 && o.unpack <= 1)) throw InputError("--unpack must be within [0, 1]");
  CxlResult r;
  r.trace = run.path;
  r.ranks = run.ranks;
  r.duration = run.duration;
  r.matching = o.matching;
  r.unpack = o.unpack;
  r.machine = m;
  r.capacity = o.capacity;
  r.published = o.conventions == Conventions::Published || (o.conventions == Conventions::Auto && run.conventions == "published");
  choose_weights(run, m, o, r);
  // Buffers and groups; transfer costs per receive.
  std::map<std::tuple<int, std::uint64_t, std::int64_t>, std::size_t> buffer_index;
  std::map<std::pair<std::uint64_t, int>, std::size_t> group_index;
  std::vector<std::size_t> buffer_of(run.receives.size());
  std::vector<BufferTrack> tracks;
  std::vector<std::map<std::size_t, std::int64_t>> groups_of_buffer;  // buffer -> group -> receives
  const double cxl_t = cxl_transfer_ns(m);
  for (std::size_t i = 0; i < run.receives.size(); ++i) {
    const CxlReceive& rc = run.receives[i];
    auto [bit, bnew] = buffer_index.try_emplace({rc.rank, rc.buffer, rc.extent}, r.buffers.size());
    if (bnew) {
      r.buffers.push_back({rc.rank, rc.buffer, rc.extent, 0, rc.tag, {}});
      tracks.push_back({bit->second, {}});
      groups_of_buffer.emplace_back();
    }
    // The same call site on every rank: ASLR moves a program by whole pages, so a site's offset in
    // its page is the same everywhere (two sites of one tag on the same offset would merge).
    auto [git, gnew] = group_index.try_emplace({rc.call_site & 0xfff, rc.tag}, 0);
    if (gnew) {
      git->second = r.groups.size();
      r.groups.push_back({rc.call_site, rc.tag, 0, 0, {}});
    }
    CxlBuffer& b = r.buffers[bit->second];
    buffer_of[i] = bit->second;
    tracks[bit->second].receives.push_back(i);
    ++groups_of_buffer[bit->second][git->second];
    ++b.receives;
    if (b.tag != rc.tag) b.tag = -1;
    b.costs.mpi_transfer += mpi_transfer_ns(rc.bytes, m);
    b.costs.cxl_transfer += cxl_t;
    CxlGroup& g = r.groups[git->second];
    ++g.receives;
    g.bytes += rc.bytes;
  }
  for (BufferTrack& t : tracks)
    std::stable_sort(t.receives.begin(), t.receives.end(),
                     [&](std::size_t a, std::size_t b) { return run.receives[a].t_done < run.receives[b].t_done; });
  cost_access(run, m, o, r, tracks, buffer_of);
  // A buffer's costs go to its groups in proportion to its receives in each.
  for (std::size_t b = 0; b < r.buffers.size(); ++b)
    for (const auto& [g, n] : groups_of_buffer[b]) {
      const double f = static_cast<double>(n) / static_cast<double>(r.buffers[b].receives);
      const CxlCosts& c = r.buffers[b].costs;
      CxlCosts part{c.mpi_transfer * f,
                    c.cxl_transfer * f,
                    c.mpi_access * f,
                    c.cxl_access * f,
                    c.mpi_access_window * f,
                    c.cxl_access_window * f,
                    0,
                    0,
                    0};
      if (n == r.buffers[b].receives) part = c;  // exact where one group holds them all
      r.groups[g].costs.add(part);
    }
  std::sort(r.groups.begin(), r.groups.end(), [](const CxlGroup& a, const CxlGroup& b) {
    return std::pair(a.call_site & 0xfff, a.tag) < std::pair(b.call_site & 0xfff, b.tag);
  });
  for (const CxlBuffer& b : r.buffers) r.total.add(b.costs);
  const double saved = (r.total.mpi(o.matching) - r.total.cxl(o.matching)) * 1e-9 / std::max(1, r.ranks);
  if (r.duration > 0 && r.duration - saved > 0) r.speedup = r.duration / (r.duration - saved);
  if (r.duration > 0 && r.duration - saved <= 0)
    r.notes.push_back("the predicted saving exceeds the run's duration: speed-up not defined (shown as 1)");
  std::stable_sort(r.buffers.begin(), r.buffers.end(), [&](const CxlBuffer& a, const CxlBuffer& b) {
    return a.benefit(o.matching) / static_cast<double>(a.extent) > b.benefit(o.matching) / static_cast<double>(b.extent);
  });
  if (o.capacity >= 0) {
    std::vector<PlanItem> items;
    for (const CxlBuffer& b : r.buffers) items.push_back({b.extent, b.benefit(o.matching)});
    r.plan = plan_capacity(items, o.capacity);
  }
  if (run.receives_without_buffer > 0)
    r.notes.push_back(fmt::format("{} receives record no buffer (MPI_Sendrecv's receive halves, or none) and are left out",
                                  run.receives_without_buffer));
  if (run.samples_unknown_source > 0)
    r.notes.push_back(fmt::format("{} load samples say no data source and are left out", run.samples_unknown_source));
  return r;
}

}  // namespace ripple::analysis
