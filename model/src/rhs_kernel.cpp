#include "ripple/model/rhs_kernel.hpp"

#include <unistd.h>

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
      omega_(omega.begin(), omega.end()),
      vp_(vp),
      fixed_norm_(cfg.model.normalization == Normalization::N ? static_cast<double>(cfg.model.oscillators) : 1.0),
      noise_(cfg, graph.local_ids, omega_),
      plan_(make_block_plan(graph)),
      block_v_(plan_.max_buf),
      block_sums_(plan_.max_rows) {
  if (cfg.model.potential == Potential::Wait) wait_ = std::make_unique<WaitKernel>(cfg, graph, omega_, vp);
  // Interleave when the working set of a Runge-Kutta step (about a dozen arrays of the local rows)
  // leaves L2: then the streams come from L3 or memory and overlapping them with tanh pays; in L2 the
  // chunks' overhead costs more (measured side by side: -12 % at N = 10^6, +12 % at N = 10^4).
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 <= 0) l2 = 1L << 20;
  interleave_ = 12.0 * sizeof(double) * static_cast<double>(graph.n_local()) > static_cast<double>(l2);
}

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
    case Potential::Wait:  // not a pairwise potential: evaluate_delayed hands it to WaitKernel
      RIPPLE_VERIFY(false, "the wait potential is evaluated by WaitKernel");
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

// How dxdt of a row follows from its coupling sum S: omega - f S (+ zeta), f = v_p / norm, with a
// per-row degree under normalization `degree` on irregular graphs.
struct RowOutput {
  const double* omega;          // omega[i] of row i
  const std::uint32_t* degree;  // per-row degrees, or null: f for every row
  double f;
  double vp;
  const double* zeta;  // zeta[i] of row i, or null
};

// One affine task's terms: row i gets +w[i - lo] (a side) or -w[i - lo] (b side) for lo <= i < hi.
struct RowTerm {
  const double* w;
  std::uint32_t lo, hi;
  double sign;  // +1 or -1: s + sign * w is exactly s + w or s - w
  [[nodiscard]] bool covers(std::uint32_t i) const { return i >= lo && i < hi; }
};

namespace {

// Rows [begin, end) with S(i) = sum(i). The same operations in the same order as the reference
// (out = omega - f S, then out += zeta), so the bits do not depend on how S was gathered.
template <class Sum>
[[gnu::always_inline]] inline void write_rows(const RowOutput& rows, std::size_t begin, std::size_t end, Sum sum, double* dxdt) {
  const RowOutput o = rows;  // a local copy: dxdt's stores cannot alias it, so nothing is reloaded
  const double* omega = o.omega;
  const double* zeta = o.zeta;
  if (o.degree == nullptr) {
    const double f = o.f;
    if (zeta == nullptr)
      for (std::size_t i = begin; i < end; ++i) dxdt[i] = omega[i] - f * sum(i);
    else
      for (std::size_t i = begin; i < end; ++i) dxdt[i] = (omega[i] - f * sum(i)) + zeta[i];
    return;
  }
  for (std::size_t i = begin; i < end; ++i) {
    const double out = omega[i] - (o.degree[i] > 0 ? o.vp / o.degree[i] : 0.0) * sum(i);
    dxdt[i] = zeta == nullptr ? out : out + zeta[i];
  }
}

// Rows [p, q), all covered by both terms: S = (0 +- t0) +- t1, in task order.
[[gnu::always_inline]] inline void write_both_terms(const RowOutput& o, std::size_t p, std::size_t q, const RowTerm* t,
                                                    double* dxdt) {
  const double* w0 = t[0].w;  // copies of the terms, so that the loop keeps them in registers
  const double* w1 = t[1].w;
  const std::size_t l0 = t[0].lo, l1 = t[1].lo;
  const double s0 = t[0].sign, s1 = t[1].sign;
  write_rows(
      o, p, q, [=](std::size_t i) { return (0.0 + s0 * w0[i - l0]) + s1 * w1[i - l1]; }, dxdt);
}

}  // namespace

RowOutput RhsKernel::row_output(const double* zeta) const {
  const LocalGraph& g = *graph_;
  RowOutput o{omega_.data(), nullptr, vp_ / fixed_norm_, vp_, zeta};
  if (cfg_->model.normalization == Normalization::Degree) {
    if (g.degree.empty())
      o.f = g.uniform_degree > 0 ? vp_ / g.uniform_degree : 0.0;
    else
      o.degree = g.degree.data();
  }
  return o;
}

RIPPLE_CLONES void RhsKernel::finish(std::size_t begin, std::size_t end, const double* sum, const double* zeta,
                                     double* dxdt) const {
  write_rows(
      row_output(zeta), begin, end, [sum, begin](std::size_t i) { return sum[i - begin]; }, dxdt);
}

// A block whose terms are at most two affine tasks (a chain or ring +-1, as a symmetric or directed
// graph) needs no sums buffer: S = (0 +- t1) +- t2 row by row, in task order as in the reference,
// over the segments between the tasks' row bounds.
RIPPLE_CLONES void RhsKernel::finish_two_terms(const RowOutput& o, std::uint32_t r0, std::uint32_t r1, const RowTerm* t,
                                               std::size_t terms, double* dxdt) const {
  std::uint32_t cut[6] = {r0, r1, r0, r0, r0, r0};
  for (std::size_t k = 0; k < terms; ++k) {
    cut[2 + 2 * k] = std::clamp(t[k].lo, r0, r1);
    cut[3 + 2 * k] = std::clamp(t[k].hi, r0, r1);
  }
  std::sort(cut, cut + 6);
  for (std::size_t c = 0; c + 1 < 6; ++c) {
    const std::uint32_t p = cut[c], q = cut[c + 1];
    if (p == q) continue;
    const bool in1 = terms > 0 && t[0].covers(p), in2 = terms > 1 && t[1].covers(p);
    if (in1 && in2) {
      write_both_terms(o, p, q, t, dxdt);
    } else if (in1 || in2) {
      const RowTerm& one = t[in1 ? 0 : 1];
      const double* w = one.w;
      const std::size_t lo = one.lo;
      const double sign = one.sign;
      write_rows(
          o, p, q, [=](std::size_t i) { return 0.0 + sign * w[i - lo]; }, dxdt);
    } else {
      write_rows(
          o, p, q, [](std::size_t) { return 0.0; }, dxdt);
    }
  }
}

// A block of one affine tanh window and one or two affine tasks (a chain or ring +-1) in chunks of
// kInterleave rows: V of the entries the chunk's rows need, then their dxdt. The tanh arithmetic of
// one chunk and the omega and dxdt streams of the next then overlap in the core (measured side by side
// at N = 10^6: 2.0-2.2 instead of 2.3-2.5 ns per row and evaluation); in blocks of 1024 rows they ran
// one after the other. Same operations per element, so the same bits.
RIPPLE_CLONES void RhsKernel::interleave_two_terms(const RowOutput& o, const BlockPlan::Block& blk, const double* l,
                                                   const double* r, std::uint32_t buf, std::uint32_t len, const RowTerm* t,
                                                   double* dxdt) {
  constexpr std::uint32_t kInterleave = 64;
  double* v = block_v_.data();
  const std::size_t terms = blk.task_end - blk.task_begin;
  std::uint32_t done = buf;  // V is computed for the buffer entries [buf, done)
  for (std::uint32_t p = blk.row_begin; p < blk.row_end; p += kInterleave) {
    const std::uint32_t q = std::min(p + kInterleave, blk.row_end);
    std::uint32_t need = done;
    bool cover_all = terms == 2;
    for (std::size_t k = 0; k < terms; ++k) {
      cover_all = cover_all && t[k].lo <= p && q <= t[k].hi;
      if (q > t[k].lo && p < t[k].hi)
        need = std::max(need, static_cast<std::uint32_t>(t[k].w - v) + (std::min(q, t[k].hi) - t[k].lo));
    }
    need = std::min(need, buf + len);
    if (need > done) {
      tanh_of_difference(l + (done - buf), r + (done - buf), v + done, need - done);
      done = need;
    }
    if (cover_all)
      write_both_terms(o, p, q, t, dxdt);  // the common case, without finish_two_terms' segments
    else
      finish_two_terms(o, p, q, t, terms, dxdt);
  }
  // Window entries that no row of this block reads are left uncomputed.
}

// Whether the block's tasks are one or two affine ones; if so, fills their terms.
bool RhsKernel::two_affine_terms(const BlockPlan::Block& blk, const double* v, RowTerm* terms) const {
  const std::uint32_t n = blk.task_end - blk.task_begin;
  if (n == 0 || n > 2) return false;
  for (std::uint32_t k = 0; k < n; ++k) {
    const BlockPlan::Task& task = plan_.tasks[blk.task_begin + k];
    if (task.list) return false;
    const std::uint32_t lo = (task.b_side ? graph_->edge_b : graph_->edge_a)[task.begin];
    terms[k] = {v + task.buf, lo, lo + (task.end - task.begin), task.b_side ? -1.0 : 1.0};
  }
  return true;
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
  const RowOutput rows = row_output(z);
  RowTerm terms[2] = {};
  for (const BlockPlan::Block& blk : plan_.blocks) {
    if (interleave_ && tanh && blk.window_end == blk.window_begin + 1 && !plan_.windows[blk.window_begin].list &&
        two_affine_terms(blk, v, terms)) {
      const BlockPlan::Window& win = plan_.windows[blk.window_begin];
      interleave_two_terms(rows, blk, at(left, a[win.begin]), at(right, b[win.begin]), win.buf, win.end - win.begin, terms, dxdt);
      continue;
    }
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
    if (two_affine_terms(blk, v, terms)) {
      finish_two_terms(rows, r0, blk.row_end, terms, blk.task_end - blk.task_begin, dxdt);
      continue;
    }
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

void RhsKernel::evaluate_mean_field(double t, const double* sin_x, const double* cos_x, double sum_sin, double sum_cos,
                                    double* dxdt) {
  const std::size_t n = graph_->n_local();
  sums_.resize(n);
  for (std::size_t i = 0; i < n; ++i) sums_[i] = sin_x[i] * sum_cos - cos_x[i] * sum_sin;
  finish(0, n, sums_.data(), zeta(), dxdt);
}

void RhsKernel::evaluate_delayed(double t, const double* x, const DelayHistory& history, double* dxdt) {
  RIPPLE_VERIFY(!graph_->symmetric, "delayed coupling needs the directed form of the graph");
  if (wait_) {
    wait_->evaluate(t, x, history, zeta(), delay_interval_, dxdt);
    return;
  }
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
