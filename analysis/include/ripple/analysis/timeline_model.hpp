#pragma once
// The max-plus (dependency) timeline model of a traced run: every rank runs its MPI calls in the
// order it made them, with the compute between them given, and communication modelled (Hockney,
// as LogGOPSim and DisCostiC do): a message arrives at its send's post + alpha + beta * bytes, or,
// above the eager limit (rendezvous), at max(send post, receive post) + alpha + beta * bytes, when
// the send completes too; a wait ends when every request it completed is done; a blocking
// collective on MPI_COMM_WORLD ends a fitted cost after the last rank entered it. Other calls take
// the time they are given. Every rank starts its first timed iteration where the trace has it (the
// prologue is replayed, not compared); with `anchored`, every timed iteration (replay: each
// iteration from the trace's own start, so that the dependency model is checked one iteration at a
// time, not the drift of forty iterations of it). An anchored iteration marker's event then says
// both: t_enter is where the model reached it (the end of the iteration before, as modelled), t_exit
// where the trace has it (the next one's start). Idle waves are the recurrence's own: nothing
// about them is put in.
#include <cstdint>
#include <vector>

#include "ripple/analysis/program.hpp"
#include "ripple/trace/event.hpp"

namespace ripple::analysis {

struct TimelineParams {
  double alpha = 0;                       // s: latency
  double beta = 0;                        // s per byte: inverse bandwidth
  std::vector<double> call_cost;          // s per call id: what a communication call costs the caller when it need
                                          // not wait (the median, or for waits a low quantile, of its times)
  std::int64_t eager_same_node = 4096;    // bytes: eager up to this within a node
  std::int64_t eager_other_node = 65536;  //        and between nodes
  std::vector<double> collective_cost;    // s per call id: after the last rank entered
  [[nodiscard]] bool rendezvous(const Message& m) const { return m.bytes > (m.same_node ? eager_same_node : eager_other_node); }
};

// The model's timeline: the program's events with the modelled times (completion records at their
// call's exit). `gap[op]` and `local[op]` are each op's compute before it and, for calls the model
// does not model (markers and local calls), its own duration. Throws Error if the program cannot
// proceed (a receive whose message no rank sends, waited for).
std::vector<trace::Event> run_timeline(const Program& p, const TimelineParams& params, const std::vector<double>& gap,
                                       const std::vector<double>& local, bool anchored = false);

}  // namespace ripple::analysis
