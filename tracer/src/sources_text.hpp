#pragma once
// A trace's sources (the JSON object `trace info --json` passes on) as a person reads them: one
// line per source, and within a source (the counters) one line per distinct status, naming every
// entry that has it, so that six counters unavailable for one reason say it once.
#include <string>

namespace ripple::trace {

// "sources:\n  mpi       active\n  counters  PAPI_LD_INS, PAPI_TOT_CYC: unavailable: ...\n..."; the
// text as it is if it is not a JSON object.
std::string sources_text(const std::string& json);

}  // namespace ripple::trace
