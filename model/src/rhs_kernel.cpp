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

// V is applied to all edges with vector math, then the terms are added to their rows in edge order
// (see LocalGraph for why that order makes sums rank-independent). The two passes over all edges
// have no store-to-load dependency between neighbouring rows, and affine runs need no indices.
void RhsKernel::accumulate(double t, double* dxdt) {
  const LocalGraph& g = *graph_;
  const std::uint32_t* a = g.edge_a.data();
  const std::uint32_t* b = g.edge_b.data();
  const double* v = buffer_.data();
  apply_potential(buffer_.data(), g.edges());
  sums_.assign(g.symmetric ? g.n_columns() : g.n_local(), 0.0);
  double* sum = sums_.data();
  for (const auto& run : g.runs) {
    if (run.affine) {
      double* s = sum + a[run.begin];
      const double* w = v + run.begin;
      for (std::uint32_t k = 0; k < run.end - run.begin; ++k) s[k] += w[k];
    } else {
      for (std::uint32_t k = run.begin; k < run.end; ++k) sum[a[k]] += v[k];
    }
  }
  if (g.symmetric) {
    for (const auto& run : g.runs) {
      if (run.affine) {
        double* s = sum + b[run.begin];
        const double* w = v + run.begin;
        for (std::uint32_t k = 0; k < run.end - run.begin; ++k) s[k] -= w[k];
      } else {
        for (std::uint32_t k = run.begin; k < run.end; ++k) sum[b[k]] -= v[k];
      }
    }
  }
  finish(t, dxdt);
}

// V's argument for every edge: left[a] - right[b].
void RhsKernel::differences(const double* left, const double* right) {
  const LocalGraph& g = *graph_;
  const std::uint32_t* a = g.edge_a.data();
  const std::uint32_t* b = g.edge_b.data();
  buffer_.resize(g.edges());
  double* v = buffer_.data();
  for (const auto& run : g.runs) {
    if (run.affine) {
      const double* l = left + a[run.begin];
      const double* r = right + b[run.begin];
      double* w = v + run.begin;
      for (std::uint32_t k = 0; k < run.end - run.begin; ++k) w[k] = l[k] - r[k];
    } else {
      for (std::uint32_t k = run.begin; k < run.end; ++k) v[k] = left[a[k]] - right[b[k]];
    }
  }
}

void RhsKernel::finish(double t, double* dxdt) {
  const LocalGraph& g = *graph_;
  const std::size_t n = g.n_local();
  const double* sum = sums_.data();
  const double* omega = omega_.data();
  if (cfg_->model.normalization == Normalization::Degree && g.degree.empty()) {
    const double f = g.uniform_degree > 0 ? vp_ / g.uniform_degree : 0.0;
    for (std::size_t i = 0; i < n; ++i) dxdt[i] = omega[i] - f * sum[i];
  } else if (cfg_->model.normalization == Normalization::Degree) {
    for (std::size_t i = 0; i < n; ++i) dxdt[i] = omega[i] - (g.degree[i] > 0 ? vp_ / g.degree[i] : 0.0) * sum[i];
  } else {
    const double f = vp_ / fixed_norm_;
    for (std::size_t i = 0; i < n; ++i) dxdt[i] = omega[i] - f * sum[i];
  }
  if (noise_.active()) {
    const double* zeta = noise_.at(noise_interval_);
    for (std::size_t i = 0; i < n; ++i) dxdt[i] += zeta[i];
  }
}

void RhsKernel::evaluate(double t, const double* phases, double* dxdt) {
  differences(phases, phases);
  accumulate(t, dxdt);
}

void RhsKernel::evaluate_mean_field(double t, const double* x, double sum_sin, double sum_cos, double* dxdt) {
  const std::size_t n = graph_->n_local();
  sums_.resize(n);
  for (std::size_t i = 0; i < n; ++i) sums_[i] = std::sin(x[i]) * sum_cos - std::cos(x[i]) * sum_sin;
  finish(t, dxdt);
}

void RhsKernel::evaluate_delayed(double t, const double* x, const DelayHistory& history, double* dxdt) {
  RIPPLE_VERIFY(!graph_->symmetric, "delayed coupling needs the directed form of the graph");
  if (cfg_->delay.jitter == 0.0) {
    // One delay for every edge: interpolate each column once.
    delayed_.resize(history.width());
    history.values(t - cfg_->delay.mean, delayed_.data());
    differences(x, delayed_.data());
    accumulate(t, dxdt);
    return;
  }
  const LocalGraph& g = *graph_;
  buffer_.resize(g.edges());
  for (std::size_t k = 0; k < g.edges(); ++k) {
    const double tau = edge_delay(*cfg_, g.local_ids[g.edge_a[k]], g.column_id(g.edge_b[k]), delay_interval_);
    buffer_[k] = x[g.edge_a[k]] - history.value(g.edge_b[k], t - tau);
  }
  accumulate(t, dxdt);
}

}  // namespace ripple::model
