#pragma once
// `ripple compare`: a traced run held against models of it (docs/compare.md). The trace's own
// iteration table, and those of the max-plus timeline model in `replay` (the trace's own compute:
// checks the dependency model) and `predict` (typical compute, the injected delays and fitted noise:
// what a model says without seeing the run), and of the Physical Oscillator Model fitted to the
// trace (with the paper's coupling, and the coupling that fits best), each with its idle waves, and
// their errors.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ripple/analysis/iteration_table.hpp"
#include "ripple/analysis/pom_fit.hpp"
#include "ripple/analysis/timeline_model.hpp"
#include "ripple/analysis/waves.hpp"

namespace ripple::analysis {

// Runs the oscillator model for a fit, a potential and a coupling strength (the paper's if none), and
// returns its iteration table, its times from the start of the first timed iteration. Given by the
// command, which has MPI (analysis/mpi).
using PomRunner = std::function<IterationTable(const PomFit&, const std::string& potential, std::optional<double> strength)>;

struct CompareOptions {
  bool maxplus = true;
  bool pom = true;
  std::vector<std::string> potentials{"tanh", "wait"};
  bool fit_coupling = false;
  std::int64_t eager_limit = -1;  // bytes; < 0: the trace's
  bool predict_noise = true;
  std::uint64_t seed = 1;
  WavesOptions waves;
};

struct ModelRun {
  std::string name;     // "trace", "max-plus replay", "max-plus predict", "POM tanh", ...
  double coupling = 0;  // the oscillator model's v_p, 1/s (0 for the others)
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
  PomFit pom;                            // when the oscillator model ran
  std::vector<std::string> pom_configs;  // its configurations (TOML), one per potential, the paper's coupling
  std::vector<std::string> notes;
  double period = 0;           // the trace's mean iteration time, s
  double delay = 0;            // its largest injected delay, s (0: none)
  std::vector<ModelRun> runs;  // the trace first
};

// The trace, the max-plus model's runs, and (options.pom) the oscillator model's fit. The same on
// every rank; InputError for a trace the models cannot use.
CompareResult compare_run(const std::string& trace_path, const CompareOptions& options);
// The oscillator model's runs through `pom` (collective where the runner is), for each potential,
// with the paper's coupling and (options.fit_coupling) the best fitting one.
void add_pom_runs(CompareResult& result, const CompareOptions& options, const PomRunner& pom);

// Per cell, the end minus the earliest end of its iteration over ranks (NaN where empty).
std::vector<double> lags(const IterationTable& t);

}  // namespace ripple::analysis
