// ripple-hpcg: the HPCG 3.1 reference problem and algorithm (27-point stencil, 4-level multigrid
// with symmetric Gauss-Seidel, preconditioned CG, 50 iterations), with HPCG's halo exchange over MPI
// or, for neighbours on the node, shared memory.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hpcg_problem.hpp"
#include "hpcg_solver.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/pcontrol.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/proxy/iteration_loop.hpp"
#include "ripple/proxy/options.hpp"
#include "ripple/proxy/report.hpp"

namespace ripple::hpcg {
namespace {

constexpr int kLevels = 4;

struct Options {
  proxy::CommonOptions common;
  int nx = 16, ny = 16, nz = 16;
  std::string kernel = "tuned";
};

// Floating-point operations of `iterations` CG iterations, counted as HPCG's ReportResults does.
double flops(const SparseMatrix& a, int iterations) {
  const double it = iterations, sets = 1.0, rows = static_cast<double>(a.total_rows), nnz = static_cast<double>(a.total_nonzeros);
  double f = (3.0 * it + sets) * 2.0 * rows;  // DDOT
  f += (3.0 * it + sets) * 2.0 * rows;        // WAXPBY
  f += (it + sets) * 2.0 * nnz;               // SpMV
  const SparseMatrix* l = &a;
  for (; l->coarse; l = l->coarse.get())
    f += it * (4.0 + 2.0 + 4.0) * static_cast<double>(l->total_nonzeros);  // pre, residual, post
  f += it * 4.0 * static_cast<double>(l->total_nonzeros);                  // coarsest symmetric Gauss-Seidel
  return f;
}

int run(MPI_Comm comm, Options& o, int argc, char** argv) {
  const int rank = comm_rank(comm);
  run_collectively(comm, [&] {
    proxy::finish_common_options(o.common, comm_size(comm));
    const int need = 1 << (kLevels - 1);
    if (o.nx < need || o.ny < need || o.nz < need || o.nx % need || o.ny % need || o.nz % need)
      throw InputError(
          fmt::format("--nx/--ny/--nz {}x{}x{}: each must be a positive multiple of {} (4 multigrid levels halve it 3 times)",
                      o.nx, o.ny, o.nz, need));
    if (static_cast<std::int64_t>(o.nx) * o.ny * o.nz > (std::int64_t{1} << 24))
      throw InputError(fmt::format("--nx/--ny/--nz {}x{}x{}: at most 2^24 points per rank (use more ranks)", o.nx, o.ny, o.nz));
    if (o.common.iterations > 1000)
      throw InputError(fmt::format("--iterations {}: at most 1000 CG iterations", o.common.iterations));
    if (o.kernel != "tuned" && o.kernel != "ref") throw InputError(fmt::format("--kernel {}: use tuned or ref", o.kernel));
    if (o.common.halo != "mpi" && o.common.halo != "shm")
      throw InputError(fmt::format("--halo {}: use mpi or shm", o.common.halo));
  });
  const Geometry geom = make_geometry(comm, o.nx, o.ny, o.nz);
  const auto a = generate(comm, geom, kLevels);
  const std::vector<double> b = right_hand_side(*a);
  Solver solver(comm, *a, o.kernel == "tuned", o.common.halo == "shm");

  // Warm-up solves (untimed), then the timed one. An iteration's compute time is its time minus the
  // time spent in halo exchanges and allreduces. In sleep mode each timed iteration's compute is
  // padded with sleep to --compute-time at the iteration's end (computation and communication
  // interleave within an HPCG iteration, so the phase cannot be replaced piece by piece).
  std::vector<double> x;
  std::vector<double> history;
  proxy::IterationTimes times;
  std::vector<double> warm;
  double compute_time = o.common.compute_time;
  double last = 0, comm_before = 0, start = 0, injected = 0, longest = 0;
  std::int64_t overruns = 0;
  const auto comm_seconds = [&] { return solver.times().halo + solver.times().allreduce; };
  const auto close_iteration = [&](bool timed) {
    double now = MPI_Wtime();
    const double c = comm_seconds() - comm_before;
    double compute = now - last - c;
    if (!timed) {
      warm.push_back(compute);
    } else {
      if (o.common.work == proxy::WorkMode::Sleep) {
        // Pad the kernels' own time to --compute-time; injected work comes on top of it.
        proxy::spend(proxy::WorkMode::Sleep, compute_time - (compute - injected));
        overruns += compute - injected > compute_time ? 1 : 0;
        longest = std::max(longest, compute - injected);
        now = MPI_Wtime();
        compute = now - last - c;
      }
      times.compute.push_back(compute);
      times.comm.push_back(c);
      times.end.push_back(now - start);
    }
    last = now;
    comm_before = comm_seconds();
  };
  for (int solve = -o.common.warmup; solve <= 0; ++solve) {
    x.assign(static_cast<std::size_t>(a->columns), 0.0);
    if (solve == 0 && o.common.work == proxy::WorkMode::Sleep && compute_time == 0) {
      std::sort(warm.begin(), warm.end());
      compute_time = warm[warm.size() / 2];
      RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &compute_time, 1, MPI_DOUBLE, MPI_MAX, comm));
    }
    RIPPLE_MPI_CHECK(MPI_Barrier(comm));
    if (solve == 0) solver.reset_times();  // kernel_seconds: the timed solve's only
    start = last = MPI_Wtime();
    comm_before = comm_seconds();
    history = solver.cg(b, x, o.common.iterations, [&](int k) {
      if (k > 1) close_iteration(solve == 0);
      // Every CG iteration is marked, the warm-up solves' ones negative (-warmup * iterations ... -1),
      // as the other apps number their warm-up iterations.
      MPI_Pcontrol(kPcontrolIteration, solve * o.common.iterations + k - 1);
      if (solve == 0) injected = proxy::inject(o.common, rank, k - 1);
    });
    close_iteration(solve == 0);
  }
  MPI_Pcontrol(kPcontrolLoopEnd);
  if (o.common.work == proxy::WorkMode::Sleep) overruns = proxy::sleep_overruns(comm, overruns, longest, compute_time);
  const double now = MPI_Wtime();
  double seconds = now - start;
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm));

  // Verification: the exact solution is all ones.
  double error = 0;
  proxy::Checksum checksum;
  for (std::int64_t i = 0; i < a->rows; ++i) {
    const double e = std::abs(x[static_cast<std::size_t>(i)] - 1.0);
    error = std::isnan(e) ? HUGE_VAL : std::max(error, e);
    checksum.add(static_cast<std::uint64_t>(a->global_row[static_cast<std::size_t>(i)]), x[static_cast<std::size_t>(i)]);
  }
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_DOUBLE, MPI_MAX, comm));
  const std::uint64_t sum = checksum.global(comm);
  // Preconditioned CG minimises the error's A-norm, not the residual's 2-norm, which may rise now and
  // then (64^3 per rank: 2.72e-7 -> 2.82e-7 at iteration 39): the rises are counted and said, and
  // the check is that the solve reduced the residual and, after fifty iterations, reached x = 1 to
  // 1e-6 (on any grid tried, up to 64^3 per rank: 1.6e-7).
  int rises = 0;
  for (std::size_t k = 1; k < history.size(); ++k) rises += history[k] > history[k - 1] ? 1 : 0;
  const int done = static_cast<int>(history.size()) - 1;
  const bool good =
      std::isfinite(history.back()) && (done == 0 || history.back() < history.front()) && (done < 50 || error <= 1e-6);
  const int iterations = static_cast<int>(history.size()) - 1;
  // CG stops before --iterations once the residual or p.Ap reaches 0 (converged to the last bit):
  // said, not left to be noticed in the length of the residual history.
  const std::string stopped = iterations == o.common.iterations ? ""
                              : history.back() == 0.0           ? "the residual reached 0"
                                                      : "p.Ap reached 0 (converged to the last bit of double precision)";
  const double gflops = flops(*a, iterations) / seconds / 1e9;

  if (!o.common.output.empty()) {
    const double bytes = 8.0 * static_cast<double>(a->total_rows);
    proxy::write_result_file(comm, o.common.output, "ripple-hpcg", argc, argv, bytes, [&](const ParallelH5File& f) {
      H5Id ds = create_dataset(f.id(), "/x", {static_cast<hsize_t>(a->total_rows)});
      // Local rows are a block of the global grid: write them plane by plane, row by row.
      std::vector<std::pair<std::int64_t, std::int64_t>> runs;
      for (std::int64_t i = 0; i < a->rows; i += geom.nx) runs.emplace_back(a->global_row[static_cast<std::size_t>(i)], geom.nx);
      write_runs(f, ds.get(), -1, runs, std::span<const double>(x.data(), static_cast<std::size_t>(a->rows)));
    });
  }

  std::string levels, residuals;
  for (const SparseMatrix* l = a.get(); l != nullptr; l = l->coarse.get())
    levels +=
        fmt::format("{}{{\"equations\": {}, \"nonzeros\": {}}}", levels.empty() ? "" : ", ", l->total_rows, l->total_nonzeros);
  for (std::size_t k = 0; k < history.size(); ++k) residuals += (k ? ", " : "") + proxy::json_number(history[k]);
  const KernelTimes& kt = solver.times();
  proxy::write_summary(
      comm, o.common.json,
      {{"app", proxy::json_string("hpcg")},
       {"ranks", std::to_string(comm_size(comm))},
       {"process_grid", proxy::json_string(fmt::format("{}x{}x{}", geom.npx, geom.npy, geom.npz))},
       {"local", proxy::json_string(fmt::format("{}x{}x{}", o.nx, o.ny, o.nz))},
       {"kernel", proxy::json_string(o.kernel)},
       {"halo", proxy::json_string(o.common.halo)},
       {"levels", "[" + levels + "]"},
       {"iterations", std::to_string(iterations)},
       {"iterations_requested", std::to_string(o.common.iterations)},
       {"stopped_early", stopped.empty() ? "null" : proxy::json_string(stopped)},
       {"work", proxy::json_string(o.common.work_spec)},
       {"compute_time", proxy::sleep_phase_json(o.common, compute_time)},
       {"sleep_overruns", std::to_string(overruns)},
       {"warmup", std::to_string(o.common.warmup)},
       {"seconds", proxy::json_number(seconds)},
       {"gflops", proxy::json_number(gflops)},
       {"kernel_seconds",
        fmt::format("{{\"DDOT\": {}, \"WAXPBY\": {}, \"SpMV\": {}, \"MG\": {}, \"allreduce\": {}, \"halo\": {}}}",
                    proxy::json_number(kt.ddot), proxy::json_number(kt.waxpby), proxy::json_number(kt.spmv),
                    proxy::json_number(kt.mg), proxy::json_number(kt.allreduce), proxy::json_number(kt.halo))},
       {"residual_history", "[" + residuals + "]"},
       {"max_error", proxy::json_number(error)},
       {"residual_rises", std::to_string(rises)},
       {"verification", good ? "true" : "false"},
       {"checksum", proxy::json_string(proxy::hex(sum))}},
      times);
  if (rank == 0) {
    if (o.common.verbose)
      for (std::size_t k = 0; k < history.size(); ++k) std::printf("iteration %2zu scaled residual %.17g\n", k, history[k]);
    std::printf("hpcg: %d ranks (%dx%dx%d), %dx%dx%d per rank, %lld equations, %lld nonzeros, %s kernels, halo %s\n",
                comm_size(comm), geom.npx, geom.npy, geom.npz, o.nx, o.ny, o.nz, static_cast<long long>(a->total_rows),
                static_cast<long long>(a->total_nonzeros), o.kernel.c_str(), o.common.halo.c_str());
    std::printf("  %d iterations in %.4f s: %.3f GFLOP/s (HPCG's operation count); final scaled residual %.3g\n", iterations,
                seconds, gflops, history.back());
    if (!stopped.empty())
      std::printf("  stopped after %d of the %d iterations asked for: %s\n", iterations, o.common.iterations, stopped.c_str());
    std::printf("  verification %s: max |x - 1| = %.3g, residual %.3g -> %.3g (%d rise%s on the way)\n",
                good ? "PASSED" : "FAILED", error, history.front(), history.back(), rises, rises == 1 ? "" : "s");
  }
  return good ? 0 : 1;
}

}  // namespace
}  // namespace ripple::hpcg

int main(int argc, char** argv) {
  using namespace ripple::hpcg;
  CLI::App app{"HPCG 3.1 reference problem: multigrid-preconditioned CG on a 27-point stencil", "ripple-hpcg"};
  Options o;
  o.common.iterations = 50;
  o.common.warmup = 1;
  ripple::proxy::add_common_options(app, o.common);
  app.get_option("--warmup")->description("untimed warm-up solves before the timed one, each of --iterations CG iterations");
  app.add_option("--halo", o.common.halo, "mpi, or shm: halos of neighbours on the node through shared memory")
      ->capture_default_str();
  app.add_option("--nx", o.nx, "local grid points in x (a multiple of 8)")->capture_default_str();
  app.add_option("--ny", o.ny, "local grid points in y")->capture_default_str();
  app.add_option("--nz", o.nz, "local grid points in z")->capture_default_str();
  app.add_option("--kernel", o.kernel, "tuned or ref (HPCG's frozen reference kernels)")->capture_default_str();
  return ripple::proxy::run_proxy_app(argc, argv, app, [&](MPI_Comm comm) { return run(comm, o, argc, argv); });
}
