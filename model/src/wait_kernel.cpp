#include "ripple/model/wait_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "ripple/common/error.hpp"
#include "ripple/model/isa_clones.hpp"
#include "ripple/model/oscillators.hpp"

namespace ripple::model {

WaitKernel::WaitKernel(const SimConfig& cfg, const LocalGraph& graph, std::span<const double> omega, double vp)
    : cfg_(&cfg), graph_(&graph), omega_(omega.begin(), omega.end()), latest_(graph.n_local()) {
  RIPPLE_VERIFY(!graph.symmetric, "the wait potential needs the directed form of the graph");
  RIPPLE_VERIFY(omega_.size() == graph.n_local(), "WaitKernel: one omega per local row");
  for (std::size_t l = 0; l < graph.n_local(); ++l) {
    post_.push_back(wait_post_phase(cfg, graph.local_ids[l]));
    // The hold starts no earlier than halfway through the communication part: a hold before a
    // process's own post would keep its partners from ever seeing it (all would stand still).
    const double ramp = std::min(omega_[l] / vp, (2.0 * std::numbers::pi - post_.back()) / (2.0 * (1.0 + kWaitStopBefore)));
    ramp_.push_back(ramp);
    steepness_.push_back(1.0 / ramp);
  }
}

namespace {
constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Where the hold starts: the ramp's width, and the gap before the full stop, before B_i(phi).
// Monotone in phi, so the smallest partner phase gives the earliest start.
inline double hold_start(double phi, double post, double ramp) {
  return kTwoPi * (std::floor((phi - post) / kTwoPi) + 2.0) - ramp * (1.0 + kWaitStopBefore);
}
}  // namespace

// Noise multiplies the whole rate: omega + zeta > 0 is the speed of a noisy process, and a held one
// (H = 1) stands still whatever its noise; omega (1 - H) + zeta would run it backwards.
RIPPLE_CLONES void WaitKernel::write_rows(const double* x, const double* zeta, double* dxdt) const {
  const std::size_t n = graph_->n_local();
  const double* omega = omega_.data();
  const double* post = post_.data();
  const double* ramp = ramp_.data();
  const double* steep = steepness_.data();
  const double* latest = latest_.data();
  if (zeta == nullptr) {
    for (std::size_t i = 0; i < n; ++i)
      dxdt[i] = omega[i] * (1.0 - std::min(1.0, steep[i] * std::max(x[i] - hold_start(latest[i], post[i], ramp[i]), 0.0)));
  } else {
    for (std::size_t i = 0; i < n; ++i)
      dxdt[i] =
          (omega[i] + zeta[i]) * (1.0 - std::min(1.0, steep[i] * std::max(x[i] - hold_start(latest[i], post[i], ramp[i]), 0.0)));
  }
  for (const std::uint32_t i : paused_) dxdt[i] = 0.0;
}

// Affine runs (a stencil's offset over consecutive rows) need no indices and vectorise.
RIPPLE_CLONES void WaitKernel::take_latest(const double* delayed) {
  const LocalGraph& g = *graph_;
  const std::uint32_t* a = g.edge_a.data();
  const std::uint32_t* b = g.edge_b.data();
  double* latest = latest_.data();
  std::fill(latest, latest + g.n_local(), HUGE_VAL);
  for (const auto& run : g.runs) {
    if (run.affine) {
      double* m = latest + a[run.begin];
      const double* y = delayed + b[run.begin];
      for (std::uint32_t k = 0; k < run.end - run.begin; ++k) m[k] = std::min(m[k], y[k]);
    } else {
      for (std::uint32_t k = run.begin; k < run.end; ++k) latest[a[k]] = std::min(latest[a[k]], delayed[b[k]]);
    }
  }
}

void WaitKernel::evaluate(double t, const double* x, const DelayHistory& history, const double* zeta, std::int64_t delay_interval,
                          double* dxdt) {
  const LocalGraph& g = *graph_;
  if (cfg_->delay.jitter == 0.0) {
    delayed_.resize(history.width());
    history.values(t - cfg_->delay.mean, delayed_.data());
    take_latest(delayed_.data());
  } else {
    std::fill(latest_.begin(), latest_.end(), HUGE_VAL);
    for (std::size_t k = 0; k < g.edges(); ++k) {
      const std::uint32_t a = g.edge_a[k], b = g.edge_b[k];
      const double tau = edge_delay(*cfg_, g.local_ids[a], g.column_id(b), delay_interval);
      latest_[a] = std::min(latest_[a], history.value(b, t - tau));
    }
  }
  write_rows(x, zeta, dxdt);
}

void WaitKernel::evaluate_ref(double t, const double* x, const DelayHistory& history, const double* zeta,
                              std::int64_t delay_interval, double* dxdt) {
  const LocalGraph& g = *graph_;
  excess_.assign(g.n_local(), 0.0);
  for (std::size_t k = 0; k < g.edges(); ++k) {
    const std::uint32_t a = g.edge_a[k], b = g.edge_b[k];
    const double tau = edge_delay(*cfg_, g.local_ids[a], g.column_id(b), delay_interval);
    const double relu = std::max(x[a] - hold_start(history.value(b, t - tau), post_[a], ramp_[a]), 0.0);
    excess_[a] = std::max(excess_[a], relu);
  }
  for (std::size_t i = 0; i < g.n_local(); ++i) {
    const double hold = std::min(1.0, steepness_[i] * excess_[i]);
    const double rate = zeta == nullptr ? omega_[i] : omega_[i] + zeta[i];
    dxdt[i] = rate * (1.0 - hold);
  }
  for (const std::uint32_t i : paused_) dxdt[i] = 0.0;
}

}  // namespace ripple::model
