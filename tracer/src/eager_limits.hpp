#pragma once
// The MPI library's eager limits (messages up to them go eagerly, larger ones by rendezvous), read
// through the MPI tool information interface (MPI_T control variables) at MPI_Init: every control
// variable whose name ends in "eager_limit" (Open MPI: btl_vader_eager_limit for shared memory,
// btl_tcp_eager_limit between nodes, and their rndv_ forms). `ripple compare` takes each message's
// protocol from them.
#include <string>

namespace ripple::trace::detail {

// A JSON object {"name": bytes, ...}, or a JSON string "unavailable: why". Call after MPI_Init.
std::string eager_limits_json();

}  // namespace ripple::trace::detail
