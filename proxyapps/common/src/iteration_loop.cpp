#include "ripple/proxy/iteration_loop.hpp"

#include <errno.h>  // program_invocation_short_name

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "ripple/common/mpi_util.hpp"
#include "ripple/common/pcontrol.hpp"
#include "ripple/common/random.hpp"

namespace ripple::proxy {

double injected_seconds(const CommonOptions& o, int rank, int iteration) {
  double extra = 0;
  for (const Delay& d : o.delays)
    if (d.rank == rank && d.iteration == iteration) extra += d.seconds;
  if (o.noise != NoiseKind::None && iteration >= 0) {
    const double u =
        uniform01(o.seed, Stream::ProxyNoise, static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(iteration));
    extra += o.noise == NoiseKind::Exponential ? -o.noise_param * std::log(u) : o.noise_param * u;
  }
  return extra;
}

void spend(WorkMode mode, double seconds) {
  if (seconds <= 0) return;
  if (mode == WorkMode::Sleep) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return;
  }
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

double inject(const CommonOptions& o, int rank, int iteration) {
  const double seconds = injected_seconds(o, rank, iteration);
  if (seconds > 0) MPI_Pcontrol(kPcontrolDelay, iteration, seconds);  // the trace's ground truth
  spend(o.work, seconds);
  return seconds;
}

std::int64_t sleep_overruns(MPI_Comm comm, std::int64_t overruns, double longest, double compute_time) {
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &overruns, 1, MPI_INT64_T, MPI_SUM, comm));
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &longest, 1, MPI_DOUBLE, MPI_MAX, comm));
  if (overruns > 0 && comm_rank(comm) == 0)
    std::fprintf(stderr,
                 "%s: warning: --work sleep: the kernel itself took up to %.3g s, longer than the %.3g s compute phase, in %lld "
                 "rank-iterations: their phases are the kernel's, not the emulated ones (a smaller kernel fits, e.g. "
                 "ripple-ring --slices 1000)\n",
                 program_invocation_short_name, longest, compute_time, static_cast<long long>(overruns));
  return overruns;
}

IterationLoop::IterationLoop(MPI_Comm comm, const CommonOptions& options) : comm_(comm), o_(options), rank_(comm_rank(comm)) {}

void IterationLoop::run(const std::function<void(int)>& compute, const std::function<void(int)>& communicate) {
  std::vector<double> warm;
  std::int64_t overruns = 0;
  double longest = 0;
  compute_time_ = o_.compute_time;
  RIPPLE_MPI_CHECK(MPI_Barrier(comm_));
  double start = MPI_Wtime();
  for (int it = -o_.warmup; it < o_.iterations; ++it) {
    if (it == 0) {
      if (o_.work == WorkMode::Sleep && compute_time_ == 0) {
        // The emulated phase lasts as long as the real one did, the same on every rank.
        std::sort(warm.begin(), warm.end());
        compute_time_ = warm[warm.size() / 2];
        RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &compute_time_, 1, MPI_DOUBLE, MPI_MAX, comm_));
      }
      RIPPLE_MPI_CHECK(MPI_Barrier(comm_));
      start = MPI_Wtime();
    }
    MPI_Pcontrol(kPcontrolIteration, it);
    const double t0 = MPI_Wtime();
    compute(it);
    const double kernel = MPI_Wtime() - t0;
    if (it >= 0 && o_.work == WorkMode::Sleep) {
      spend(WorkMode::Sleep, compute_time_ - kernel);
      overruns += kernel > compute_time_ ? 1 : 0;
      longest = std::max(longest, kernel);
    }
    if (it >= 0) inject(o_, rank_, it);
    const double t1 = MPI_Wtime();
    communicate(it);
    const double t2 = MPI_Wtime();
    if (it < 0) {
      warm.push_back(kernel);
      continue;
    }
    times_.compute.push_back(t1 - t0);
    times_.comm.push_back(t2 - t1);
    times_.end.push_back(t2 - start);
  }
  MPI_Pcontrol(kPcontrolLoopEnd);
  timed_seconds_ = times_.end.empty() ? 0 : times_.end.back();
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &timed_seconds_, 1, MPI_DOUBLE, MPI_MAX, comm_));
  if (o_.work == WorkMode::Sleep) overruns_ = proxy::sleep_overruns(comm_, overruns, longest, compute_time_);
}

}  // namespace ripple::proxy
