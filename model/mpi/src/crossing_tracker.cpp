#include "ripple/model/mpi/crossing_tracker.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/model/step_polynomial.hpp"

namespace ripple::model {
namespace {

// A dopri5 step's dense output is a quintic in s per element: its two ends and four equally spaced
// values inside determine it.
constexpr std::size_t kNodes = 6;
// What the windows of all ranks together may take in a run of fewer than 2^19 oscillators (larger
// ones write every two periods).
constexpr double kWindowBytes = 16.0 * 1024 * 1024;

}  // namespace

CrossingTracker::Schedule CrossingTracker::schedule(MPI_Comm comm, std::size_t rows, std::span<const double> omega,
                                                    double flush_periods, std::int64_t window_columns) {
  double fastest = 0;
  for (const double w : omega) fastest = std::max(fastest, w);
  auto oscillators = static_cast<std::int64_t>(rows);
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &fastest, 1, MPI_DOUBLE, MPI_MAX, comm));
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &oscillators, 1, MPI_INT64_T, MPI_SUM, comm));
  double periods = flush_periods;
  if (periods <= 0) {
    // Small runs write seldom (each write is collective), so that N (periods + 2) values take about
    // 16 MiB; large ones every two periods. From N, not from a rank's rows: the flush times cut
    // steps into windows, and they must not depend on the number of ranks.
    const double fit = std::floor(kWindowBytes / (8.0 * static_cast<double>(oscillators))) - 2;
    periods = std::clamp(fit, 2.0, 4096.0);
  }
  Schedule s;
  s.interval = periods * 2.0 * std::numbers::pi / fastest;
  // The window holds how far the slowest rows lag, and what rows find between two writes (a period
  // brings one level, coupling may add a little): room for 32 columns (256 bytes per oscillator; a
  // power of two, CrossingLog's), which absorbs the spread that 100 periods of the benchmark chain
  // build up (bench/README.md), or for periods + 4 in runs that write seldom.
  const auto arriving = static_cast<std::int64_t>(std::ceil(periods)) + 2;
  std::int64_t room = 32;
  while (room < arriving + 2) room *= 2;
  s.columns = window_columns > 0 ? window_columns : room - arriving;
  s.room = window_columns > 0 ? 1 : room;
  return s;
}

CrossingTracker::CrossingTracker(MPI_Comm comm, SimWriter& writer, std::span<const double> initial_phase,
                                 std::span<const double> omega, double t_end, double flush_periods, std::int64_t window_columns)
    : comm_(comm),
      writer_(writer),
      schedule_(schedule(comm, initial_phase.size(), omega, flush_periods, window_columns)),
      log_(initial_phase, schedule_.columns, schedule_.room),
      t_end_(t_end) {
  next_flush_ = schedule_.interval < t_end_ ? schedule_.interval : HUGE_VAL;
}

void CrossingTracker::restore(CrossingLog log, std::int64_t flushes, std::int64_t extent) {
  log_ = std::move(log);
  flushes_ = flushes;
  extent_ = extent;
  const double next = static_cast<double>(flushes_ + 1) * schedule_.interval;  // as scan() computes it
  next_flush_ = next < t_end_ ? next : HUGE_VAL;
}

void CrossingTracker::scan(const StepView& step, double limit) {
  RIPPLE_VERIFY(step.t_old <= limit && limit <= step.t_new, "CrossingTracker::scan: limit outside the step");
  double from = step.t_old;
  while (next_flush_ <= limit) {
    if (next_flush_ > from) {
      scan_window(step, from, next_flush_);
      from = next_flush_;
    }
    flush(false);
    const double next = static_cast<double>(++flushes_ + 1) * schedule_.interval;
    next_flush_ = next < t_end_ ? next : HUGE_VAL;  // the last flush is finish()'s
  }
  if (limit > from) scan_window(step, from, limit);
}

void CrossingTracker::scan_window(const StepView& step, double from, double to) {
  const std::size_t n = log_.rows();
  const AlignedVector* end = step.x_new;
  if (to != step.t_new) {
    state_at(step, to, at_end_);
    end = &at_end_;
  }
  // Which rows have reached a new level by `to`: from the state there, as the next window starts
  // from it. (A level the interpolant touches and leaves again inside a window is not counted; a
  // phase gone to infinity, which would pass every level, neither.)
  const std::span<const double> next = log_.next_levels();
  candidates_.clear();
  for (std::size_t l = 0; l < n; ++l)
    if ((*end)[l] >= next[l] && (*end)[l] <= std::numeric_limits<double>::max()) candidates_.push_back(l);
  if (candidates_.empty()) return;

  const double h = step.t_new - step.t_old;
  const auto s_of = [&](double t) { return (t - step.t_old) / h; };  // as calc_state computes it
  const std::size_t count = candidates_.size();
  std::array<double, kNodes> s{0, 0.2, 0.4, 0.6, 0.8, 1};  // rk4: unused
  if (step.dense) {  // the candidates' values at the nodes, node after node (vector passes below)
    candidate_nodes_.resize(count * kNodes);
    for (std::size_t j = 0; j < kNodes; ++j) {
      const AlignedVector* values = step.x_old;
      if (j + 1 == kNodes) {
        s[j] = 1.0;
        values = step.x_new;
      } else if (j > 0) {
        const double t = step.t_old + h * (static_cast<double>(j) / static_cast<double>(kNodes - 1));
        s[j] = s_of(t);
        node_.resize(n);
        step.dense(t, node_);
        values = &node_;
      }
      double* out = candidate_nodes_.data() + j * count;
      for (std::size_t c = 0; c < count; ++c) out[c] = (*values)[candidates_[c]];
    }
  }
  const StepNodes nodes = StepNodes::of(s);
  const double s_from = s_of(from);
  const double s_to = s_of(to);
  constexpr std::size_t kBlock = 256;  // candidates whose differences are taken together, in L1
  std::array<double, kNodes * kBlock> d;
  std::array<double, kNodes> y, coefficients;
  for (std::size_t first = 0; first < count; first += kBlock) {
    const std::size_t block = std::min(kBlock, count - first);
    if (step.dense) {
      std::array<double*, kNodes> rows;
      for (std::size_t j = 0; j < kNodes; ++j) {
        rows[j] = d.data() + j * kBlock;
        std::copy_n(candidate_nodes_.data() + j * count + first, block, rows[j]);
      }
      divided_differences(nodes, rows, block);
    }
    polynomials_.clear();
    for (std::size_t c = first; c < first + block; ++c) {
      const std::size_t l = candidates_[c];
      if (!step.dense) {
        polynomials_.push_back(
            StepPolynomial::hermite((*step.x_old)[l], h * (*step.f_old)[l], (*step.x_new)[l], h * (*step.f_new)[l]));
        continue;
      }
      for (std::size_t j = 0; j < kNodes; ++j) y[j] = candidate_nodes_[j * count + c];
      for (std::size_t j = 1; j < kNodes; ++j) coefficients[j - 1] = d[j * kBlock + (c - first)];
      polynomials_.push_back(StepPolynomial::through(nodes, y, std::span<const double>(coefficients.data(), kNodes - 1)));
    }
    // Rounds of one level per candidate: several may pass in one window (free oscillators take huge
    // steps), each looked for from where the one below was reached.
    starts_.assign(block, s_from);
    while (true) {
      queries_.clear();
      for (std::size_t i = 0; i < block; ++i) {
        const std::size_t l = candidates_[first + i];
        if ((*end)[l] >= next[l]) queries_.push_back({&polynomials_[i], next[l], starts_[i], s_to});
      }
      if (queries_.empty()) break;
      first_crossings(queries_);
      for (const CrossingQuery& q : queries_) {
        const auto i = static_cast<std::size_t>(q.p - polynomials_.data());
        // NaN: the state at `to` is at the level, the rounded polynomial just below it.
        const double s_cross = std::isnan(q.s) ? s_to : q.s;
        log_.record(candidates_[first + i], std::clamp(step.t_old + s_cross * h, from, to));
        starts_[i] = s_cross;
      }
    }
  }
}

void CrossingTracker::state_at(const StepView& step, double t, AlignedVector& out) const {
  const std::size_t n = log_.rows();
  out.resize(n);
  if (step.dense) {
    step.dense(t, out);
    return;
  }
  const double h = step.t_new - step.t_old;
  const double s = (t - step.t_old) / h;
  for (std::size_t l = 0; l < n; ++l)
    out[l] = StepPolynomial::hermite((*step.x_old)[l], h * (*step.f_old)[l], (*step.x_new)[l], h * (*step.f_new)[l])(s);
}

void CrossingTracker::flush(bool all) {
  const std::int64_t from = log_.written();
  const std::int64_t end = log_.writable(all);
  // K so far; the columns that some rank writes now (the first negated); whether any has cells.
  std::int64_t need[4] = {log_.max_reached(), end > from ? -from : -std::numeric_limits<std::int64_t>::max(), end,
                          log_.has_cells() ? 1 : 0};
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, need, 4, MPI_INT64_T, MPI_MAX, comm_));
  if (need[0] > extent_) {
    writer_.extend_iterations(need[0]);
    extent_ = need[0];
  }
  // One collective write per chunk column of the dataset, in which every rank writes the part of
  // its window that falls there (or nothing).
  const auto step = static_cast<std::int64_t>(writer_.iteration_chunk_columns());
  const std::size_t n = log_.rows();
  for (std::int64_t g = -need[1] - (-need[1]) % step; g < need[2]; g += step) {
    const std::int64_t lo = std::max(g, from);
    const std::int64_t hi = std::min(g + step, end);
    if (lo >= hi) {
      writer_.write_iteration_columns(0, 0, {});
    } else if (hi - lo == 1) {
      writer_.write_iteration_columns(lo, 1, log_.column(lo));
    } else {  // rows × columns, row-major
      const auto width = static_cast<std::size_t>(hi - lo);
      block_.resize(n * width);
      for (std::int64_t c = lo; c < hi; ++c) {
        const std::span<const double> v = log_.column(c);
        for (std::size_t l = 0; l < n; ++l) block_[l * width + static_cast<std::size_t>(c - lo)] = v[l];
      }
      writer_.write_iteration_columns(lo, hi - lo, block_);
    }
  }
  log_.mark_written(end);
  if (need[3] != 0) {
    cells_.clear();
    cell_values_.clear();
    log_.take_cells(cells_, cell_values_);
    writer_.write_iteration_cells(cells_, cell_values_);
  }
}

std::int64_t CrossingTracker::finish() {
  flush(true);
  return extent_;
}

}  // namespace ripple::model
