#include "ripple/model/rhs_kernel.hpp"

#include <cmath>

#include <algorithm>

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

double RhsKernel::factor(std::size_t i) const {
  if (cfg_->model.normalization != Normalization::Degree) return vp_ / fixed_norm_;
  const double degree = cfg_->topology.kind == TopologyKind::All
                            ? static_cast<double>(cfg_->model.oscillators - 1)
                            : static_cast<double>(graph_->row_ptr[i + 1] - graph_->row_ptr[i]);
  return degree > 0 ? vp_ / degree : 0.0;
}

void RhsKernel::apply_potential(double* x, std::size_t n) {
  switch (cfg_->model.potential) {
    case Potential::Tanh: tanh_inplace(x, n); return;
    case Potential::Kuramoto: sin_inplace(x, n); return;
    case Potential::Bottleneck: break;
  }
  const BottleneckPotential v(cfg_->model.sigma);
  scratch_.resize(n);
  for (std::size_t k = 0; k < n; ++k) scratch_[k] = v.alpha * x[k];
  sin_inplace(scratch_.data(), n);
  for (std::size_t k = 0; k < n; ++k) x[k] = std::abs(x[k]) < v.sigma ? -scratch_[k] : (x[k] > 0 ? 1.0 : -1.0);
}

// Rows are processed in blocks of about kBlockEdges couplings: gather the phase differences, apply V
// to the whole block with vector math, then sum each row in its fixed neighbour order.
template <class NeighbourPhase>
void RhsKernel::couple(double t, const double* x, NeighbourPhase&& phase, double* dxdt) {
  constexpr std::uint32_t kBlockEdges = 2048;
  const std::size_t n = graph_->n_local();
  const double* zeta = noise_.active() ? noise_.at(t) : nullptr;
  const std::uint32_t* rp = graph_->row_ptr.data();
  const std::uint32_t* cols = graph_->cols.data();
  const bool per_row_factor = cfg_->model.normalization == Normalization::Degree;
  const double fixed_factor = vp_ / fixed_norm_;
  std::size_t row = 0;
  while (row < n) {
    std::size_t end = row + 1;
    while (end < n && rp[end + 1] - rp[row] <= kBlockEdges) ++end;
    const std::uint32_t k0 = rp[row];
    if (buffer_.size() < rp[end] - k0) buffer_.resize(rp[end] - k0);
    double* diff = buffer_.data() - k0;  // indexed by edge number
    for (std::size_t i = row; i < end; ++i) {
      const double xi = x[i];
      for (std::uint32_t k = rp[i]; k < rp[i + 1]; ++k) diff[k] = xi - phase(i, cols[k]);
    }
    apply_potential(diff + k0, rp[end] - k0);
    for (std::size_t i = row; i < end; ++i) {
      double sum = 0.0;
      for (std::uint32_t k = rp[i]; k < rp[i + 1]; ++k) sum += diff[k];
      const double f = per_row_factor ? factor(i) : fixed_factor;
      dxdt[i] = omega_[i] + (zeta != nullptr ? zeta[i] : 0.0) - f * sum;
    }
    row = end;
  }
}

void RhsKernel::evaluate(double t, const double* x, const double* phases, double* dxdt) {
  couple(t, x, [phases](std::size_t, std::uint32_t c) { return phases[c]; }, dxdt);
}

void RhsKernel::evaluate_mean_field(double t, const double* x, double sum_sin, double sum_cos, double* dxdt) {
  const std::size_t n = graph_->n_local();
  const double* zeta = noise_.active() ? noise_.at(t) : nullptr;
  for (std::size_t i = 0; i < n; ++i) {
    const double coupling = std::sin(x[i]) * sum_cos - std::cos(x[i]) * sum_sin;
    dxdt[i] = omega_[i] + (zeta != nullptr ? zeta[i] : 0.0) - factor(i) * coupling;
  }
}

void RhsKernel::evaluate_delayed(double t, const double* x, const DelayHistory& history, double* dxdt) {
  if (cfg_->delay.jitter == 0.0) {
    // One delay for every edge: interpolate each stored oscillator once.
    delayed_.resize(history.width());
    history.values(t - cfg_->delay.mean, delayed_.data());
    couple(
        t, x, [&](std::size_t, std::uint32_t c) { return delayed_[c]; }, dxdt);
    return;
  }
  const std::size_t n = graph_->n_local();
  const auto k = static_cast<std::int64_t>(std::floor(t / cfg_->delay_interval()));
  couple(
      t, x,
      [&](std::size_t i, std::uint32_t c) {
        const std::int64_t j = c < n ? graph_->local_ids[c] : graph_->ghost_ids[c - n];
        return history.value(c, t - edge_delay(*cfg_, graph_->local_ids[i], j, k));
      },
      dxdt);
}

}  // namespace ripple::model
