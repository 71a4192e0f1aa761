#pragma once
// The spool directory <output>.spool/ that rank 0 makes at MPI_Init (docs/trace-format.md).
#include <string>

namespace ripple::trace::detail {

// Makes `dir` with the run's mark file (`mark`, "/.run-...") in it; returns 0, or the errno of what
// failed. A directory already there that holds an event spool (rank-*.bin) is an earlier run's that
// never became a trace (a finished run removes its spool): it is moved aside to <dir>.N (the first
// free N), never deleted, and `moved` names it. One that holds none has nothing recoverable: its
// leftover side spools and marks are removed and it is reused.
int make_spool_dir(const std::string& dir, const char* mark, std::string& moved);

}  // namespace ripple::trace::detail
