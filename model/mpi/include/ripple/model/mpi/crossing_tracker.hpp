#pragma once
// `[output] iterations`: finds, on the solver's continuous extension of every accepted step, the
// first time each local oscillator reaches each level 2π(k+1) (step_polynomial.hpp), and writes
// /iteration_end as the run goes, column by column, so that memory does not grow with K
// (crossing_log.hpp).
//
// Every rank sees the same steps and the same flush times, and each crossing comes from its own
// oscillator's values alone: /iteration_end is bitwise the same on any number of ranks.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "ripple/model/aligned_vector.hpp"
#include "ripple/model/crossing_log.hpp"
#include "ripple/model/mpi/sim_writer.hpp"
#include "ripple/model/step_polynomial.hpp"

namespace ripple::model {

// One accepted step [t_old, t_new] of the local phases.
struct StepView {
  double t_old = 0;
  double t_new = 0;
  const AlignedVector* x_old = nullptr;
  const AlignedVector* x_new = nullptr;
  // dopri5: the stepper's dense output at a time of the step (calc_state: per element, no MPI).
  // Empty for rk4: the cubic Hermite interpolant of x and of the derivatives f at both ends.
  std::function<void(double, AlignedVector&)> dense;
  const AlignedVector* f_old = nullptr;
  const AlignedVector* f_new = nullptr;
};

class CrossingTracker {
public:
  // Collective. `initial_phase`: θ_i(0) of the local oscillators, `omega` their natural
  // frequencies. A flush writes what is ready every `flush_periods` periods of the fastest
  // oscillator (0: every 2 periods from 2^19 oscillators on; smaller runs more seldom, so that
  // N (periods + 2) values take 16 MiB). The window of unwritten columns has room for 32 columns
  // (more if periods + 4 are more) and keeps what the next periods + 2 need free after a flush;
  // `window_columns` > 0 sets its length after a flush instead. Flush times cut steps into
  // windows; a crossing comes out the same whichever window finds it (first_crossing).
  CrossingTracker(MPI_Comm comm, SimWriter& writer, std::span<const double> initial_phase, std::span<const double> omega,
                  double t_end, double flush_periods, std::int64_t window_columns = 0);

  // The crossings of `step` up to `limit` (<= t_new: a step that overshoots its segment's end
  // counts up to that end only; the next segment starts there). Steps come in time order.
  // Collective: flushes at the flush times the step passes.
  void scan(const StepView& step, double limit);

  // Writes what is left. Collective. Returns K.
  std::int64_t finish();

  // For checkpoints (checkpoint.hpp): what a flush at a flush time writes, now (collective); the
  // log; the flushes done and the columns of /iteration_end so far.
  void flush_ready() { flush(false); }
  [[nodiscard]] const CrossingLog& log() const { return log_; }
  [[nodiscard]] std::int64_t flushes() const { return flushes_; }
  [[nodiscard]] std::int64_t extent() const { return extent_; }
  [[nodiscard]] std::int64_t window_columns() const { return schedule_.columns; }
  [[nodiscard]] std::int64_t window_room() const { return schedule_.room; }
  // Goes on from a checkpoint's log and counts.
  void restore(CrossingLog log, std::int64_t flushes, std::int64_t extent);

private:
  struct Schedule {
    double interval = 0;       // seconds between flushes
    std::int64_t columns = 0;  // CrossingLog's max_columns
    std::int64_t room = 1;     // and room
  };
  static Schedule schedule(MPI_Comm comm, std::size_t rows, std::span<const double> omega, double flush_periods,
                           std::int64_t window_columns);
  void scan_window(const StepView& step, double from, double to);
  void state_at(const StepView& step, double t, AlignedVector& out) const;
  // Writes the columns ready (all of them at the end) and the single cells. Collective.
  void flush(bool all);

  MPI_Comm comm_;
  SimWriter& writer_;
  Schedule schedule_;
  CrossingLog log_;
  double t_end_;
  std::int64_t flushes_ = 0;
  double next_flush_ = 0;
  std::int64_t extent_ = 0;                  // /iteration_end's columns so far
  AlignedVector at_end_, node_;              // all local phases at a window's end, at a dense-output node
  std::vector<std::size_t> candidates_;      // rows at or above their next level at a window's end
  std::vector<double> candidate_nodes_;      // dopri5: six values per candidate, node after node
  std::vector<StepPolynomial> polynomials_;  // of a block of candidates
  std::vector<double> starts_;               // where each looks for its next level
  std::vector<CrossingQuery> queries_;
  std::vector<double> block_;  // columns of the window, row-major, for one write
  std::vector<CrossingLog::Cell> cells_;
  std::vector<double> cell_values_;
};

}  // namespace ripple::model
