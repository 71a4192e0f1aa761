#pragma once
// What each MPI call of a trace's own call list means to the analyses: the iteration table counts
// messages and spots collectives; the timeline model replays sends, receives, waits and collectives.
#include <string>
#include <vector>

namespace ripple::analysis {

enum class CallKind : unsigned char {
  Other,        // anything else: a local call, replayed with its own duration
  Marker,       // MPI_Pcontrol (iteration, delay and loop-end markers)
  Send,         // a blocking send: MPI_Send, Ssend, Rsend, Bsend
  Isend,        // a non-blocking send: MPI_Isend, Issend, Irsend, Ibsend
  Sendrecv,     // MPI_Sendrecv(_replace): a send, then the receive half as a completion record
  Recv,         // a blocking receive: MPI_Recv, MPI_Mrecv
  Irecv,        // a non-blocking receive: MPI_Irecv, MPI_Imrecv
  Completion,   // a completion record (a request that completed, or a Sendrecv's receive half)
  Wait,         // MPI_Wait*, MPI_Test*: completes the requests its completion records name
  Collective,   // a blocking collective
  Icollective,  // a non-blocking collective
  Finalize
};

std::vector<CallKind> classify_calls(const std::vector<std::string>& names);

inline bool is_send(CallKind k) { return k == CallKind::Send || k == CallKind::Isend || k == CallKind::Sendrecv; }

}  // namespace ripple::analysis
