#pragma once
// The right-hand side of the one-sided `wait` potential for the oscillators one rank owns
// (docs/model.md). MPI-free, like RhsKernel, which hands it its delayed evaluations:
//
//   dtheta_i/dt = (omega_i + zeta_i) (1 - H_i),
//   H_i = min(1, (v_p / omega_i) max_j T_ij relu(theta_i(t) - theta_j(t - tau_ij) - Delta_i))
//
// A process runs freely until it is more than Delta_i ahead of a partner's delayed phase, then it
// is held: H_i ramps from 0 to 1 (a full stop, never backwards) as the excess grows to 1/v_p
// seconds of its phase. Holds combine by maximum: a process waits for its latest partner.
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
  // The max over partners is taken as x_i minus the smallest delayed partner phase: subtraction
  // rounds monotonically, so that is bitwise the max of the relu terms, in any order of partners.
  void evaluate(double t, const double* x, const DelayHistory& history, const double* zeta, std::int64_t delay_interval,
                double* dxdt);
  // The frozen reference: edge by edge, the max of the relu terms as the equation writes it, each
  // delayed phase looked up on its own. evaluate must return its bits.
  void evaluate_ref(double t, const double* x, const DelayHistory& history, const double* zeta, std::int64_t delay_interval,
                    double* dxdt);

private:
  // dxdt of every local row from its excess relu(x_i - latest_i - Delta_i), with latest_i the
  // smallest delayed partner phase (+inf without partners: no excess, free running).
  void write_rows(const double* x, const double* zeta, double* dxdt) const;
  // latest_ from the delayed phase of every column, in edge order.
  void take_latest(const double* delayed);

  const SimConfig* cfg_;
  const LocalGraph* graph_;
  std::vector<double> omega_;
  std::vector<double> threshold_;  // Delta_i
  std::vector<double> steepness_;  // v_p / omega_i: H per radian of excess
  std::vector<double> delayed_;    // theta_j(t - tau) of every column (uniform delay)
  std::vector<double> latest_;     // per local row: the smallest delayed partner phase
  std::vector<double> excess_;     // reference: per local row, the largest relu term
};

}  // namespace ripple::model
