#pragma once
// The spool directory <output>.spool/ that rank 0 makes at MPI_Init (docs/trace-format.md).
#include <string>

namespace ripple::trace::detail {

// The lock file in the directory: rank 0 of the run that spools there holds it (flock) until the
// run is done with the directory.
inline constexpr const char* kSpoolLockName = "/.lock";

// Makes `dir` with the run's mark file (`mark`, "/.run-...") in it and locks it for this run
// (`lock_fd`, -1 on a file system without locks); returns 0, or the errno of what failed: EBUSY
// where another live run holds it (the same output traced twice at once), which is then left
// alone. A directory already there that holds an event spool (rank-*.bin) is an earlier run's that
// never became a trace (a finished run removes its spool): it is moved aside to <dir>.N (the first
// free N), never deleted, and `moved` names it. One that holds none has nothing recoverable: its
// leftover side spools and marks are removed and it is reused.
int make_spool_dir(const std::string& dir, const char* mark, std::string& moved, int& lock_fd);
// Lets go of the directory: its lock file removed first where `remove` (the directory is about to go).
void release_spool_dir(const std::string& dir, int& lock_fd, bool remove);

}  // namespace ripple::trace::detail
