#include "ripple/analysis/waves.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

namespace ripple::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Each rank's typical compute and wait, and how much they vary (median and MAD over iterations).
struct Baseline {
  std::vector<double> compute, compute_mad, wait, wait_mad;
};

Baseline baselines(const IterationTable& t) {
  Baseline b;
  for (int r = 0; r < t.ranks; ++r) {
    const std::span<const double> c(t.compute.data() + t.at(r, 0), static_cast<std::size_t>(t.iterations));
    const std::span<const double> w(t.wait.data() + t.at(r, 0), static_cast<std::size_t>(t.iterations));
    b.compute.push_back(median(c));
    b.compute_mad.push_back(mad(c));
    b.wait.push_back(median(w));
    b.wait_mad.push_back(mad(w));
  }
  return b;
}

// Sources: the input's injected delays that stand out of the noise (the truth), and the iterations
// whose compute stands out (detection, held to that truth). Waves are traced from the injected ones
// where there are any, else from the detected ones.
std::vector<Source> find_sources(const IterationTable& t, const Baseline& b, const WavesOptions& o, double floor, Detection& det,
                                 std::vector<std::string>& notes) {
  const auto threshold = [&](int r) { return o.k * b.compute_mad[static_cast<std::size_t>(r)] + floor; };
  std::map<std::pair<int, int>, Source> all;  // by (iteration, rank)
  det.floor = floor;
  det.has_truth = t.has_injected;
  for (const auto& [key, seconds] : t.injected) {
    const auto [r, it] = key;
    if (r < 0 || r >= t.ranks || !(seconds > threshold(r))) continue;
    all[{it, r}] = Source{r, it, seconds, true, false};
    ++det.injected;
  }
  for (int r = 0; r < t.ranks; ++r)
    for (int c = 0; c < t.iterations; ++c) {
      const double x = t.compute[t.at(r, c)] - b.compute[static_cast<std::size_t>(r)];
      if (!(x > threshold(r))) continue;
      ++det.detected;
      Source& s = all[{t.first_iteration + c, r}];
      if (s.injected) {
        ++det.matched;
      } else {
        s = Source{r, t.first_iteration + c, x, false, false};
        ++det.false_alarms;
      }
      s.detected = true;
    }
  det.missed = det.injected - det.matched;
  std::vector<Source> sources;
  const bool use_injected = det.injected > 0;
  for (const auto& [key, s] : all)
    if (use_injected ? s.injected : s.detected) sources.push_back(s);
  if (static_cast<int>(sources.size()) > o.max_sources) {
    notes.push_back(fmt::format("{} delay sources; the {} largest analysed", sources.size(), o.max_sources));
    std::stable_sort(sources.begin(), sources.end(), [](const Source& x, const Source& y) { return x.delay > y.delay; });
    sources.resize(static_cast<std::size_t>(o.max_sources));
    std::stable_sort(sources.begin(), sources.end(), [](const Source& x, const Source& y) {
      return x.iteration != y.iteration ? x.iteration < y.iteration : x.rank < y.rank;
    });
  }
  return sources;
}

class WaveTracer {
public:
  WaveTracer(const IterationTable& t, const Baseline& b, const WavesOptions& o, double floor)
      : t_(t), b_(b), o_(o), floor_(floor) {}

  // The idle beyond its median a rank had in a column (NaN if the cell is empty). In a cumulative
  // table (a simulation) free running is the baseline, and its wait is that excess already; but with
  // noise every iteration comes a little late, which summed up would reach the threshold before any
  // wave: there the median (the noise's typical delay) comes off too.
  [[nodiscard]] double excess(int r, int c) const {
    const double median = b_.wait[static_cast<std::size_t>(r)];
    return t_.wait[t_.at(r, c)] - (t_.cumulative ? std::max(0.0, median) : median);
  }
  [[nodiscard]] double noise(int r) const { return o_.k * b_.wait_mad[static_cast<std::size_t>(r)] + floor_; }

  Wave trace(const Source& s, int next_column) const {
    Wave w;
    w.source = s;
    const int col0 = s.iteration - t_.first_iteration;
    const std::vector<int> hops = t_.graph.hops_from(s.rank);
    const bool one_dimensional = in_rank_order(s.rank, hops);
    for (const char* direction : {"down", "up", "all"}) {
      if (!one_dimensional && std::string_view(direction) != "all") continue;
      std::map<int, std::vector<int>> by_hop;
      for (int r = 0; r < t_.ranks; ++r) {
        const int h = hops[static_cast<std::size_t>(r)];
        if (h <= 0) continue;
        const int off = t_.graph.offset(s.rank, r);
        const std::string d = direction;
        if ((d == "down" && off < 0) || (d == "up" && off > 0) || d == "all") by_hop[h].push_back(r);
      }
      if (!by_hop.empty()) w.fronts.push_back(front(s, col0, next_column, direction, by_hop));
    }
    resynchronise(w, col0, next_column);
    return w;
  }

private:
  // Whether the ranks lie in a line (or ring) as seen from the source, so that "down" and "up" mean
  // something: the hops grow with the distance in rank order each way. Not so on a grid (rank +1
  // and rank +px are both one hop), nor under collectives (every rank is one hop away).
  [[nodiscard]] bool in_rank_order(int source, const std::vector<int>& hops) const {
    if (t_.graph.all_to_all()) return false;
    std::vector<std::pair<int, int>> by_offset;  // (offset, hops)
    for (int r = 0; r < t_.ranks; ++r)
      if (hops[static_cast<std::size_t>(r)] > 0)
        by_offset.emplace_back(t_.graph.offset(source, r), hops[static_cast<std::size_t>(r)]);
    std::sort(by_offset.begin(), by_offset.end());
    for (std::size_t i = 1; i < by_offset.size(); ++i) {
      const auto &a = by_offset[i - 1], &b = by_offset[i];
      if (a.first < 0 && b.first < 0 && a.second < b.second) return false;  // nearer below, yet further
      if (a.first > 0 && b.first > 0 && a.second > b.second) return false;
    }
    return true;
  }

  // The first column in [lo, last] at which rank r has the wave, and the idle it took there; -1 if
  // none. Arrival: one iteration's excess idle above the thresholds, or (cumulative tables) the
  // excess accumulated since the source's column reaching the noise. Idle: that iteration's, or the
  // largest one iteration held before `stop` (the wave's height as it passed; the lag it left, which
  // the oscillators share in the end, says nothing about it).
  int arrival(const Source& s, int r, int col0, int lo, int last, int stop, double& idle) const {
    if (t_.cumulative) {
      double sum = 0, peak = 0;
      int found = -1;
      for (int c = col0; c < stop; ++c) {
        const double x = excess(r, c);
        if (std::isfinite(x)) sum += x, peak = std::max(peak, x);
        if (found < 0 && c > last) return -1;
        if (found < 0 && c >= lo && sum >= noise(r)) found = c;
      }
      idle = peak;
      return found;
    }
    // An idle wave carries at most its source's delay (plus noise): more idle at that place and
    // time belongs to a larger wave passing by, which would swallow this one there.
    const double wave_floor = o_.fraction * s.delay, wave_ceiling = 1.5 * s.delay;
    for (int c = lo; c <= last; ++c) {
      const double x = excess(r, c);
      if (!(x >= std::max(noise(r), wave_floor)) || x > wave_ceiling + noise(r)) continue;
      idle = x;
      return c;
    }
    return -1;
  }

  Front front(const Source& s, int col0, int stop, const std::string& direction,
              const std::map<int, std::vector<int>>& by_hop) const {
    Front f;
    f.direction = direction;
    int lo = col0, hi = col0;
    for (const auto& [h, ranks] : by_hop) {
      int nlo = std::numeric_limits<int>::max(), nhi = -1;
      double idle = 0;
      int n = 0;
      for (const int r : ranks) {
        const int last = std::min(hi + o_.max_hop_iterations, t_.iterations - 1);
        double x = 0;
        const int c = arrival(s, r, col0, lo, last, std::min(stop, t_.iterations), x);
        if (c >= 0) {
          const std::size_t at = t_.at(r, c);
          f.arrivals.push_back(
              {r, h, t_.graph.offset(s.rank, r), t_.first_iteration + c, x, t_.end[at] - std::max(0.0, t_.wait[at])});
          nlo = std::min(nlo, c);
          nhi = std::max(nhi, c);
          idle += x;
          ++n;
        }
      }
      if (n == 0) {
        f.died_at_hop = h;
        break;
      }
      f.amplitude.resize(static_cast<std::size_t>(h), kNaN);
      f.amplitude[static_cast<std::size_t>(h - 1)] = idle / n;
      f.reached_hops = h;
      lo = nlo;
      hi = nhi;
    }
    std::vector<double> distance, iteration, time, hop_of, amp;
    for (const Arrival& a : f.arrivals) {
      distance.push_back(direction == "all" ? a.hop : std::abs(a.offset));
      iteration.push_back(a.iteration);
      time.push_back(a.time);
    }
    f.by_iteration = fit_line(distance, iteration);
    f.by_time = fit_line(distance, time);
    // Arrivals all in one iteration have no speed: their times differ only by how the ranks' phases
    // lie within that iteration.
    const bool moved = f.by_iteration.slope > 0;
    f.speed_iterations = moved ? 1.0 / f.by_iteration.slope : kNaN;
    f.speed_seconds = moved && f.by_time.slope > 0 ? 1.0 / f.by_time.slope : kNaN;
    if (!moved) f.by_iteration.r2 = f.by_time.r2 = kNaN;
    for (std::size_t h = 0; h < f.amplitude.size(); ++h) {
      hop_of.push_back(static_cast<double>(h + 1));
      amp.push_back(f.amplitude[h]);
    }
    const LineFit decay = fit_line(hop_of, amp);
    f.decay_per_hop = -decay.slope;
    f.decay_relative = f.amplitude.empty() ? kNaN : f.decay_per_hop / f.amplitude[0];
    return f;
  }

  // The first column from which the ranks stay in step for three iterations, before the next
  // source disturbs them again (-1 if that never happens, or cannot be seen for three iterations
  // before it). In step: every rank's excess idle within its noise; in a cumulative table, the
  // ranks' lags since the source (accumulated excess idle, and the source's delay on its rank)
  // within the noise of each other.
  void resynchronise(Wave& w, int col0, int next_column) const {
    const int window = 3;
    const int stop = std::min(next_column, t_.iterations);
    std::vector<char> quiet(static_cast<std::size_t>(std::max(stop - col0, 0)), 1);
    std::vector<double> lag(static_cast<std::size_t>(t_.ranks), 0.0);
    double widest_noise = 0;
    for (int r = 0; r < t_.ranks; ++r) widest_noise = std::max(widest_noise, noise(r));
    lag[static_cast<std::size_t>(w.source.rank)] = w.source.delay;
    for (int c = col0; c < stop; ++c) {
      double lo = HUGE_VAL, hi = -HUGE_VAL;
      for (int r = 0; r < t_.ranks; ++r) {
        const double x = excess(r, c);
        if (!t_.cumulative) {
          if (x >= noise(r)) quiet[static_cast<std::size_t>(c - col0)] = 0;
          continue;
        }
        if (std::isfinite(x)) lag[static_cast<std::size_t>(r)] += x;
        lo = std::min(lo, lag[static_cast<std::size_t>(r)]);
        hi = std::max(hi, lag[static_cast<std::size_t>(r)]);
      }
      if (t_.cumulative && !(hi - lo < widest_noise)) quiet[static_cast<std::size_t>(c - col0)] = 0;
    }
    for (int c = col0; c < stop && (c + window <= stop || stop == t_.iterations); ++c) {
      bool still = true;
      for (int k = c; k < std::min(c + window, stop); ++k) still = still && quiet[static_cast<std::size_t>(k - col0)] != 0;
      if (!still) continue;
      w.resync_iteration = t_.first_iteration + c;
      double latest = -HUGE_VAL;
      for (int r = 0; r < t_.ranks; ++r) latest = std::max(latest, t_.start(r, c));
      w.resync_seconds = latest - t_.start(w.source.rank, col0);
      return;
    }
  }

  const IterationTable& t_;
  const Baseline& b_;
  const WavesOptions& o_;
  double floor_;
};

const Front* find_front(const Wave& w, const char* direction) {
  for (const Front& f : w.fronts)
    if (f.direction == direction) return &f;
  return nullptr;
}

// A periodic wave's two fronts meet on the far side and annihilate; two sources' facing fronts
// (in rank order) meet where their positions touch, and the stronger may go on with the difference.
std::vector<Meeting> meetings(const IterationTable& t, const std::vector<Wave>& waves) {
  std::vector<Meeting> out;
  if (t.graph.all_to_all()) return out;
  for (std::size_t i = 0; i < waves.size(); ++i) {
    const Front *down = find_front(waves[i], "down"), *up = find_front(waves[i], "up");
    if (!t.graph.periodic() || down == nullptr || up == nullptr || down->died_at_hop >= 0 || up->died_at_hop >= 0) continue;
    if (down->arrivals.empty() || up->arrivals.empty()) continue;
    const Arrival &a = down->arrivals.back(), &b = up->arrivals.back();
    out.push_back(
        {static_cast<int>(i), static_cast<int>(i), a.rank, b.rank, std::max(a.iteration, b.iteration), a.idle, b.idle, 0.0, -1});
  }
  if (t.graph.periodic()) return out;
  std::vector<std::size_t> order(waves.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return waves[a].source.rank < waves[b].source.rank; });
  for (std::size_t k = 0; k + 1 < order.size(); ++k) {
    const Wave &wa = waves[order[k]], &wb = waves[order[k + 1]];
    const Front *up = find_front(wa, "up"), *down = find_front(wb, "down");
    if (up == nullptr || down == nullptr || wa.source.rank == wb.source.rank) continue;
    // Only fronts under way once both delays have happened can meet: the arrivals between the two
    // sources from the later source's iteration on.
    const int start = std::max(wa.source.iteration, wb.source.iteration);
    const auto between = [&](const Arrival& x) {
      return x.iteration >= start && x.rank > wa.source.rank && x.rank < wb.source.rank;
    };
    if (std::none_of(up->arrivals.begin(), up->arrivals.end(), between) ||
        std::none_of(down->arrivals.begin(), down->arrivals.end(), between))
      continue;
    const int last = std::max(up->arrivals.back().iteration, down->arrivals.back().iteration);
    for (int it = start; it <= last; ++it) {
      int pos_a = wa.source.rank, pos_b = wb.source.rank;
      double idle_a = 0, idle_b = 0;
      for (const Arrival& x : up->arrivals)
        if (between(x) && x.iteration <= it && x.rank > pos_a) pos_a = x.rank, idle_a = x.idle;
      for (const Arrival& x : down->arrivals)
        if (between(x) && x.iteration <= it && x.rank < pos_b) pos_b = x.rank, idle_b = x.idle;
      if (pos_a + 1 < pos_b) continue;
      Meeting m{static_cast<int>(order[k]), static_cast<int>(order[k + 1]), pos_a, pos_b, it, idle_a, idle_b, 0.0, -1};
      // What goes on beyond the meeting point afterwards: the mean idle of each front's later arrivals.
      const auto beyond = [&](const Front& f, bool upward) {
        double sum = 0;
        int n = 0;
        for (const Arrival& x : f.arrivals)
          if (x.iteration > it && (upward ? x.rank > std::max(pos_a, pos_b) : x.rank < std::min(pos_a, pos_b)))
            sum += x.idle, ++n;
        return n > 0 ? sum / n : 0.0;
      };
      const double ra = beyond(*up, true), rb = beyond(*down, false);
      if (ra > 0 || rb > 0) {
        m.residual = std::max(ra, rb);
        m.residual_wave = ra >= rb ? m.wave_a : m.wave_b;
      }
      out.push_back(m);
      break;
    }
  }
  return out;
}

}  // namespace

Desync desynchronisation(const IterationTable& t, double floor) {
  Desync d;
  std::vector<double> rank_index(static_cast<std::size_t>(t.ranks)), ends(static_cast<std::size_t>(t.ranks));
  for (int r = 0; r < t.ranks; ++r) rank_index[static_cast<std::size_t>(r)] = r;
  for (int c = 0; c < t.iterations; ++c) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int r = 0; r < t.ranks; ++r) {
      const double e = t.end[t.at(r, c)];
      ends[static_cast<std::size_t>(r)] = e;
      if (std::isfinite(e)) lo = std::min(lo, e), hi = std::max(hi, e);
    }
    const LineFit fit = fit_line(rank_index, ends);
    d.spread.push_back(hi >= lo ? hi - lo : kNaN);
    d.gradient.push_back(fit.slope);
    d.r2.push_back(fit.r2);
  }
  d.spread_median = median(d.spread);
  d.spread_max = 0;
  for (const double s : d.spread)
    if (std::isfinite(s)) d.spread_max = std::max(d.spread_max, s);
  // A wavefront: over the second half, a clear gradient (r2 >= 0.5, a lag above the floor across the
  // ranks) of one sign in most iterations.
  int positive = 0, negative = 0, n = 0;
  for (int c = t.iterations / 2; c < t.iterations; ++c, ++n) {
    const double g = d.gradient[static_cast<std::size_t>(c)];
    if (!(d.r2[static_cast<std::size_t>(c)] >= 0.5) || !(std::abs(g) * (t.ranks - 1) >= floor)) continue;
    (g > 0 ? positive : negative) += 1;
  }
  d.wavefront_fraction = n > 0 ? static_cast<double>(std::max(positive, negative)) / n : 0.0;
  d.wavefront = n > 0 && t.ranks > 2 && d.wavefront_fraction >= 0.8;
  return d;
}

WavesResult analyze_waves(const IterationTable& t, const WavesOptions& o) {
  WavesResult out;
  const Baseline b = baselines(t);
  std::vector<double> period(t.compute.size());
  for (std::size_t i = 0; i < period.size(); ++i) period[i] = t.compute[i] + t.wait[i];
  out.period_median = median(period);
  out.compute_median = median(t.compute);
  out.wait_median = median(t.wait);
  // The default floor: a tenth of the median compute phase, what a delay adds to (the period would
  // grow with slow communication, under load, and hide delays).
  const double typical = std::isfinite(out.compute_median) && out.compute_median > 0 ? out.compute_median : out.period_median;
  const double floor = o.floor >= 0 ? o.floor : (std::isfinite(typical) ? 0.1 * typical : 0.0);
  out.sources = find_sources(t, b, o, floor, out.detection, out.notes);
  const WaveTracer tracer(t, b, o, floor);
  for (std::size_t i = 0; i < out.sources.size(); ++i) {
    // The next source of a comparable size (one whose own wave this one's threshold would see) at a
    // later iteration ends this one's resynchronisation search.
    int next = t.iterations;
    for (std::size_t j = i + 1; j < out.sources.size(); ++j)
      if (out.sources[j].iteration > out.sources[i].iteration && out.sources[j].delay >= o.fraction * out.sources[i].delay) {
        next = out.sources[j].iteration - t.first_iteration;
        break;
      }
    out.waves.push_back(tracer.trace(out.sources[i], next));
  }
  out.meetings = meetings(t, out.waves);
  out.desync = desynchronisation(t, floor);
  return out;
}

}  // namespace ripple::analysis
