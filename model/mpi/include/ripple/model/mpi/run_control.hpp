#pragma once
// When `ripple sim` flushes its output and writes a checkpoint, and when it stops early: every
// `[output] flush_seconds` of wall time (rank 0's clock decides, so that all ranks agree), and at
// once when any rank got SIGUSR1, SIGTERM or SIGINT (install_stop_handlers), which also stop the
// run.
#include <mpi.h>

#include <csignal>
#include <cstdint>
#include <string>

namespace ripple::model {

// The exit code of a run stopped by a signal after its checkpoint: run it again with --resume
// (EX_TEMPFAIL of sysexits.h: "try again later").
inline constexpr int kResumableExitCode = 75;

// For tests: at step `step`, every rank writes its PID to FILE.pid.RANK, rank 0 then creates
// FILE.paused, and all wait until FILE exists: a test sends its signals in between, at a point set
// by the simulation's progress rather than by the clock. FILE lists the ranks it signalled.
struct TestPause {
  std::int64_t step = -1;
  std::string file;
};

// Catches SIGUSR1, SIGTERM and SIGINT for RunControl from now on, for the life of the process: the
// first thing `ripple sim` does, so that a signal during its set-up stops the run at its first step
// rather than killing it. A second signal of the same kind has the default action (it ends the
// process at once).
void install_stop_handlers();

class RunControl {
public:
  enum class Action { None, Flush, Stop };

  RunControl(MPI_Comm comm, double flush_seconds, TestPause pause = {});

  // Collective, between two steps, `step` steps done: whether to flush (with a checkpoint) now, and
  // whether to stop after it. One small all-reduce.
  Action poll(std::int64_t step);
  // The flush is done: the clock starts again.
  void flushed();

private:
  void pause() const;

  MPI_Comm comm_;
  double flush_seconds_;
  TestPause pause_;
  bool root_;
  double last_flush_;
  struct sigaction old_[3]{};
};

}  // namespace ripple::model
