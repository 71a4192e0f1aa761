#include "ripple/analysis/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ripple/analysis/program.hpp"
#include "ripple/analysis/timeline_fit.hpp"
#include "ripple/analysis/trace_table.hpp"
#include "ripple/common/error.hpp"

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
  const std::vector<double> measured_lags = lags(t);
  result.runs.push_back(std::move(measured));

  const auto add = [&](std::string name, IterationTable table) {
    ModelRun run;
    run.name = std::move(name);
    run.table = std::move(table);
    run.waves = analyze_waves(run.table, o.waves);
    const IterationTable& trace_table = result.runs.front().table;
    run.end_error = rms_difference(run.table, run.table.end, trace_table, trace_table.end) / result.period;
    run.lag_error =
        result.delay > 0 ? rms_difference(run.table, lags(run.table), trace_table, measured_lags) / result.delay : kNaN;
    result.runs.push_back(std::move(run));
  };
  if (o.maxplus) {
    const Program p = read_program(trace_path);
    result.params = fit_timeline(p, o.eager_limit, result.notes);
    if (p.unmatched > 0)
      result.notes.push_back(
          fmt::format("{} sends or receives without a partner in the trace: replayed without a dependency", p.unmatched));
    const OpTimes replay = replay_times(p);
    add("max-plus replay", table_of(p, run_timeline(p, result.params, replay.gap, replay.local, true)));
    const OpTimes predict = predict_times(p, o.predict_noise, o.seed);
    add("max-plus predict", table_of(p, run_timeline(p, result.params, predict.gap, predict.local)));
  }
  return result;
}

}  // namespace ripple::analysis
