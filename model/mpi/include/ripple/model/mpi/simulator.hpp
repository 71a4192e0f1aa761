#pragma once
// Solves the oscillator model for a configuration, distributed over the ranks of a communicator,
// and writes the HDF5 output (docs/sim-format.md).
#include <mpi.h>

#include <cstdint>
#include <string>

#include "ripple/common/provenance.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/mpi/run_control.hpp"

namespace ripple::model {

struct SimOptions {
  bool force = false;           // overwrite an existing output file
  bool resume = false;          // go on from the output's checkpoint (checkpoint.hpp)
  bool progress = true;         // progress lines on rank 0 for long runs
  double progress_every = 2.0;  // seconds between progress lines
  // [output] iterations, for tests: periods of the fastest oscillator between writes of
  // /iteration_end, and columns its window keeps (0: CrossingTracker's choice).
  double iteration_flush_periods = 0.0;
  std::int64_t iteration_window_columns = 0;
  TestPause test_pause;  // for tests: where signals are sent (run_control.hpp)
};

struct SimStats {
  std::int64_t oscillators = 0;
  int ranks = 1;
  std::int64_t steps = 0;           // accepted steps
  std::int64_t rejected_steps = 0;  // dopri5 tries whose error was too large
  std::int64_t rhs_evaluations = 0;
  std::int64_t output_times = 0;
  double wall_seconds = 0;
  double final_time = 0;
  double final_order_parameter = 0;
  double final_phase_spread = 0;    // max_i theta_i - min_i theta_i at the end (radians)
  double final_lag_seconds = 0;     // phase spread in seconds of the mean period
  std::int64_t peak_rss_bytes = 0;  // summed over ranks
  std::int64_t peak_rss_bytes_max_rank = 0;
  std::int64_t iterations = -1;  // K of /iteration_end; -1 without [output] iterations
  std::string partition;
  std::string output_file;
  bool stopped = false;  // by a signal, after a checkpoint: exit with kResumableExitCode
};

// Collective over comm. Throws AgreedError (every rank) for bad input.
SimStats simulate(MPI_Comm comm, const SimConfig& cfg, const Provenance& provenance, const SimOptions& options);

// The summary JSON of a run (see docs/sim-format.md).
std::string summary_json(const SimStats& s);

}  // namespace ripple::model
