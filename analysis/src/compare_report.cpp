#include "ripple/analysis/compare_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "ripple/analysis/duration_text.hpp"
#include "ripple/analysis/stats.hpp"

namespace ripple::analysis {
namespace {

using json = nlohmann::ordered_json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
std::string percent(double v) { return std::isfinite(v) ? fmt::format("{:.1f} %", 100 * v) : "-"; }

// The wave of the largest source, and its front in a direction ("down", "up", "all"), if any.
const Wave* main_wave(const WavesResult& w) {
  const Wave* best = nullptr;
  for (const Wave& x : w.waves)
    if (best == nullptr || x.source.delay > best->source.delay) best = &x;
  return best;
}
const Front* front_of(const Wave* w, const char* direction) {
  if (w == nullptr) return nullptr;
  for (const Front& f : w->fronts)
    if (f.direction == direction) return &f;
  return nullptr;
}
std::string speed(const Front* f) {
  return f == nullptr || !std::isfinite(f->speed_iterations) ? "-" : fmt::format("{:.2f}", f->speed_iterations);
}

}  // namespace

std::string compare_text(const CompareResult& r) {
  const IterationTable& t = r.runs.front().table;
  std::string s = fmt::format("{}: {} ranks, {} iterations, mean iteration {}, largest injected delay {}\n", r.input, t.ranks,
                              t.iterations, duration_text(r.period), duration_text(r.delay));
  for (const std::string& n : r.notes) s += "  " + n + "\n";
  if (!r.pom_configs.empty()) {
    const PomFit& f = r.pom;
    s += fmt::format(
        "  oscillator model: {} oscillators, t_comp {} and t_comm {} (medians), {} (beta {}), kappa {} ({}), {} kick(s)\n",
        f.oscillators, duration_text(median(f.t_comp)), duration_text(median(f.t_comm)), f.beta == 2 ? "rendezvous" : "eager",
        f.beta, f.kappa(), f.one_wait ? "the longest distance: one wait per iteration" : "the sum of the distances",
        f.kicks.size());
    for (const ModelRun& run : r.runs)
      if (run.name.starts_with("POM"))
        s += fmt::format("    {}: v_p = {:.4g}/s{}\n", run.name, run.coupling,
                         run.name.ends_with("fitted") ? " (the best fit of the lags)"
                         : run.name == "POM wait"     ? " (its default steepness, 100 / T)"
                                                      : " (the paper's beta kappa / T)");
  }
  s += "  model             end error  lag error  wave from       speed down/up/all   idle hop 1 -> last    resync\n";
  for (const ModelRun& run : r.runs) {
    const Wave* w = main_wave(run.waves);
    const Front* all = front_of(w, "all");
    s += fmt::format(
        "  {:<17} {:>9}  {:>9}  {:<14}  {:>5}/{:>5}/{:>5}   {:>8} -> {:<8}   {}\n", run.name,
        run.name == "trace" ? "-" : percent(run.end_error), run.name == "trace" ? "-" : percent(run.lag_error),
        w == nullptr ? "no wave" : fmt::format("rank {}, it. {}", w->source.rank, w->source.iteration),
        speed(front_of(w, "down")), speed(front_of(w, "up")), speed(all),
        all == nullptr || all->amplitude.empty() ? "-" : duration_text(all->amplitude.front()),
        all == nullptr || all->amplitude.empty() ? "-" : duration_text(all->amplitude.back()),
        w == nullptr || w->resync_iteration < 0 ? std::string("-") : fmt::format("iteration {}", w->resync_iteration));
  }
  s +=
      "  (end error: RMS of end times against the trace over the mean iteration; lag error: RMS of the lags (end minus the\n"
      "   iteration's earliest end) against the trace over the largest injected delay; speed in ranks, or hops, per iteration)\n";
  return s;
}

std::string compare_json(const CompareResult& r) {
  json j = {{"schema", kCompareSchema},
            {"schema_version", kCompareVersion},
            {"input", r.input},
            {"period", number(r.period)},
            {"delay", number(r.delay)},
            {"params",
             {{"alpha", r.params.alpha},
              {"beta", r.params.beta},
              {"eager_same_node", r.params.eager_same_node},
              {"eager_other_node", r.params.eager_other_node}}},
            {"notes", r.notes}};
  if (!r.pom_configs.empty())
    j["pom"] = {{"t_comp", r.pom.t_comp},
                {"t_comm", r.pom.t_comm},
                {"beta", r.pom.beta},
                {"kappa", r.pom.kappa()},
                {"paper_coupling", r.pom.paper_coupling()},
                {"configs", r.pom_configs},
                {"edges_txt", r.pom.all_to_all ? std::string() : edges_text(r.pom)}};
  j["runs"] = json::array();
  for (const ModelRun& run : r.runs) {
    json arrivals = json::array();
    const Wave* w = main_wave(run.waves);
    if (w != nullptr)
      for (const Front& f : w->fronts)
        if (f.direction == "all")
          for (const Arrival& a : f.arrivals)
            arrivals.push_back({{"rank", a.rank}, {"iteration", a.iteration}, {"idle", number(a.idle)}});
    json fronts = json::object();
    if (w != nullptr)
      for (const Front& f : w->fronts)
        fronts[f.direction] = {{"speed", number(f.speed_iterations)},
                               {"reached_hops", f.reached_hops},
                               {"decay_per_hop", number(f.decay_per_hop)},
                               {"amplitude", f.amplitude}};
    const IterationTable& t = run.table;
    json end = json::array();
    for (int rank = 0; rank < t.ranks; ++rank) {
      json row = json::array();
      for (int c = 0; c < t.iterations; ++c) row.push_back(number(t.end[t.at(rank, c)]));
      end.push_back(std::move(row));
    }
    j["runs"].push_back(
        {{"name", run.name},
         {"coupling", run.coupling > 0 ? json(run.coupling) : json(nullptr)},
         {"end_error", number(run.end_error)},
         {"lag_error", number(run.lag_error)},
         {"first_iteration", t.first_iteration},
         {"wave", w == nullptr ? json(nullptr)
                               : json{{"rank", w->source.rank},
                                      {"iteration", w->source.iteration},
                                      {"delay", number(w->source.delay)},
                                      {"resync_iteration", w->resync_iteration >= 0 ? json(w->resync_iteration) : json(nullptr)},
                                      {"fronts", fronts},
                                      {"arrivals", arrivals}}},
         {"end", end}});
  }
  return j.dump(1) + "\n";
}

}  // namespace ripple::analysis
