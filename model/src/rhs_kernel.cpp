#include "ripple/model/rhs_kernel.hpp"

#include <algorithm>
#include <cmath>

#include "ripple/common/error.hpp"
#include "ripple/model/potential.hpp"
#include "ripple/model/vector_math.hpp"

namespace ripple::model {

RhsKernel::RhsKernel(const SimConfig& cfg, const LocalGraph& graph, std::vector<double> omega, double vp)
    : cfg_(&cfg),
      graph_(&graph),
      omega_(std::move(omega)),
      vp_(vp),
      fixed_norm_(cfg.model.normalization == Normalization::N ? static_cast<double>(cfg.model.oscillators) : 1.0),
      noise_(cfg, graph.local_ids, omega_) {}

void RhsKernel::apply_potential(double* x, std::size_t n) {
  switch (cfg_->model.potential) {
    case Potential::Tanh:
      tanh_inplace(x, n);
      return;
    case Potential::Kuramoto:
      sin_inplace(x, n);
      return;
    case Potential::Bottleneck:
      break;
  }
  const BottleneckPotential v(cfg_->model.sigma);
  scratch_.resize(n);
  for (std::size_t k = 0; k < n; ++k) scratch_[k] = v.alpha * x[k];
  sin_inplace(scratch_.data(), n);
  for (std::size_t k = 0; k < n; ++k) x[k] = std::abs(x[k]) < v.sigma ? -scratch_[k] : (x[k] > 0 ? 1.0 : -1.0);
}

// V is applied to all edges with vector math, then the terms are added to their rows. Each row's
// terms are added in an order fixed by the global ids alone (see LocalGraph), never by the rank's
// share, so that sums are bitwise the same for any decomposition: directed, in ascending partner
// order; symmetric, first the partners above the row, then those below, each ascending. (The two
// passes over all edges also avoid a store-to-load dependency between neighbouring rows.)
template <class Difference>
void RhsKernel::couple(double t, Difference&& difference, double* dxdt) {
  const LocalGraph& g = *graph_;
  const std::uint32_t* a = g.edge_a.data();
  const std::uint32_t* b = g.edge_b.data();
  const std::size_t edges = g.edges();
  buffer_.resize(edges);
  double* v = buffer_.data();
  for (std::size_t k = 0; k < edges; ++k) v[k] = difference(k);
  apply_potential(v, edges);
  sums_.assign(g.symmetric ? g.n_columns() : g.n_local(), 0.0);
  double* sum = sums_.data();
  for (std::size_t k = 0; k < edges; ++k) sum[a[k]] += v[k];
  if (g.symmetric)
    for (std::size_t k = 0; k < edges; ++k) sum[b[k]] -= v[k];
  finish(t, dxdt);
}

void RhsKernel::finish(double t, double* dxdt) {
  const LocalGraph& g = *graph_;
  const std::size_t n = g.n_local();
  const double* sum = sums_.data();
  const double* omega = omega_.data();
  if (cfg_->model.normalization == Normalization::Degree) {
    for (std::size_t i = 0; i < n; ++i) dxdt[i] = omega[i] - (g.degree[i] > 0 ? vp_ / g.degree[i] : 0.0) * sum[i];
  } else {
    const double f = vp_ / fixed_norm_;
    for (std::size_t i = 0; i < n; ++i) dxdt[i] = omega[i] - f * sum[i];
  }
  if (noise_.active()) {
    const double* zeta = noise_.at(t);
    for (std::size_t i = 0; i < n; ++i) dxdt[i] += zeta[i];
  }
}

void RhsKernel::evaluate(double t, const double* phases, double* dxdt) {
  const std::uint32_t* a = graph_->edge_a.data();
  const std::uint32_t* b = graph_->edge_b.data();
  couple(
      t, [=](std::size_t k) { return phases[a[k]] - phases[b[k]]; }, dxdt);
}

void RhsKernel::evaluate_mean_field(double t, const double* x, double sum_sin, double sum_cos, double* dxdt) {
  const std::size_t n = graph_->n_local();
  sums_.resize(n);
  for (std::size_t i = 0; i < n; ++i) sums_[i] = std::sin(x[i]) * sum_cos - std::cos(x[i]) * sum_sin;
  finish(t, dxdt);
}

void RhsKernel::evaluate_delayed(double t, const double* x, const DelayHistory& history, double* dxdt) {
  RIPPLE_VERIFY(!graph_->symmetric, "delayed coupling needs the directed form of the graph");
  const std::uint32_t* a = graph_->edge_a.data();
  const std::uint32_t* b = graph_->edge_b.data();
  if (cfg_->delay.jitter == 0.0) {
    // One delay for every edge: interpolate each column once.
    delayed_.resize(history.width());
    history.values(t - cfg_->delay.mean, delayed_.data());
    const double* d = delayed_.data();
    couple(
        t, [=](std::size_t k) { return x[a[k]] - d[b[k]]; }, dxdt);
    return;
  }
  const auto interval = static_cast<std::int64_t>(std::floor(t / cfg_->delay_interval()));
  couple(
      t,
      [&](std::size_t k) {
        const double tau = edge_delay(*cfg_, graph_->local_ids[a[k]], graph_->column_id(b[k]), interval);
        return x[a[k]] - history.value(b[k], t - tau);
      },
      dxdt);
}

}  // namespace ripple::model
