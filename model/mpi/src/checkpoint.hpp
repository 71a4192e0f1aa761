#pragma once
// Checkpoints of `ripple sim` (docs/sim-format.md, "Checkpoints"): the integrator's whole state
// between two steps, in global oscillator order, so that any number of ranks goes on from it
// exactly as the run that wrote it would have. Written collectively to OUTPUT.checkpoint.tmp, then
// renamed by rank 0: a checkpoint on disk is whole. Internal.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "local_model.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/mpi/crossing_tracker.hpp"

namespace ripple::model::detail {

// The scalars of the state, the same on every rank. The noise and jitter intervals and the kicks
// still to come follow from segment_start and the configuration.
struct CheckpointHeader {
  double time = 0;               // of the phases
  double segment_start = 0;      // where their segment began (begin_segment)
  double step_size = 0;          // of the next step (dopri5: its controller's proposal)
  std::int64_t next_output = 0;  // stored states written
  std::int64_t steps = 0;
  std::int64_t rejected_steps = 0;
  std::int64_t rhs_evaluations = 0;
  std::int64_t history_entries = -1;   // -1: no delay history
  std::int64_t crossing_flushes = -1;  // -1: no [output] iterations
  std::int64_t crossing_extent = 0;    // columns of /iteration_end so far
  std::int64_t crossing_first = 0;     // the first column of /crossing_window
  std::int64_t crossing_columns = 0;   // and its number of columns
};

std::string checkpoint_path(const SimConfig& cfg);

// Collective. The header's crossing fields are filled in here; `crossings` has flushed just before.
void write_checkpoint(MPI_Comm comm, const SimConfig& cfg, CheckpointHeader header, const LocalModel& m, const State& x,
                      const CrossingTracker* crossings);

// Collective, before anything is written: rank 0 checks that the checkpoint exists, opens, is of
// this configuration (the first key that differs is named; output.flush_seconds may) and has the
// shapes its header says. An InputError on every rank otherwise. Returns the header.
CheckpointHeader inspect_checkpoint(MPI_Comm comm, const SimConfig& cfg);

// Collective: this rank's phases into x, the delay history (ghost columns through the exchange) and
// the crossing log.
void read_checkpoint(MPI_Comm comm, const SimConfig& cfg, const CheckpointHeader& h, LocalModel& m, State& x,
                     CrossingTracker* crossings);

}  // namespace ripple::model::detail
