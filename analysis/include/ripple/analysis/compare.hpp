#pragma once
// `ripple compare`: a traced run held against models of it (docs/compare.md). The trace's own
// iteration table, and those of the max-plus timeline model in `replay` (the trace's own compute:
// checks the dependency model) and `predict` (typical compute, the injected delays and fitted noise:
// what a model says without seeing the run), each with its idle waves, and their errors.
#include <cstdint>
#include <string>
#include <vector>

#include "ripple/analysis/iteration_table.hpp"
#include "ripple/analysis/timeline_model.hpp"
#include "ripple/analysis/waves.hpp"

namespace ripple::analysis {

struct CompareOptions {
  bool maxplus = true;
  bool pom = true;
  std::int64_t eager_limit = -1;  // bytes; < 0: the trace's
  bool predict_noise = true;
  std::uint64_t seed = 1;
  WavesOptions waves;
};

struct ModelRun {
  std::string name;  // "trace", "max-plus replay", "max-plus predict", ...
  IterationTable table;
  WavesResult waves;
  // Against the trace, over every rank and iteration both have: the RMS of the end times' difference
  // over the mean iteration time, and the RMS of the lags' (end minus the iteration's earliest end)
  // difference over the largest injected delay. NaN for the trace itself.
  double end_error = 0, lag_error = 0;
};

struct CompareResult {
  std::string input;
  TimelineParams params;
  std::vector<std::string> notes;
  double period = 0;           // the trace's mean iteration time, s
  double delay = 0;            // its largest injected delay, s (0: none)
  std::vector<ModelRun> runs;  // the trace first
};

CompareResult compare_run(const std::string& trace_path, const CompareOptions& options);

// Per cell, the end minus the earliest end of its iteration over ranks (NaN where empty).
std::vector<double> lags(const IterationTable& t);

}  // namespace ripple::analysis
