#pragma once
// A traced run as a program for the timeline model: every rank's MPI calls in order, the compute
// between them, and which send each receive took its message from. The model replays it with
// modelled communication (timeline_model.hpp). Held whole in memory (88 bytes per event and about
// 40 per op): meant for runs of up to some millions of events.
#include <cstdint>
#include <string>
#include <vector>

#include "ripple/analysis/call_kinds.hpp"
#include "ripple/trace/event.hpp"

namespace ripple::analysis {

// A point-to-point message: the send that posted it and the receive that took it (matched in MPI's
// order: the k-th send from s to d with a tag on a communicator goes to the k-th such receive).
struct Message {
  int src = 0, dst = 0;
  std::int64_t bytes = 0;
  std::int64_t send_op = -1, recv_op = -1;  // indices into Program::ops; -1: unmatched
  bool same_node = true;
};

// One MPI call of a rank (completion records are folded into the call they follow).
struct Op {
  CallKind kind = CallKind::Other;
  std::int32_t call = 0;  // the trace's call id
  std::int32_t rank = 0;
  std::int32_t tag = -1;         // markers: the Pcontrol level
  std::int32_t iteration = -1;   // the marked iteration it lies in (-1 outside any)
  std::int32_t slot = -1;        // its place among the ops of its iteration (0 = the marker), -1 outside
  std::int64_t event = 0;        // index into Program::events
  std::int64_t message = -1;     // a send or receive: its message (a Sendrecv: the message it sends)
  std::int64_t message2 = -1;    // a Sendrecv: the message it receives
  std::int64_t waits = -1;       // a wait: its first entry in Program::wait_messages
  std::int32_t wait_count = 0;   //   and how many (messages whose arrival or send completion it waits for)
  std::int64_t collective = -1;  // a collective on MPI_COMM_WORLD: its instance number (the k-th of the rank)
  double gap = 0;                // compute before it: from the rank's previous op's exit to its enter
  double duration = 0;           // its own time in the trace
  double injected = 0;           // work injected just before it (delay markers, MPI_Pcontrol 7702), in `gap`
};

// A wait's entry: a message whose receive (recv = true) or send it waits for.
struct WaitEntry {
  std::int64_t message = 0;
  bool recv = true;
};

struct Program {
  std::string path;
  int ranks = 0;
  std::vector<std::string> call_names;
  std::vector<trace::Event> events;      // all of them, rank by rank
  std::vector<Op> ops;                   // rank by rank, in order
  std::vector<std::int64_t> rank_first;  // [ranks + 1]: each rank's ops are [rank_first[r], rank_first[r + 1])
  std::vector<std::int64_t> anchor;      // per rank: its first timed iteration's marker op (-1: none), where models start it
  std::vector<Message> messages;
  std::vector<WaitEntry> wait_messages;
  std::vector<std::int64_t> collective_calls;  // per instance k: the call id of the k-th world collective (rank 0's)
  std::int64_t unmatched = 0;                  // sends and receives without a partner (left without a dependency)
  std::string eager_limits;                    // the trace's sources "eager_limits" (JSON), or ""
  std::string core_sharing;                    // nodes whose ranks outnumber their CPUs ("16 ranks share 2 CPU(s) on vm"), or ""
};

// Reads the whole trace. Throws InputError for a trace the model cannot use (no events, or whose
// ranks made different numbers of world collectives).
Program read_program(const std::string& path);

}  // namespace ripple::analysis
