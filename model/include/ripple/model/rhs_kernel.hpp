#pragma once
// The right-hand side of the model for the oscillators one rank owns. MPI-free: the neighbour phases
// it reads (ghosts, mean-field sums, history) are prepared by the caller (model/mpi).
//
//   dtheta_i/dt = omega_i + zeta_i(t) - (v_p / M_i) * sum_j T_ij V(theta_i(t) - theta_j(t - tau_ij))
#include <cstdint>
#include <memory>
#include <vector>

#include "ripple/model/aligned_vector.hpp"
#include "ripple/model/block_plan.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/delay_history.hpp"
#include "ripple/model/local_graph.hpp"
#include "ripple/model/oscillators.hpp"
#include "ripple/model/wait_kernel.hpp"

namespace ripple::model {

struct RowOutput;  // the kernel's internals (rhs_kernel.cpp)
struct RowTerm;

class RhsKernel {
public:
  // `omega` holds the local natural frequencies.
  RhsKernel(const SimConfig& cfg, const LocalGraph& graph, std::vector<double> omega, double vp);

  // Undelayed coupling: the local phases x and the ghosts' phases (in ghost column order; null
  // without ghosts). Swept block by block (see BlockPlan): x, omega and dxdt stream through memory
  // once.
  void evaluate(double t, const double* x, const double* ghosts, double* dxdt);
  // The frozen reference of evaluate, reading every column from one array (local x, then ghosts):
  // edge-long passes, obviously in the order LocalGraph describes. evaluate must return its bits.
  void evaluate_ref(double t, const double* phases, double* dxdt);
  // All-to-all Kuramoto in O(N): sum_j sin(theta_i - theta_j) = sin(theta_i) C - cos(theta_i) S with
  // S = sum_j sin(theta_j), C = sum_j cos(theta_j) over all N oscillators; sin_x and cos_x hold
  // sin and cos of this rank's phases (sin_cos), which the caller also sums.
  void evaluate_mean_field(double t, const double* sin_x, const double* cos_x, double sum_sin, double sum_cos, double* dxdt);
  // Delayed coupling (directed graphs only): partner phases from the history, by column. The `wait`
  // potential (always delayed) is evaluated by its own kernel (WaitKernel).
  void evaluate_delayed(double t, const double* x, const DelayHistory& history, double* dxdt);

  // The noise interval and delay-jitter interval that the next evaluations lie in. The driver splits
  // time at their boundaries, so that the right-hand side is smooth within each of its steps.
  void set_intervals(std::int64_t noise, std::int64_t delay) {
    noise_interval_ = noise;
    delay_interval_ = delay;
  }

  // `wait` only: the local rows a kick pauses over the next evaluations (WaitKernel::set_paused).
  void set_paused(std::vector<std::uint32_t> rows) {
    if (wait_) wait_->set_paused(std::move(rows));
  }

  // Chain-like blocks in chunks that overlap tanh with the streams (chosen by the working set's size;
  // tests force either way, which must give the same bits).
  void set_interleave(bool on) { interleave_ = on; }

  [[nodiscard]] const AlignedVector& omega() const { return omega_; }

private:
  // Where a column's value is: local columns in `local`, ghost column c in ghost[c - n_local].
  struct Columns {
    const double* local;
    const double* ghost;
  };
  // The blocked kernel: V(left[a] - right[b]) for every edge, summed into the rows.
  void sweep(Columns left, Columns right, double* dxdt);
  // buffer_[k] = left[edge_a[k]] - right[edge_b[k]]: the argument of V for every edge.
  void differences(const double* left, const double* right);
  // V over buffer_, added to the rows, then dxdt.
  void accumulate(double* dxdt);
  // dxdt of the rows [begin, end) from their coupling sums (sum[0] is row begin's).
  void finish(std::size_t begin, std::size_t end, const double* sum, const double* zeta, double* dxdt) const;
  [[nodiscard]] RowOutput row_output(const double* zeta) const;
  bool two_affine_terms(const BlockPlan::Block& blk, const double* v, RowTerm* terms) const;
  void interleave_two_terms(const RowOutput& o, const BlockPlan::Block& blk, const double* l, const double* r, std::uint32_t buf,
                            std::uint32_t len, const RowTerm* t, double* dxdt);
  void finish_two_terms(const RowOutput& o, std::uint32_t r0, std::uint32_t r1, const RowTerm* t, std::size_t terms,
                        double* dxdt) const;
  [[nodiscard]] const double* zeta() { return noise_.active() ? noise_.at(noise_interval_) : nullptr; }
  // V applied element-wise, in place.
  void apply_potential(double* x, std::size_t n);

  const SimConfig* cfg_;
  const LocalGraph* graph_;
  AlignedVector omega_;
  double vp_;
  double fixed_norm_;  // M for normalization N or none
  NoiseField noise_;
  std::unique_ptr<WaitKernel> wait_;  // potential = "wait" only
  std::int64_t noise_interval_ = 0;
  std::int64_t delay_interval_ = 0;
  BlockPlan plan_;
  bool interleave_ = false;
  AlignedVector block_v_;        // V of one block's windows
  AlignedVector block_sums_;     // coupling sums of one block's rows
  std::vector<double> delayed_;  // scratch for a uniform delay
  std::vector<double> buffer_;   // V's argument, then V, for every edge
  std::vector<double> scratch_;  // bottleneck: sin(alpha x) of the block
  std::vector<double> sums_;     // coupling sum of every column
};

}  // namespace ripple::model
