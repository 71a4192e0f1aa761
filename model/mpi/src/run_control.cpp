#include "ripple/model/mpi/run_control.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "ripple/common/mpi_util.hpp"

namespace ripple::model {
namespace {

// Written by the handler only (async-signal-safe), read between steps. Without the handlers
// (simulate() inside another command) it stays 0.
volatile std::sig_atomic_t g_signal = 0;
constexpr int kSignals[3] = {SIGUSR1, SIGTERM, SIGINT};

extern "C" void on_signal(int signo) { g_signal = signo; }

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal: the default action
  for (const int signo : kSignals) sigaction(signo, &sa, nullptr);
}

RunControl::RunControl(MPI_Comm comm, double flush_seconds, TestPause pause)
    : comm_(comm),
      flush_seconds_(flush_seconds),
      pause_(std::move(pause)),
      root_(comm_rank(comm) == 0),
      last_flush_(MPI_Wtime()) {}

RunControl::Action RunControl::poll(std::int64_t step) {
  if (step == pause_.step) pause();
  // 2: a signal on some rank; 1: rank 0's clock says it is time.
  int want = g_signal != 0 ? 2 : 0;
  if (root_ && want == 0 && MPI_Wtime() - last_flush_ >= flush_seconds_) want = 1;
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MAX, comm_));
  return want == 2 ? Action::Stop : want == 1 ? Action::Flush : Action::None;
}

void RunControl::flushed() { last_flush_ = MPI_Wtime(); }

void RunControl::pause() const {
  const int rank = comm_rank(comm_);
  std::ofstream(fmt::format("{}.pid.{}", pause_.file, rank)) << getpid() << '\n';
  RIPPLE_MPI_CHECK(MPI_Barrier(comm_));
  if (root_) std::ofstream(pause_.file + ".paused") << "paused\n";
  while (!std::filesystem::exists(pause_.file)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // FILE lists the ranks the test signalled: a signal may reach another thread of the process a
  // little after the test created FILE; each of them waits for its handler.
  std::ifstream in(pause_.file);
  for (int r; in >> r;)
    if (r == rank)
      while (g_signal == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  RIPPLE_MPI_CHECK(MPI_Barrier(comm_));
}

}  // namespace ripple::model
