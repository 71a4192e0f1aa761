#pragma once
// HPCG's preconditioned CG with the 4-level multigrid V-cycle and symmetric Gauss-Seidel smoother,
// in the reference's floating-point order. Every kernel exists twice: *_ref, frozen and plain, and a
// tuned one; both round identically (tests compare their residual histories bit for bit).
#include <mpi.h>

#include <functional>
#include <memory>
#include <vector>

#include "hpcg_problem.hpp"
#include "ripple/proxy/shm_channels.hpp"

namespace ripple::hpcg {

// The halo exchange of one level, as HPCG's ExchangeHalo: MPI_Irecv from every neighbour, pack,
// blocking MPI_Send to each, MPI_Wait on each receive. With shared memory, neighbours on the node
// write their values into memory this rank unpacks from instead.
class Halo {
public:
  Halo(MPI_Comm comm, const SparseMatrix& a, const proxy::NodeInfo* node, double* seconds);
  void exchange(double* x);

private:
  MPI_Comm comm_;
  const SparseMatrix& a_;
  std::vector<double> send_buffer_;
  std::vector<MPI_Request> requests_;
  std::vector<bool> shm_;  // per neighbour
  std::vector<std::size_t> send_channel_, receive_channel_;
  std::unique_ptr<proxy::ShmChannels> channels_;
  std::int64_t seq_ = 0;
  double* seconds_;
};

struct KernelTimes {
  double ddot = 0, waxpby = 0, spmv = 0, mg = 0;  // local work, fine level (mg: the whole V-cycle, its
                                                  // own SpMVs and halo exchanges in it; spmv: CG's only)
  double allreduce = 0, halo = 0;                 // communication, all levels
};

class Solver {
public:
  // `tuned` picks the tuned kernels; `shm` the shared-memory halo for same-node neighbours.
  Solver(MPI_Comm comm, const SparseMatrix& a, bool tuned, bool shm);

  // 50 iterations (or max_iterations) of preconditioned CG from x = 0, tolerance 0; returns the
  // scaled residual ||r_k|| / ||r_0|| for k = 0 .. iterations.
  // `before_iteration(k)` runs at the start of iteration k (1-based): markers and injected work.
  std::vector<double> cg(const std::vector<double>& b, std::vector<double>& x, int max_iterations,
                         const std::function<void(int)>& before_iteration = {});
  [[nodiscard]] const KernelTimes& times() const { return times_; }
  void reset_times() { times_ = KernelTimes{}; }  // before the timed solve: warm-up solves not counted

  // The kernels, public for tests. Vectors have `columns` entries where a halo is read.
  // y = A x on a level; the kernel's time (not its halo exchange's) added to *seconds if given.
  void spmv(int level, std::vector<double>& x, std::vector<double>& y, double* seconds);
  void symgs(int level, const std::vector<double>& r, std::vector<double>& x);
  void mg(int level, const std::vector<double>& r, std::vector<double>& x);
  double dot(const std::vector<double>& x, const std::vector<double>& y);
  void waxpby(double alpha, const std::vector<double>& x, double beta, const std::vector<double>& y, std::vector<double>& w);

private:
  struct Level {
    const SparseMatrix* a;
    std::unique_ptr<Halo> halo;
    std::vector<double> axf, rc, xc;
  };
  MPI_Comm comm_;
  bool tuned_;
  std::unique_ptr<proxy::NodeInfo> node_;
  std::vector<Level> levels_;
  KernelTimes times_;
};

}  // namespace ripple::hpcg
