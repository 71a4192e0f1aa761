#pragma once
// A rank's `sources` JSON (docs/trace-format.md): which sources ran and why others did not,
//   {"mpi": ..., "counters": {"NAME": "active via ..." | "unavailable: why", ...}, "perf": ..., "hwloc": ...,
//    "eager_limits": {"NAME": bytes, ...} | "unavailable: why"}
// built from the same status texts that the side spools keep, so that MPI_Finalize and `recover`
// write it alike: the root attribute `sources` is rank 0's, /ranks/sources every rank's.
#include <string>
#include <utility>
#include <vector>

namespace ripple::trace::detail {

// (name, value) entries grouped by equal value, in the order each value first appears: (the names
// joined by ", ", the value). Six counters unavailable for one reason say it once: `trace info`'s
// text and the tracer's start-up warning.
std::vector<std::pair<std::string, std::string>> grouped_by_value(
    const std::vector<std::pair<std::string, std::string>>& entries);

// `counter_status`: Counters::status_text(), one "NAME: active via ..." or "NAME: unavailable: why"
// line per event (a line without ": " is kept whole as a name with an empty status).
// `eager_limits`: eager_limits_json()'s JSON value, or "" where unknown (recovered traces): left out.
std::string sources_json(const std::string& mpi, const std::string& counter_status, const std::string& perf,
                         const std::string& hwloc, const std::string& eager_limits = "");

}  // namespace ripple::trace::detail
