#include "ripple/analysis/waves_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ripple/analysis/duration_text.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::analysis {
namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t kTextWaves = 8;  // waves the text describes

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string fixed(double v, int digits) { return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : "-"; }

json front_json(const Front& f) {
  json arrivals = json::array();
  for (const Arrival& a : f.arrivals)
    arrivals.push_back({{"rank", a.rank},
                        {"hop", a.hop},
                        {"offset", a.offset},
                        {"iteration", a.iteration},
                        {"idle", number(a.idle)},
                        {"time", number(a.time)}});
  json amplitude = json::array();
  for (const double a : f.amplitude) amplitude.push_back(number(a));
  const bool all = f.direction == "all";
  return {{"direction", f.direction},
          {"reached_hops", f.reached_hops},
          {"died_at_hop", f.died_at_hop >= 0 ? json(f.died_at_hop) : json(nullptr)},
          {"speed",
           {{all ? "hops_per_iteration" : "ranks_per_iteration", number(f.speed_iterations)},
            {all ? "hops_per_second" : "ranks_per_second", number(f.speed_seconds)},
            {"r2_iteration", number(f.by_iteration.r2)},
            {"r2_time", number(f.by_time.r2)}}},
          {"amplitude", amplitude},
          {"decay_per_hop", number(f.decay_per_hop)},
          {"decay_relative", number(f.decay_relative)},
          {"arrivals", arrivals}};
}

json source_json(const Source& s) {
  return {{"rank", s.rank},
          {"iteration", s.iteration},
          {"delay", number(s.delay)},
          {"injected", s.injected},
          {"detected", s.detected}};
}

// Rows of a per-cell column as a [ranks][iterations] array.
template <class T>
json rows(const IterationTable& t, const std::vector<T>& v) {
  json out = json::array();
  for (int r = 0; r < t.ranks; ++r) {
    json row = json::array();
    for (int c = 0; c < t.iterations; ++c) {
      if constexpr (std::is_floating_point_v<T>)
        row.push_back(number(v[t.at(r, c)]));
      else
        row.push_back(v[t.at(r, c)]);
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

std::string waves_json(const IterationTable& t, const WavesResult& w, const WavesOptions& o) {
  json j = {{"schema", kWavesSchema},
            {"schema_version", kWavesVersion},
            {"input", t.input},
            {"source", source_name(t.source)},
            {"description", t.description},
            {"ranks", t.ranks},
            {"first_iteration", t.first_iteration},
            {"iterations", t.iterations},
            {"graph",
             {{"description", t.graph.description()},
              {"edges", t.graph.edges()},
              {"periodic", t.graph.periodic()},
              {"all_to_all", t.graph.all_to_all()}}},
            {"period_median", number(w.period_median)},
            {"compute_median", number(w.compute_median)},
            {"wait_median", number(w.wait_median)},
            {"options",
             {{"k", o.k},
              {"floor", number(w.detection.floor)},
              {"fraction", o.fraction},
              {"max_hop_iterations", o.max_hop_iterations}}}};
  const Detection& d = w.detection;
  j["detection"] = {{"has_truth", d.has_truth}, {"injected", d.injected},         {"detected", d.detected},
                    {"matched", d.matched},     {"false_alarms", d.false_alarms}, {"missed", d.missed}};
  j["sources"] = json::array();
  for (const Source& s : w.sources) j["sources"].push_back(source_json(s));
  j["waves"] = json::array();
  for (const Wave& wave : w.waves) {
    json fronts = json::array();
    for (const Front& f : wave.fronts) fronts.push_back(front_json(f));
    j["waves"].push_back({{"source", source_json(wave.source)},
                          {"fronts", fronts},
                          {"resync",
                           {{"iteration", wave.resync_iteration >= 0 ? json(wave.resync_iteration) : json(nullptr)},
                            {"seconds", wave.resync_iteration >= 0 ? number(wave.resync_seconds) : json(nullptr)}}}});
  }
  j["meetings"] = json::array();
  for (const Meeting& m : w.meetings)
    j["meetings"].push_back({{"waves", {m.wave_a, m.wave_b}},
                             {"ranks", {m.rank_a, m.rank_b}},
                             {"iteration", m.iteration},
                             {"idle", {number(m.idle_a), number(m.idle_b)}},
                             {"residual", number(m.residual)},
                             {"residual_wave", m.residual_wave >= 0 ? json(m.residual_wave) : json(nullptr)},
                             {"annihilated", m.residual_wave < 0}});
  json spread = json::array(), gradient = json::array(), r2 = json::array();
  for (std::size_t c = 0; c < w.desync.spread.size(); ++c) {
    spread.push_back(number(w.desync.spread[c]));
    gradient.push_back(number(w.desync.gradient[c]));
    r2.push_back(number(w.desync.r2[c]));
  }
  j["desync"] = {{"spread", spread},
                 {"gradient", gradient},
                 {"r2", r2},
                 {"spread_median", number(w.desync.spread_median)},
                 {"spread_max", number(w.desync.spread_max)},
                 {"wavefront", w.desync.wavefront},
                 {"wavefront_fraction", number(w.desync.wavefront_fraction)}};
  json notes = t.notes;
  for (const std::string& n : w.notes) notes.push_back(n);
  j["notes"] = notes;
  if (static_cast<long>(t.ranks) * t.iterations <= kJsonTableCells) {
    json injected = json::array();
    for (const auto& [key, seconds] : t.injected) injected.push_back({key.first, key.second, number(seconds)});
    j["table"] = {{"end", rows(t, t.end)}, {"compute", rows(t, t.compute)}, {"wait", rows(t, t.wait)}, {"injected", injected}};
  } else {
    j["table"] = nullptr;
    j["notes"].push_back(
        fmt::format("the table ({} cells) is not in the JSON: see --csv", static_cast<long>(t.ranks) * t.iterations));
  }
  return j.dump(1) + "\n";
}

std::string waves_text(const IterationTable& t, const WavesResult& w, const WavesOptions& o) {
  std::string s = fmt::format("{}: {}, {}\n", t.input, source_name(t.source), t.description);
  s += fmt::format("  graph: {} ({} edges{}{})\n", t.graph.description(), t.graph.edges(), t.graph.periodic() ? ", periodic" : "",
                   t.graph.all_to_all() ? ", collectives over all ranks" : "");
  s += fmt::format("  iteration period {} (median compute {}, wait {})\n", duration_text(w.period_median),
                   duration_text(w.compute_median), duration_text(w.wait_median));
  for (const std::string& n : t.notes) s += "  note: " + n + "\n";
  for (const std::string& n : w.notes) s += "  note: " + n + "\n";
  const Detection& d = w.detection;
  s += fmt::format("delay sources: threshold {} MAD above each rank's median compute, plus {}\n", o.k, duration_text(d.floor));
  if (d.has_truth)
    s += fmt::format("  injected (ground truth) {}, detected {}: {} matched, {} false alarms, {} missed\n", d.injected,
                     d.detected, d.matched, d.false_alarms, d.missed);
  else
    s += fmt::format("  detected {} (the input carries no injected delays)\n", d.detected);
  if (w.waves.empty()) s += "  no delay source: no idle wave\n";
  // The largest waves in detail; a noisy run has many small ones (all of them in the JSON).
  std::vector<std::size_t> shown(w.waves.size());
  for (std::size_t i = 0; i < shown.size(); ++i) shown[i] = i;
  if (shown.size() > kTextWaves) {
    std::stable_sort(shown.begin(), shown.end(),
                     [&](std::size_t a, std::size_t b) { return w.waves[a].source.delay > w.waves[b].source.delay; });
    shown.resize(kTextWaves);
    std::sort(shown.begin(), shown.end());
    s += fmt::format("  the {} largest of {} waves (all of them: --json, --csv)\n", kTextWaves, w.waves.size());
  }
  for (const std::size_t i : shown) {
    const Wave& wave = w.waves[i];
    s += fmt::format("wave {}: rank {}, iteration {}, {} {}\n", i, wave.source.rank, wave.source.iteration,
                     duration_text(wave.source.delay), wave.source.injected ? "injected" : "detected");
    s += "  front  reached    per iteration  R^2      per second  idle at hop 1 -> last  decay per hop  end\n";
    for (const Front& f : wave.fronts) {
      const std::string unit = f.direction == "all" ? "hops" : "ranks";
      s += fmt::format("  {:<5}  {:>3} {:<4}  {:>6} {:<5}  {:>5}  {:>7} {:<5}  {:>9} -> {:<9}  {:>13}  {}\n", f.direction,
                       f.reached_hops, f.reached_hops == 1 ? "hop" : "hops", fixed(f.speed_iterations, 2), unit,
                       fixed(f.by_iteration.r2, 3), fixed(f.speed_seconds, 1), unit,
                       f.amplitude.empty() ? "-" : duration_text(f.amplitude.front()),
                       f.amplitude.empty() ? "-" : duration_text(f.amplitude.back()), duration_text(f.decay_per_hop),
                       f.died_at_hop >= 0 ? fmt::format("died at hop {}", f.died_at_hop) : std::string("reached the last rank"));
    }
    if (wave.resync_iteration >= 0)
      s += fmt::format("  back within the noise from iteration {} ({:.3g} s after the delay began)\n", wave.resync_iteration,
                       wave.resync_seconds);
    else
      s += "  not back within the noise before the next delay or the end\n";
  }
  for (const Meeting& m : w.meetings) {
    if (m.wave_a == m.wave_b)
      s += fmt::format("wave {}'s fronts met at ranks {} and {} in iteration {} and annihilated\n", m.wave_a, m.rank_a, m.rank_b,
                       m.iteration);
    else
      s += fmt::format("waves {} and {} met at ranks {}/{} in iteration {} (idle {} and {}): {}\n", m.wave_a, m.wave_b, m.rank_a,
                       m.rank_b, m.iteration, duration_text(m.idle_a), duration_text(m.idle_b),
                       m.residual_wave < 0 ? std::string("annihilated")
                                           : fmt::format("wave {} went on with {}", m.residual_wave, duration_text(m.residual)));
  }
  s += fmt::format("desynchronisation: end-time spread median {}, max {}; {}\n", duration_text(w.desync.spread_median),
                   duration_text(w.desync.spread_max),
                   w.desync.wavefront ? fmt::format("a computational wavefront (a lag gradient along the ranks in {:.0f}% of "
                                                    "the second half's iterations)",
                                                    100 * w.desync.wavefront_fraction)
                                      : std::string("no persistent lag gradient along the ranks"));
  return s;
}

void write_waves_csv(const std::string& dir, const IterationTable& t, const WavesResult& w) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("--csv {}: cannot make the directory ({})", dir, ec.message()));
  const auto num = [](double v) { return std::isfinite(v) ? fmt::format("{:.17g}", v) : std::string(); };
  std::string table = "rank,iteration,start,end,compute,wait,msgs_sent,bytes_sent,msgs_recv,bytes_recv,injected\n";
  for (int r = 0; r < t.ranks; ++r)
    for (int c = 0; c < t.iterations; ++c) {
      const std::size_t at = t.at(r, c);
      const int it = t.first_iteration + c;
      table += fmt::format("{},{},{},{},{},{},", r, it, num(t.start(r, c)), num(t.end[at]), num(t.compute[at]), num(t.wait[at]));
      table += t.has_messages()
                   ? fmt::format("{},{},{},{},", t.msgs_sent[at], t.bytes_sent[at], t.msgs_recv[at], t.bytes_recv[at])
                   : std::string(",,,,");
      table += num(t.injected_at(r, it)) + "\n";
    }
  write_text_file(dir + "/table.csv", table, "--csv");
  std::string sources = "wave,rank,iteration,delay,injected,detected,resync_iteration,resync_seconds\n";
  std::string arrivals = "wave,direction,rank,hop,offset,iteration,idle,time\n";
  for (std::size_t i = 0; i < w.waves.size(); ++i) {
    const Wave& x = w.waves[i];
    sources += fmt::format("{},{},{},{},{},{},{},{}\n", i, x.source.rank, x.source.iteration, num(x.source.delay),
                           x.source.injected ? 1 : 0, x.source.detected ? 1 : 0,
                           x.resync_iteration >= 0 ? std::to_string(x.resync_iteration) : "",
                           x.resync_iteration >= 0 ? num(x.resync_seconds) : "");
    for (const Front& f : x.fronts)
      for (const Arrival& a : f.arrivals)
        arrivals += fmt::format("{},{},{},{},{},{},{},{}\n", i, f.direction, a.rank, a.hop, a.offset, a.iteration, num(a.idle),
                                num(a.time));
  }
  write_text_file(dir + "/sources.csv", sources, "--csv");
  write_text_file(dir + "/arrivals.csv", arrivals, "--csv");
  std::string desync = "iteration,spread,gradient,r2\n";
  for (std::size_t c = 0; c < w.desync.spread.size(); ++c)
    desync += fmt::format("{},{},{},{}\n", t.first_iteration + static_cast<int>(c), num(w.desync.spread[c]),
                          num(w.desync.gradient[c]), num(w.desync.r2[c]));
  write_text_file(dir + "/desync.csv", desync, "--csv");
}

}  // namespace ripple::analysis
