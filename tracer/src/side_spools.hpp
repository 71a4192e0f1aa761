#pragma once
// The side spools beside the event spool, <spool_dir>/rank-NNNNNN.<kind> (spool_format.hpp): each
// opened at MPI_Init with its header; one that cannot be written is dropped (the trace says so) and
// the run goes on. flush_all appends their new records under write_mutex.

namespace ripple::trace::detail {

struct State;

void open_counter_spool(State& s);     // after the counters started; none without counters
void open_clock_spool(State& s);       // the clock map's pieces
void write_placement_spool(State& s);  // where this rank runs: written once, whole, for `recover`
void open_sample_spool(State& s);      // after the sampler started; none while it is inactive
// At each flush (under write_mutex): the clock map's new pieces, before the events whose ticks they
// convert; then the queued counter and memory samples.
void spool_clock(State& s);
void spool_side(State& s);

}  // namespace ripple::trace::detail
