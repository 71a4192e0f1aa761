#pragma once
// The iteration table of a trace (docs/waves.md). Iterations are delimited by the trace's iteration
// markers (MPI_Pcontrol 7701, ending at the next marker or the loop-end marker 7703), or, for
// programs without markers, by a call that ends each iteration (`iteration_call`, e.g.
// MPI_Waitall: iteration k lasts from the return of the rank's (k+1)-th such call to that of the
// next; what comes before the first and after the last is prologue and epilogue). Events are read in
// pieces: memory is O(ranks x iterations).
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ripple/analysis/iteration_table.hpp"
#include "ripple/trace/event.hpp"

namespace ripple::analysis {

IterationTable table_from_trace(const std::string& path, const std::string& iteration_call = "");

// The table from events handed over one at a time, each rank's in the order it made them (ranks may
// interleave): what table_from_trace does with a file's events, and `ripple compare` with a
// model's timeline of them.
class TraceTableBuilder {
public:
  // `path` names the input in messages; `call_names` are the trace's own.
  TraceTableBuilder(const std::string& path, int ranks, const std::vector<std::string>& call_names,
                    const std::string& iteration_call = "");
  ~TraceTableBuilder();
  TraceTableBuilder(const TraceTableBuilder&) = delete;
  TraceTableBuilder& operator=(const TraceTableBuilder&) = delete;
  void add(const trace::Event& e);
  void add(std::span<const trace::Event> events);  // the same, for many at once (one call, not one each)
  // Throws InputError for a trace without iterations (no markers, a call that never occurs, ...).
  IterationTable finish();

private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace ripple::analysis
