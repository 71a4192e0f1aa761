#pragma once
// The right-hand side of the one-sided `wait` potential for the oscillators one rank owns
// (docs/model.md). MPI-free, like RhsKernel, which hands it its delayed evaluations:
//
//   dtheta_i/dt = (omega_i + zeta_i) (1 - H_i),
//   H_i = min(1, (v_p / omega_i) max_j T_ij relu(theta_i(t) - B_i(theta_j(t - tau_ij)) + (1 + s) omega_i / v_p))
//   B_i(phi) = 2 pi (floor((phi - P_i) / 2 pi) + 2)
//
// Iteration k is the phase interval [2 pi k, 2 pi (k + 1)): compute up to the post point P_i, then
// communication. A process may finish iteration m + 1 only once it has seen its partner's post of
// iteration m + 1, tau (the message's latency) after the partner passed it: B_i is the end of the
// iteration it may not pass. It runs freely until (1 + s) omega_i / v_p radians before B_i, then
// the hold ramps from 0 to a full stop s omega_i / v_p before B_i (s = kWaitStopBefore): never
// backwards, never across. Holds combine by maximum: a process waits for its latest partner.
#include <cstdint>
#include <span>
#include <vector>

#include "ripple/model/config.hpp"
#include "ripple/model/delay_history.hpp"
#include "ripple/model/local_graph.hpp"

namespace ripple::model {

class WaitKernel {
public:
  // `omega` holds the local natural frequencies; `graph` must be in directed form.
  WaitKernel(const SimConfig& cfg, const LocalGraph& graph, std::span<const double> omega, double vp);

  // Partner phases theta_j(t - tau_ij) from the history (a uniform delay interpolates each column
  // once); `zeta` is the noise of the local rows, or null; `delay_interval` picks jittered delays.
  // The max over partners is taken from the smallest delayed partner phase: B_i and the
  // subtraction round monotonically, so that is bitwise the max of the relu terms, in any order.
  void evaluate(double t, const double* x, const DelayHistory& history, const double* zeta, std::int64_t delay_interval,
                double* dxdt);
  // The frozen reference: edge by edge, the max of the relu terms as the equation writes it, each
  // delayed phase looked up on its own. evaluate must return its bits.
  void evaluate_ref(double t, const double* x, const DelayHistory& history, const double* zeta, std::int64_t delay_interval,
                    double* dxdt);

  // Local rows that stand still (a kick of `wait` pauses a process instead of moving its phase
  // back, which would take back the posts it made), until the next call.
  void set_paused(std::vector<std::uint32_t> rows) { paused_ = std::move(rows); }

private:
  // dxdt of every local row from its excess relu(x_i - hold_start_i(latest_i)), with latest_i the
  // smallest delayed partner phase (+inf without partners: no excess, free running).
  void write_rows(const double* x, const double* zeta, double* dxdt) const;
  // latest_ from the delayed phase of every column, in edge order.
  void take_latest(const double* delayed);

  const SimConfig* cfg_;
  const LocalGraph* graph_;
  std::vector<double> omega_;
  std::vector<double> post_;       // P_i
  std::vector<double> ramp_;       // omega_i / v_p: the ramp's width in radians
  std::vector<double> steepness_;  // v_p / omega_i: H per radian of excess
  std::vector<double> delayed_;    // theta_j(t - tau) of every column (uniform delay)
  std::vector<double> latest_;     // per local row: the smallest delayed partner phase
  std::vector<double> excess_;     // reference: per local row, the largest relu term
  std::vector<std::uint32_t> paused_;
};

}  // namespace ripple::model
