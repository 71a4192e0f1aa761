#include "ripple/model/rhs_kernel.hpp"

#include <algorithm>
#include <cmath>

#include "ripple/common/error.hpp"
#include "ripple/model/isa_clones.hpp"
#include "ripple/model/potential.hpp"
#include "ripple/model/vector_math.hpp"

namespace ripple::model {

RhsKernel::RhsKernel(const SimConfig& cfg, const LocalGraph& graph, std::vector<double> omega, double vp)
    : cfg_(&cfg),
      graph_(&graph),
      omega_(std::move(omega)),
      vp_(vp),
      fixed_norm_(cfg.model.normalization == Normalization::N ? static_cast<double>(cfg.model.oscillators) : 1.0),
      noise_(cfg, graph.local_ids, omega_),
      plan_(make_block_plan(graph)),
      block_v_(plan_.max_buf),
      block_sums_(plan_.max_rows) {}

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
void RhsKernel::accumulate(double* dxdt) {
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
  finish(0, g.n_local(), sum, zeta(), dxdt);
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

RIPPLE_CLONES void RhsKernel::finish(std::size_t begin, std::size_t end, const double* sum, const double* zeta,
                                     double* dxdt) const {
  const LocalGraph& g = *graph_;
  const std::size_t n = end - begin;
  const double* omega = omega_.data() + begin;
  double* out = dxdt + begin;
  if (cfg_->model.normalization == Normalization::Degree && g.degree.empty()) {
    const double f = g.uniform_degree > 0 ? vp_ / g.uniform_degree : 0.0;
    for (std::size_t i = 0; i < n; ++i) out[i] = omega[i] - f * sum[i];
  } else if (cfg_->model.normalization == Normalization::Degree) {
    const std::uint32_t* degree = g.degree.data() + begin;
    for (std::size_t i = 0; i < n; ++i) out[i] = omega[i] - (degree[i] > 0 ? vp_ / degree[i] : 0.0) * sum[i];
  } else {
    const double f = vp_ / fixed_norm_;
    for (std::size_t i = 0; i < n; ++i) out[i] = omega[i] - f * sum[i];
  }
  if (zeta != nullptr)
    for (std::size_t i = 0; i < n; ++i) out[i] += zeta[begin + i];
}

// Block by block: V of the block's windows into block_v_ (in L1 or L2), then the block's tasks in
// the reference's order, then dxdt of its rows.
RIPPLE_CLONES void RhsKernel::sweep(Columns left, Columns right, double* dxdt) {
  const LocalGraph& g = *graph_;
  const std::uint32_t n = static_cast<std::uint32_t>(g.n_local());
  // Affine runs never cross from local to ghost columns (LocalGraph), so a window has one source.
  const auto at = [n](Columns c, std::uint32_t col) { return col < n ? c.local + col : c.ghost + (col - n); };
  const std::uint32_t* a = g.edge_a.data();
  const std::uint32_t* b = g.edge_b.data();
  const std::uint32_t* list = plan_.list.data();
  double* v = block_v_.data();
  double* sum = block_sums_.data();
  const double* z = zeta();
  const bool tanh = cfg_->model.potential == Potential::Tanh;
  for (const BlockPlan::Block& blk : plan_.blocks) {
    for (std::uint32_t w = blk.window_begin; w < blk.window_end; ++w) {
      const BlockPlan::Window& win = plan_.windows[w];
      double* out = v + win.buf;
      const std::uint32_t len = win.end - win.begin;
      if (win.list) {
        const std::uint32_t* e = list + win.begin;
        for (std::uint32_t k = 0; k < len; ++k) out[k] = *at(left, a[e[k]]) - *at(right, b[e[k]]);
        if (tanh) tanh_inplace(out, len);
      } else if (tanh) {
        tanh_of_difference(at(left, a[win.begin]), at(right, b[win.begin]), out, len);  // one pass fewer
      } else {
        const double* l = at(left, a[win.begin]);
        const double* r = at(right, b[win.begin]);
        for (std::uint32_t k = 0; k < len; ++k) out[k] = l[k] - r[k];
      }
    }
    if (!tanh) apply_potential(v, blk.buf_size);
    const std::uint32_t r0 = blk.row_begin;
    std::fill(sum, sum + (blk.row_end - r0), 0.0);
    for (std::uint32_t t = blk.task_begin; t < blk.task_end; ++t) {
      const BlockPlan::Task& task = plan_.tasks[t];
      const double* w = v + task.buf;
      const std::uint32_t len = task.end - task.begin;
      const std::uint32_t* row = task.b_side ? b : a;
      if (task.list) {
        const std::uint32_t* e = list + task.begin;
        if (task.b_side)
          for (std::uint32_t k = 0; k < len; ++k) sum[row[e[k]] - r0] -= w[k];
        else
          for (std::uint32_t k = 0; k < len; ++k) sum[row[e[k]] - r0] += w[k];
        continue;
      }
      double* s = sum + (row[task.begin] - r0);
      if (task.b_side)
        for (std::uint32_t k = 0; k < len; ++k) s[k] -= w[k];
      else
        for (std::uint32_t k = 0; k < len; ++k) s[k] += w[k];
    }
    finish(r0, blk.row_end, sum, z, dxdt);
  }
}

void RhsKernel::evaluate(double t, const double* x, const double* ghosts, double* dxdt) { sweep({x, ghosts}, {x, ghosts}, dxdt); }

void RhsKernel::evaluate_ref(double t, const double* phases, double* dxdt) {
  differences(phases, phases);
  accumulate(dxdt);
}

void RhsKernel::evaluate_mean_field(double t, const double* x, double sum_sin, double sum_cos, double* dxdt) {
  const std::size_t n = graph_->n_local();
  sums_.resize(n);
  for (std::size_t i = 0; i < n; ++i) sums_[i] = std::sin(x[i]) * sum_cos - std::cos(x[i]) * sum_sin;
  finish(0, n, sums_.data(), zeta(), dxdt);
}

void RhsKernel::evaluate_delayed(double t, const double* x, const DelayHistory& history, double* dxdt) {
  RIPPLE_VERIFY(!graph_->symmetric, "delayed coupling needs the directed form of the graph");
  if (cfg_->delay.jitter == 0.0) {
    // One delay for every edge: interpolate each column once.
    delayed_.resize(history.width());
    history.values(t - cfg_->delay.mean, delayed_.data());
    sweep({x, nullptr}, {delayed_.data(), delayed_.data() + graph_->n_local()}, dxdt);  // rows are local
    return;
  }
  const LocalGraph& g = *graph_;
  buffer_.resize(g.edges());
  for (std::size_t k = 0; k < g.edges(); ++k) {
    const double tau = edge_delay(*cfg_, g.local_ids[g.edge_a[k]], g.column_id(g.edge_b[k]), delay_interval_);
    buffer_[k] = x[g.edge_a[k]] - history.value(g.edge_b[k], t - tau);
  }
  accumulate(dxdt);
}

}  // namespace ripple::model
