#pragma once
// The iteration table of a trace (docs/waves.md). Iterations are delimited by the trace's iteration
// markers (MPI_Pcontrol 7701, ending at the next marker or the loop-end marker 7703), or, for
// programs without markers, by a call that ends each iteration (`iteration_call`, e.g.
// MPI_Waitall: iteration k lasts from the return of the rank's (k+1)-th such call to that of the
// next; what comes before the first and after the last is prologue and epilogue). Events are read in
// pieces: memory is O(ranks x iterations).
#include <string>

#include "ripple/analysis/iteration_table.hpp"

namespace ripple::analysis {

IterationTable table_from_trace(const std::string& path, const std::string& iteration_call = "");

}  // namespace ripple::analysis
