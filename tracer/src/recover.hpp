#pragma once
#include <string>
namespace ripple::trace {
// Rebuilds a trace file from the spools in `input` (a spool directory, or a trace path whose .spool
// sits beside it); writes `output` (default: the trace path). Throws InputError for bad spools.
int recover(const std::string& input, const std::string& output);
}  // namespace ripple::trace
