#pragma once
// The compute-communicate cycle every proxy app runs: iteration markers for the tracer, injected
// delays and noise, sleep-mode work emulation, and per-iteration timings.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "ripple/proxy/options.hpp"

namespace ripple::proxy {

struct IterationTimes {
  std::vector<double> compute;  // seconds of the compute phase, injected work included
  std::vector<double> comm;     // seconds of the communication phase
  std::vector<double> end;      // end of the iteration, seconds since the common start
};

// Extra work that --delay and --noise ask of `rank` in timed iteration `iteration`.
double injected_seconds(const CommonOptions& o, int rank, int iteration);

// Spends the work --delay and --noise ask of `rank` in timed iteration `iteration`, marked for the
// tracer first (MPI_Pcontrol(kPcontrolDelay, ...)); returns its seconds.
double inject(const CommonOptions& o, int rank, int iteration);

// Spins (compute mode) or sleeps for `seconds`.
void spend(WorkMode mode, double seconds);

// Sleep mode's check, after the timed iterations: `overruns` of them on this rank had a kernel
// longer than `compute_time` (the longest `longest` s). Collective; rank 0 warns once when any rank
// had one. Returns the sum over ranks.
std::int64_t sleep_overruns(MPI_Comm comm, std::int64_t overruns, double longest, double compute_time);

class IterationLoop {
public:
  IterationLoop(MPI_Comm comm, const CommonOptions& options);

  // Runs warm-up then timed iterations. `compute(iteration)` does the kernel; `communicate
  // (iteration)` the exchange. Iterations are numbered from -warmup; timed ones from 0. Each
  // iteration's start and the loop's end are marked for the tracer (common/pcontrol.hpp).
  void run(const std::function<void(int)>& compute, const std::function<void(int)>& communicate);

  [[nodiscard]] const IterationTimes& times() const { return times_; }
  [[nodiscard]] double compute_time() const { return compute_time_; }    // sleep mode: per phase
  [[nodiscard]] double timed_seconds() const { return timed_seconds_; }  // timed iterations, max over ranks
  // Sleep mode: timed iterations, summed over ranks, whose kernel outlasted --compute-time (their
  // phase is the kernel's, not the emulated one; rank 0 has warned once).
  [[nodiscard]] std::int64_t sleep_overruns() const { return overruns_; }

private:
  MPI_Comm comm_;
  const CommonOptions& o_;
  int rank_;
  double compute_time_ = 0;
  double timed_seconds_ = 0;
  std::int64_t overruns_ = 0;
  IterationTimes times_;
};

}  // namespace ripple::proxy
