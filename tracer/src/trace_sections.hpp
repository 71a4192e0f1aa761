#pragma once
// The parts of the trace file beside the events (trace_writer.cpp), each written collectively by
// every rank in agreed steps (agreed_write.hpp): the per-rank columns, every rank's sources, the
// placement and topology, the counters, the memory samples; and the clock map's pieces.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "recorder_state.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/trace/clock_model.hpp"
#include "spool_reader.hpp"

namespace ripple::trace::detail {

// A side spool's records, read back for the file (flush_all has written them all). `rows`: how
// many whole records it holds (0 if it cannot be read: they count as lost).
struct SideSpool {
  SpoolRecords in;
  std::int64_t rows = 0;
  SideSpool(const std::string& path, std::int64_t data_offset, std::size_t record_bytes) {
    if (!path.empty() && in.open(path, data_offset, record_bytes)) rows = in.records();
  }
};

// This rank's entry of every per-rank column (trace_layout.hpp), gathered as the write goes on.
struct RankRow {
  std::int64_t offset = 0, count = 0, lost = 0, counters_lost = 0, samples_lost = 0, samples_dropped = 0;
  double clock_offset = 0, clock_drift = 0, clock_error = 0, last_event_wall_time = -1;
};

// Every column of layout::kRankColumns, each rank its own entry (collective).
void write_rank_columns(const ParallelH5File& f, const State& s, const RankRow& row);

// This rank's sources (sources_json.hpp): rank 0's are the root attribute `sources`.
std::string sources_of(const State& s);

// /ranks/sources: every rank's own sources (`mine`), zero-padded to fixed-length strings as long
// as the longest (collective). Ranks can differ: a socket leader counts the uncore events; one
// rank's ring buffers fit the user's locked-memory limit, the next one's do not.
std::size_t sources_width(const std::string& mine);
void write_rank_sources(const ParallelH5File& file, const State& s, std::string mine, std::size_t width);

// /ranks/placement (one record per rank) and /topology: each node leader's hwloc XML, collectively.
void write_placement(const ParallelH5File& file, const State& s);

// A counter spool's record: its head, then one int64 per event.
inline std::size_t counter_record_bytes(const State& s) { return sizeof(CounterRecordHead) + 8 * s.counters.size(); }

// /counters: every rank's samples (MPI_Init, each iteration marker, MPI_Finalize) from its counter
// spool, collectively, in rounds. Returns the samples taken that are not in the spool (its creation
// or a write failed): /ranks/counters_lost.
std::int64_t write_counters(const ParallelH5File& file, const State& s, const ClockModel& clock);

// /samples: every rank's precise memory samples from its sample spool, collectively, in rounds,
// times on rank 0's clock; this rank's losses into `row`.
void write_samples(const ParallelH5File& file, const State& s, const ClockModel& clock, RankRow& row);

// The clock map's pieces: those in the clock spool, then those still in memory (tracer_clock.hpp).
std::vector<TickSegment> clock_pieces(const State& s);

}  // namespace ripple::trace::detail
