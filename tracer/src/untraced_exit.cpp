// A program under `ripple trace` that never initialises MPI (/bin/echo, a wrapper script that runs
// nothing with MPI) would end with its own exit code, no trace and not a word: the person would
// look for a file that was never to be. At the exit of the process `ripple trace` started (its pid
// in RIPPLE_TRACE_PID; not its children, which inherit the preload), rank 0 says so, unless MPI ran
// in a child of it and left this run's trace or spool. The exit code stays the program's. (A
// program that leaves by _exit, as dash's `exit` does, runs no destructor and is not caught.)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "recorder_state.hpp"
#include "ripple/common/mpi_util.hpp"

namespace ripple::trace::detail {
extern State* g_state;
void close_stderr_copy();
}  // namespace ripple::trace::detail

namespace {

timespec g_started{};
int g_stderr = -1;  // a copy of fd 2: coreutils close stderr in their own exit handler, before this

// Made or changed since this process started: this run's.
bool fresh(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return st.st_mtim.tv_sec > g_started.tv_sec ||
         (st.st_mtim.tv_sec == g_started.tv_sec && st.st_mtim.tv_nsec >= g_started.tv_nsec);
}

[[gnu::constructor]] void note_start() {
  clock_gettime(CLOCK_REALTIME, &g_started);
  if (std::getenv("RIPPLE_TRACE_PID") != nullptr) g_stderr = ::fcntl(2, F_DUPFD_CLOEXEC, 10);
}

[[gnu::destructor]] void say_if_untraced() {
  const char* pid = std::getenv("RIPPLE_TRACE_PID");
  const char* output = std::getenv("RIPPLE_TRACE_OUTPUT");
  if (pid == nullptr || output == nullptr || std::atol(pid) != static_cast<long>(::getpid())) return;
  if (ripple::trace::detail::g_state != nullptr || ripple::launcher_rank() != 0) return;
  const std::string out = output;
  if (g_stderr < 0 || fresh(out) || fresh(out + ".spool")) return;  // a child of this process traced MPI
  const std::string text = "ripple trace: the program never initialised MPI (no MPI_Init): no trace written to " + out + "\n";
  [[maybe_unused]] const ssize_t n = ::write(g_stderr, text.data(), text.size());
}

}  // namespace

// MPI_Init ran: nothing to say at exit, and a traced run leaves no descriptor an untraced one does not.
void ripple::trace::detail::close_stderr_copy() {
  if (g_stderr >= 0) ::close(g_stderr);
  g_stderr = -1;
}
