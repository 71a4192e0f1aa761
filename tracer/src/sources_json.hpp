#pragma once
// A rank's `sources` JSON (docs/trace-format.md): which sources ran and why others did not,
//   {"mpi": ..., "counters": {"NAME": "active via ..." | "unavailable: why", ...}, "perf": ..., "hwloc": ...}
// built from the same status texts that the side spools keep, so that MPI_Finalize and `recover`
// write it alike: the root attribute `sources` is rank 0's, /ranks/sources every rank's.
#include <string>

namespace ripple::trace::detail {

// `counter_status`: Counters::status_text(), one "NAME: active via ..." or "NAME: unavailable: why"
// line per event (a line without ": " is kept whole as a name with an empty status).
std::string sources_json(const std::string& mpi, const std::string& counter_status, const std::string& perf,
                         const std::string& hwloc);

}  // namespace ripple::trace::detail
