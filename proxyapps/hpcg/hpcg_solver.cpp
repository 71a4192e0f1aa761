#include "hpcg_solver.hpp"

#include <cmath>
#include <cstring>

#include "ripple/common/mpi_util.hpp"

namespace ripple::hpcg {
namespace {

constexpr int kTag = 99;  // HPCG's MPI_MY_TAG

// ---- reference kernels: HPCG 3.1's ComputeSPMV_ref, ComputeSYMGS_ref, ComputeWAXPBY_ref ----

void spmv_ref(const SparseMatrix& a, const double* x, double* y) {
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double sum = 0.0;
    const auto& v = a.values[static_cast<std::size_t>(i)];
    const auto& c = a.local_columns[static_cast<std::size_t>(i)];
    for (int j = 0; j < a.nonzeros_in_row[static_cast<std::size_t>(i)]; ++j)
      sum += v[static_cast<std::size_t>(j)] * x[c[static_cast<std::size_t>(j)]];
    y[i] = sum;
  }
}

void symgs_ref(const SparseMatrix& a, const double* r, double* x) {
  const auto row = [&](std::int64_t i) {
    const auto& v = a.values[static_cast<std::size_t>(i)];
    const auto& c = a.local_columns[static_cast<std::size_t>(i)];
    const double d = a.diagonal[static_cast<std::size_t>(i)];
    double sum = r[i];
    for (int j = 0; j < a.nonzeros_in_row[static_cast<std::size_t>(i)]; ++j)
      sum -= v[static_cast<std::size_t>(j)] * x[c[static_cast<std::size_t>(j)]];
    sum += x[i] * d;  // the loop above subtracted the diagonal term
    x[i] = sum / d;
  };
  for (std::int64_t i = 0; i < a.rows; ++i) row(i);
  for (std::int64_t i = a.rows - 1; i >= 0; --i) row(i);
}

void waxpby_ref(std::int64_t n, double alpha, const double* x, double beta, const double* y, double* w) {
  if (alpha == 1.0) {
    for (std::int64_t i = 0; i < n; ++i) w[i] = x[i] + beta * y[i];
  } else if (beta == 1.0) {
    for (std::int64_t i = 0; i < n; ++i) w[i] = alpha * x[i] + y[i];
  } else {
    for (std::int64_t i = 0; i < n; ++i) w[i] = alpha * x[i] + beta * y[i];
  }
}

double dot_ref(std::int64_t n, const double* x, const double* y) {
  double local = 0.0;
  if (x == y) {
    for (std::int64_t i = 0; i < n; ++i) local += x[i] * x[i];
  } else {
    for (std::int64_t i = 0; i < n; ++i) local += x[i] * y[i];
  }
  return local;
}

// ---- tuned kernels: the same operations in the same order, with the row's data hoisted and no
// aliasing, so the compiler keeps them in registers; results are bitwise those of *_ref. ----

void spmv_tuned(const SparseMatrix& a, const double* __restrict x, double* __restrict y) {
  const std::uint8_t* nnz = a.nonzeros_in_row.data();
  const double* vals = a.values.data()->data();
  const std::int32_t* cols = a.local_columns.data()->data();
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const double* __restrict v = vals + 27 * i;
    const std::int32_t* __restrict c = cols + 27 * i;
    double sum = 0.0;
    for (int j = 0; j < nnz[i]; ++j) sum += v[j] * x[c[j]];
    y[i] = sum;
  }
}

void symgs_tuned(const SparseMatrix& a, const double* __restrict r, double* __restrict x) {
  const std::uint8_t* nnz = a.nonzeros_in_row.data();
  const double* vals = a.values.data()->data();
  const std::int32_t* cols = a.local_columns.data()->data();
  const double* diag = a.diagonal.data();
  const auto row = [&](std::int64_t i) {
    const double* __restrict v = vals + 27 * i;
    const std::int32_t* __restrict c = cols + 27 * i;
    double sum = r[i];
    for (int j = 0; j < nnz[i]; ++j) sum -= v[j] * x[c[j]];
    sum += x[i] * diag[i];
    x[i] = sum / diag[i];
  };
  for (std::int64_t i = 0; i < a.rows; ++i) row(i);
  for (std::int64_t i = a.rows - 1; i >= 0; --i) row(i);
}

}  // namespace

Halo::Halo(MPI_Comm comm, const SparseMatrix& a, const proxy::NodeInfo* node, double* seconds)
    : comm_(comm), a_(a), seconds_(seconds) {
  send_buffer_.resize(a.elements_to_send.size());
  requests_.resize(a.neighbours.size());
  shm_.assign(a.neighbours.size(), false);
  send_channel_.assign(a.neighbours.size(), 0);
  receive_channel_.assign(a.neighbours.size(), 0);
  if (node == nullptr) return;
  std::vector<proxy::ShmChannels::Spec> sends, receives;
  for (std::size_t k = 0; k < a.neighbours.size(); ++k) {
    if (node->node_rank(a.neighbours[k]) < 0) continue;
    shm_[k] = true;
    send_channel_[k] = sends.size();
    receive_channel_[k] = receives.size();
    sends.push_back({a.neighbours[k], kTag, static_cast<std::size_t>(a.send_length[k]) * sizeof(double)});
    receives.push_back({a.neighbours[k], kTag, static_cast<std::size_t>(a.receive_length[k]) * sizeof(double)});
  }
  channels_ = std::make_unique<proxy::ShmChannels>(comm, *node, sends, receives, -1);
}

void Halo::exchange(double* x) {
  const double t0 = MPI_Wtime();
  ++seq_;
  const std::size_t nn = a_.neighbours.size();
  double* external = x + a_.rows;
  // Post receives (MPI neighbours), pack everything.
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < nn; ++k) {
    if (!shm_[k])
      RIPPLE_MPI_CHECK(
          MPI_Irecv(external + offset, a_.receive_length[k], MPI_DOUBLE, a_.neighbours[k], kTag, comm_, &requests_[k]));
    else
      requests_[k] = MPI_REQUEST_NULL;
    offset += a_.receive_length[k];
  }
  for (std::size_t i = 0; i < a_.elements_to_send.size(); ++i) send_buffer_[i] = x[a_.elements_to_send[i]];
  std::int64_t sent = 0;
  for (std::size_t k = 0; k < nn; ++k) {
    const double* from = send_buffer_.data() + sent;
    const auto count = static_cast<std::size_t>(a_.send_length[k]);
    if (shm_[k]) {
      std::memcpy(channels_->send_buffer(send_channel_[k], seq_), from, count * sizeof(double));
      channels_->publish(send_channel_[k], seq_);
    } else {
      RIPPLE_MPI_CHECK(MPI_Send(from, static_cast<int>(count), MPI_DOUBLE, a_.neighbours[k], kTag, comm_));
    }
    sent += a_.send_length[k];
  }
  offset = 0;
  for (std::size_t k = 0; k < nn; ++k) {
    if (shm_[k]) {  // unpacking from the shared (far) memory is part of the cost the CXL model sees
      std::memcpy(external + offset, channels_->receive(receive_channel_[k], seq_),
                  static_cast<std::size_t>(a_.receive_length[k]) * sizeof(double));
      channels_->consumed(receive_channel_[k], seq_);
    } else {
      RIPPLE_MPI_CHECK(MPI_Wait(&requests_[k], MPI_STATUS_IGNORE));
    }
    offset += a_.receive_length[k];
  }
  *seconds_ += MPI_Wtime() - t0;
}

Solver::Solver(MPI_Comm comm, const SparseMatrix& a, bool tuned, bool shm) : comm_(comm), tuned_(tuned) {
  if (shm) node_ = std::make_unique<proxy::NodeInfo>(comm);
  for (const SparseMatrix* level = &a; level != nullptr; level = level->coarse.get()) {
    Level l;
    l.a = level;
    l.halo = std::make_unique<Halo>(comm, *level, node_.get(), &times_.halo);
    if (level->coarse) {
      l.axf.assign(static_cast<std::size_t>(level->columns), 0.0);
      l.rc.assign(static_cast<std::size_t>(level->coarse->rows), 0.0);
      l.xc.assign(static_cast<std::size_t>(level->coarse->columns), 0.0);
    }
    levels_.push_back(std::move(l));
  }
}

void Solver::spmv(int level, std::vector<double>& x, std::vector<double>& y, double* seconds) {
  Level& l = levels_[static_cast<std::size_t>(level)];
  l.halo->exchange(x.data());  // timed as halo
  const double t0 = MPI_Wtime();
  if (tuned_)
    spmv_tuned(*l.a, x.data(), y.data());
  else
    spmv_ref(*l.a, x.data(), y.data());
  if (seconds != nullptr) *seconds += MPI_Wtime() - t0;
}

void Solver::symgs(int level, const std::vector<double>& r, std::vector<double>& x) {
  Level& l = levels_[static_cast<std::size_t>(level)];
  l.halo->exchange(x.data());
  if (tuned_)
    symgs_tuned(*l.a, r.data(), x.data());
  else
    symgs_ref(*l.a, r.data(), x.data());
}

// ComputeMG_ref: pre-smooth, residual, restrict by injection, recurse, prolong, post-smooth.
void Solver::mg(int level, const std::vector<double>& r, std::vector<double>& x) {
  Level& l = levels_[static_cast<std::size_t>(level)];
  std::fill(x.begin(), x.begin() + l.a->rows, 0.0);
  if (!l.a->coarse) {
    symgs(level, r, x);
    return;
  }
  symgs(level, r, x);
  spmv(level, x, l.axf, nullptr);  // the V-cycle's own: in its time, not CG's SpMV
  for (std::size_t i = 0; i < l.a->f2c.size(); ++i) {
    const auto f = static_cast<std::size_t>(l.a->f2c[i]);
    l.rc[i] = r[f] - l.axf[f];
  }
  mg(level + 1, l.rc, l.xc);
  for (std::size_t i = 0; i < l.a->f2c.size(); ++i) x[static_cast<std::size_t>(l.a->f2c[i])] += l.xc[i];
  symgs(level, r, x);
}

double Solver::dot(const std::vector<double>& x, const std::vector<double>& y) {
  const double t0 = MPI_Wtime();
  double local = dot_ref(levels_[0].a->rows, x.data(), y.data());  // one summation order for both variants
  const double t1 = MPI_Wtime();
  double global = 0;
  RIPPLE_MPI_CHECK(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_));
  times_.ddot += t1 - t0;
  times_.allreduce += MPI_Wtime() - t1;
  return global;
}

void Solver::waxpby(double alpha, const std::vector<double>& x, double beta, const std::vector<double>& y,
                    std::vector<double>& w) {
  const double t0 = MPI_Wtime();
  waxpby_ref(levels_[0].a->rows, alpha, x.data(), beta, y.data(), w.data());
  times_.waxpby += MPI_Wtime() - t0;
}

// CG_ref with preconditioning and tolerance 0.
std::vector<double> Solver::cg(const std::vector<double>& b, std::vector<double>& x, int max_iterations,
                               const std::function<void(int)>& before_iteration) {
  const SparseMatrix& a = *levels_[0].a;
  const auto cols = static_cast<std::size_t>(a.columns);
  std::vector<double> r(cols, 0.0), z(cols, 0.0), p(cols, 0.0), ap(cols, 0.0);
  std::copy(x.begin(), x.begin() + a.rows, p.begin());
  spmv(0, p, ap, &times_.spmv);
  waxpby(1.0, b, -1.0, ap, r);
  double normr = std::sqrt(dot(r, r));
  const double normr0 = normr;
  std::vector<double> history{normr / normr0};
  double rtz = 0;
  for (int k = 1; k <= max_iterations && normr / normr0 > 0.0; ++k) {
    if (before_iteration) before_iteration(k);
    const double t0 = MPI_Wtime();
    mg(0, r, z);
    times_.mg += MPI_Wtime() - t0;
    if (k == 1) {
      waxpby(1.0, z, 0.0, z, p);
      rtz = dot(r, z);
    } else {
      const double old = rtz;
      rtz = dot(r, z);
      waxpby(1.0, z, rtz / old, p, p);
    }
    spmv(0, p, ap, &times_.spmv);
    const double pap = dot(p, ap);
    if (!(pap > 0.0)) break;  // converged to the last bit (or broke down): stop before dividing by it
    const double alpha = rtz / pap;
    waxpby(1.0, x, alpha, p, x);
    waxpby(1.0, r, -alpha, ap, r);
    normr = std::sqrt(dot(r, r));
    history.push_back(normr / normr0);
  }
  return history;
}

}  // namespace ripple::hpcg
