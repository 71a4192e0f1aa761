#pragma once
// One traced MPI call: a fixed-size record, encoded into the per-rank spool's blocks
// (tracer/src/event_blocks.hpp) and, at the end, written to the HDF5 file's /events table
// (docs/trace-format.md).
#include <cstdint>
#include <string>

namespace ripple::trace {

enum class Call : std::int32_t {
#define RIPPLE_CALL(name) name,
#include "call_list.inc"
#undef RIPPLE_CALL
  Count
};

const char* call_name(Call c);
const char* call_name(std::int32_t c);  // "unknown" outside the list
int call_count();
// Every call name, newline-separated, in Call order: the HDF5 file's `call_names` attribute, and
// what the event spool keeps of the build that wrote it.
std::string call_names_text();

struct Event {
  double t_enter = 0;  // seconds on the tracer clock
  double t_exit = 0;
  std::uint64_t buffer = 0;     // address of the data buffer, 0 if none
  std::int64_t bytes = 0;       // count * size of the datatype
  std::int64_t extent = 0;      // bytes the buffer spans: count * extent of the datatype
  std::int64_t request = -1;    // id of the request this call created, -1 if none
  std::uint64_t call_site = 0;  // return address into the application
  std::int32_t call = 0;        // Call
  std::int32_t peer = -1;       // world rank; -1 none, -2 MPI_ANY_SOURCE, -3 MPI_PROC_NULL
  std::int32_t tag = -1;
  std::int32_t comm = -1;       // communicator id (0: MPI_COMM_WORLD), -1 none
  std::int32_t iteration = -1;  // last iteration marker seen (MPI_Pcontrol), -1 before any
  std::int32_t count = 0;       // element count, or number of requests for completion calls
  std::int32_t same_node = 0;   // 1 if the peer runs on this rank's node
  std::int32_t rank = 0;        // world rank that made the call
};
static_assert(sizeof(Event) == 88, "the spool and HDF5 layouts assume 88-byte events");

}  // namespace ripple::trace
