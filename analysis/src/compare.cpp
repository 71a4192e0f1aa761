#include "ripple/analysis/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ripple/analysis/program.hpp"
#include "ripple/analysis/timeline_fit.hpp"
#include "ripple/analysis/trace_table.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"

namespace ripple::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The model's events, through the same table builder as the trace's.
IterationTable table_of(const Program& p, const std::vector<trace::Event>& events) {
  TraceTableBuilder builder(p.path, p.ranks, p.call_names);
  builder.add(events);
  return builder.finish();
}

// RMS over the cells both tables have of (a - b), the iterations matched by number.
double rms_difference(const IterationTable& a, const std::vector<double>& va, const IterationTable& b,
                      const std::vector<double>& vb) {
  double sum = 0;
  std::int64_t n = 0;
  for (int r = 0; r < std::min(a.ranks, b.ranks); ++r)
    for (int c = 0; c < a.iterations; ++c) {
      const int k = a.first_iteration + c - b.first_iteration;
      if (k < 0 || k >= b.iterations) continue;
      const double d = va[a.at(r, c)] - vb[b.at(r, k)];
      if (!std::isfinite(d)) continue;
      sum += d * d;
      ++n;
    }
  return n > 0 ? std::sqrt(sum / static_cast<double>(n)) : kNaN;
}

// The table's first `n` iterations (the model runs a little past the trace's last).
IterationTable first_columns(IterationTable t, int n) {
  if (t.iterations <= n) return t;
  IterationTable out = t;
  out.resize(t.ranks, t.first_iteration, n, t.has_messages());
  for (int r = 0; r < t.ranks; ++r)
    for (int c = 0; c < n; ++c) {
      out.end[out.at(r, c)] = t.end[t.at(r, c)];
      out.compute[out.at(r, c)] = t.compute[t.at(r, c)];
      out.wait[out.at(r, c)] = t.wait[t.at(r, c)];
    }
  return out;
}

// A model's table into the result: its waves, and its errors against the trace (the first run).
void add_run(CompareResult& result, std::string name, IterationTable table, const WavesOptions& waves) {
  ModelRun run;
  run.name = std::move(name);
  run.table = std::move(table);
  run.waves = analyze_waves(run.table, waves);
  const IterationTable& trace_table = result.runs.front().table;
  run.end_error = rms_difference(run.table, run.table.end, trace_table, trace_table.end) / result.period;
  run.lag_error =
      result.delay > 0 ? rms_difference(run.table, lags(run.table), trace_table, lags(trace_table)) / result.delay : kNaN;
  result.runs.push_back(std::move(run));
}

// The kicks where the model's own iterations are. fit_pom places them by the trace's clock (the
// iteration times the rank's traced period), but the model runs at its own pace (`wait` at its
// slowest rank's, `tanh` at its coupling's): over ten iterations a few per cent move a kick into
// the iteration before, and the model's wave then starts where the trace's did not. A run with the
// earlier kicks only says when the rank's iteration starts in the model; its kick goes into the
// middle of its compute there. One run per iteration that has kicks, in order: an earlier delay
// moves the later iterations.
PomFit with_placed_kicks(PomFit fit, const std::string& potential, std::optional<double> strength, const PomRunner& pom) {
  std::vector<PomFit::Kick> in_order = fit.kicks;
  std::stable_sort(in_order.begin(), in_order.end(),
                   [](const PomFit::Kick& a, const PomFit::Kick& b) { return a.column < b.column; });
  fit.kicks.clear();
  for (std::size_t first = 0; first < in_order.size();) {
    std::size_t last = first;
    while (last < in_order.size() && in_order[last].column == in_order[first].column) ++last;
    const IterationTable t = pom(fit, potential, strength);  // with the kicks placed so far
    for (std::size_t i = first; i < last; ++i) {
      PomFit::Kick k = in_order[i];
      if (k.column >= 0 && k.column < t.iterations && std::isfinite(t.end[t.at(k.rank, k.column)])) {
        const double start = t.start(k.rank, k.column), end = t.end[t.at(k.rank, k.column)];
        k.time = std::min(start + 0.5 * fit.t_comp[static_cast<std::size_t>(k.rank)], 0.5 * (start + end));
      }  // else the trace's clock's estimate stays
      fit.kicks.push_back(k);
    }
    first = last;
  }
  return fit;
}

}  // namespace

std::vector<double> lags(const IterationTable& t) {
  std::vector<double> out(t.end.size(), kNaN);
  for (int c = 0; c < t.iterations; ++c) {
    double earliest = HUGE_VAL;
    for (int r = 0; r < t.ranks; ++r)
      if (std::isfinite(t.end[t.at(r, c)])) earliest = std::min(earliest, t.end[t.at(r, c)]);
    for (int r = 0; r < t.ranks; ++r) out[t.at(r, c)] = t.end[t.at(r, c)] - earliest;
  }
  return out;
}

CompareResult compare_run(const std::string& trace_path, const CompareOptions& o) {
  CompareResult result;
  result.input = trace_path;
  ModelRun measured;
  measured.name = "trace";
  measured.table = table_from_trace(trace_path);
  measured.waves = analyze_waves(measured.table, o.waves);
  measured.end_error = measured.lag_error = kNaN;
  const IterationTable& t = measured.table;
  double first_end = HUGE_VAL, last_end = -HUGE_VAL;
  for (int r = 0; r < t.ranks; ++r) {
    if (std::isfinite(t.end[t.at(r, 0)])) first_end = std::min(first_end, t.start(r, 0));
    if (std::isfinite(t.end[t.at(r, t.iterations - 1)])) last_end = std::max(last_end, t.end[t.at(r, t.iterations - 1)]);
  }
  result.period = t.iterations > 0 && last_end > first_end ? (last_end - first_end) / t.iterations : kNaN;
  for (const auto& [key, seconds] : t.injected) result.delay = std::max(result.delay, seconds);
  // What the models would have to reproduce: ranks that depend on each other, and wait for each other.
  if (t.graph.edges() == 0 && !t.graph.all_to_all())
    throw InputError(
        fmt::format("{}: no point-to-point messages or collectives over all ranks in the timed iterations: nothing "
                    "for the models to fit",
                    trace_path));
  double longest_wait = 0;
  for (const double w : t.wait)
    if (std::isfinite(w)) longest_wait = std::max(longest_wait, w);
  if (!(longest_wait >= 0.01 * result.period))
    throw InputError(
        fmt::format("{}: the ranks never wait (at most {:.3g} s in an iteration, under 1 % of one): no dependency "
                    "for the models to reproduce",
                    trace_path, longest_wait));
  result.runs.push_back(std::move(measured));

  const auto add = [&](std::string name, IterationTable table) { add_run(result, std::move(name), std::move(table), o.waves); };
  if (!o.maxplus && !o.pom) return result;
  const Program p = read_program(trace_path);
  result.params = fit_timeline(p, o.eager_limit, result.notes);
  if (!p.core_sharing.empty())
    result.notes.push_back(
        fmt::format("{}: the models give every rank a core of its own; time a rank waits for a core "
                    "is in their call costs only on average",
                    p.core_sharing));
  if (o.maxplus) {
    if (p.unmatched > 0)
      result.notes.push_back(
          fmt::format("{} sends or receives without a partner in the trace: replayed without a dependency", p.unmatched));
    const OpTimes replay = replay_times(p);
    add("max-plus replay", table_of(p, run_timeline(p, result.params, replay.gap, replay.local, true)));
    const OpTimes predict = predict_times(p, o.predict_noise, o.seed);
    add("max-plus predict", table_of(p, run_timeline(p, result.params, predict.gap, predict.local)));
  }
  if (o.pom) result.pom = fit_pom(result.runs.front().table, p, result.params);
  return result;
}

void add_pom_runs(CompareResult& result, const CompareOptions& o, const PomRunner& pom) {
  const IterationTable trace_table = result.runs.front().table;  // a copy: result.runs grows below
  const std::vector<double> measured_lags = lags(trace_table);
  // The model's time 0 is the start of the trace's first timed iteration.
  double t0 = HUGE_VAL;
  for (int r = 0; r < trace_table.ranks; ++r)
    if (std::isfinite(trace_table.end[trace_table.at(r, 0)])) t0 = std::min(t0, trace_table.start(r, 0));
  const auto run = [&](const PomFit& fit, const std::string& potential, std::optional<double> strength) {
    IterationTable table = first_columns(pom(fit, potential, strength), trace_table.iterations);
    for (double& e : table.end) e += t0;
    table.first_iteration = trace_table.first_iteration;
    table.injected.clear();  // the kicks are the trace's delays: its own truth, by its numbers
    for (const auto& [key, seconds] : trace_table.injected) table.injected[key] = seconds;
    return table;
  };
  for (const std::string& potential : o.potentials) {
    const PomFit fit = with_placed_kicks(result.pom, potential, std::nullopt, pom);
    const double paper = fit.default_coupling(potential);
    result.pom_configs.push_back(pom_config(fit, potential, std::nullopt, "edges.txt", "pom.h5"));
    add_run(result, "POM " + potential, run(fit, potential, std::nullopt), o.waves);
    result.runs.back().coupling = paper;
    if (!o.fit_coupling) continue;
    // The coupling that fits the lags best: golden-section search on log v_p over [v/30, 30 v].
    const auto error = [&](double log_v) {
      const IterationTable model = run(fit, potential, std::exp(log_v));
      return rms_difference(model, lags(model), trace_table, measured_lags);
    };
    constexpr double kGolden = 0.6180339887498949;
    double a = std::log(paper / 30), b = std::log(paper * 30);
    double c = b - kGolden * (b - a), d = a + kGolden * (b - a), fc = error(c), fd = error(d);
    for (int k = 0; k < 14; ++k) {
      if (fc < fd) {
        b = d, d = c, fd = fc, c = b - kGolden * (b - a), fc = error(c);
      } else {
        a = c, c = d, fc = fd, d = a + kGolden * (b - a), fd = error(d);
      }
    }
    // The search kept the kicks placed at the paper's coupling; the fitted run places its own. Where
    // the lags hardly depend on the coupling (`wait`: a held process waits whatever the ramp's
    // strength), those kicks can fit a hair worse than the paper's run: the paper's coupling is a
    // candidate too, and the fitted run is the better of the two.
    const double best = std::exp(fc < fd ? c : d);
    IterationTable fitted = run(with_placed_kicks(result.pom, potential, best, pom), potential, best);
    const ModelRun& at_paper = result.runs.back();
    const bool paper_fits_better = rms_difference(fitted, lags(fitted), trace_table, measured_lags) >
                                   rms_difference(at_paper.table, lags(at_paper.table), trace_table, measured_lags);
    if (paper_fits_better) fitted = at_paper.table;
    add_run(result, fmt::format("POM {} fitted", potential), std::move(fitted), o.waves);
    result.runs.back().coupling = paper_fits_better ? paper : best;
  }
}

}  // namespace ripple::analysis
