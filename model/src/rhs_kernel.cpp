#include "ripple/model/rhs_kernel.hpp"

#include <cmath>

#include "ripple/model/potential.hpp"

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

template <class NeighbourPhase>
void RhsKernel::couple(double t, const double* x, NeighbourPhase&& phase, double* dxdt) {
  const std::size_t n = graph_->n_local();
  const double* zeta = noise_.active() ? noise_.at(t) : nullptr;
  const std::uint32_t* rp = graph_->row_ptr.data();
  const std::uint32_t* cols = graph_->cols.data();
  with_potential(cfg_->model.potential, cfg_->model.sigma, [&](auto V) {
    for (std::size_t i = 0; i < n; ++i) {
      const double xi = x[i];
      double sum = 0.0;  // summed in the topology's fixed neighbour order
      for (std::uint32_t k = rp[i]; k < rp[i + 1]; ++k) sum += V(xi - phase(i, cols[k]));
      dxdt[i] = omega_[i] + (zeta != nullptr ? zeta[i] : 0.0) - factor(i) * sum;
    }
  });
}

void RhsKernel::evaluate(double t, const double* x, const double* ghost, double* dxdt) {
  const std::size_t n = graph_->n_local();
  couple(
      t, x, [&](std::size_t, std::uint32_t c) { return c < n ? x[c] : ghost[c - n]; }, dxdt);
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
