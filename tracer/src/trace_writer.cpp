// MPI_Finalize: every rank's events (spool plus buffer) go into one HDF5 file, written collectively
// by all ranks in rounds of bounded size. Recording is off meanwhile: HDF5's own MPI calls pass
// through the wrappers unrecorded.
#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "recorder.hpp"
#include "recorder_state.hpp"
#include "ripple/common/file_space.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/perf_decoder.hpp"
#include "ripple/trace/trace_layout.hpp"
#include "ripple/trace/trace_schema.hpp"
#include "sources_json.hpp"
#include "spool_dir.hpp"
#include "spool_reader.hpp"
#include "trace_file_guard.hpp"

namespace ripple::trace {
namespace {

using detail::g_state;
using detail::State;

// A step of the write (an HDF5 call, or a helper of several: attributes, provenance, the file's
// creation, its close), agreed on: if it failed anywhere, or if a call on the file failed there (the
// wrappers keep I/O errors from HDF5, trace_file_guard.hpp, so that every rank goes through HDF5's
// collectives alike), every rank throws the lowest failing rank's reason at the same point and
// unwinds (objects, then the file) in step. From then on no rank writes to the file, so that HDF5
// closes it cleanly; the incomplete file is removed.
template <class Step>
void agreed(Step&& step) {
  try {
    run_collectively(MPI_COMM_WORLD, [&] {
      step();
      if (*trace_file_error() != '\0')
        throw Error("rank " + std::to_string(g_state->rank) + " could not write to the file: " + trace_file_error());
    });
  } catch (const AgreedError&) {
    discard_trace_file_writes();
    throw;
  }
}
template <class Value>
void agreed_attribute(hid_t obj, const std::string& name, const Value& value) {
  agreed([&] { write_attribute(obj, name, value); });
}
void h5_agreed(bool ok, const char* call) {
  agreed([&] {
    if (!ok) throw Error(std::string("HDF5 call ") + call + " failed on rank " + std::to_string(g_state->rank));
  });
}
// A call that creates an object: where it worked but failed elsewhere, the object is closed again
// before the throw (an open object would make this rank's H5Fclose refuse at once, while the failing
// rank waits in its collective close).
hid_t h5_agreed_id(hid_t id, const char* call) {
  try {
    h5_agreed(id >= 0, call);
  } catch (const AgreedError&) {
    if (id >= 0) H5Id{id}.reset();
    throw;
  }
  return id;
}
#define RIPPLE_H5_AGREED_ID(call) h5_agreed_id((call), #call)
#define RIPPLE_H5_AGREED(call) h5_agreed((call) >= 0, #call)

// Local HDF5 calls (dataspaces, selections, types) run inside agreed steps too: a rank whose local
// call failed must not skip the collective call that follows while the others wait in it.

// A dataset of `rows` rows, 1-D or of `width` columns, created collectively.
H5Id create_table(const ParallelH5File& file, const char* name, hid_t type, std::int64_t rows, hsize_t width = 0) {
  const hsize_t dims[2] = {static_cast<hsize_t>(rows), width};
  H5Id space;
  agreed([&] { space = H5Id(RIPPLE_H5_CHECK(H5Screate_simple(width > 0 ? 2 : 1, dims, nullptr))); });
  return H5Id(RIPPLE_H5_AGREED_ID(H5Dcreate2(file.id(), name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
}

// Writes rows [start, start + count) of the dataset ds, 1-D or of `width` columns: every rank calls
// it, some with nothing to write, and all agree on the outcome. HDF5 rejects a null buffer even for an
// empty selection, and a write to a dataset without elements.
void write_slice(const ParallelH5File& file, hid_t ds, hid_t type, hsize_t start, hsize_t count, const void* data,
                 hsize_t width = 0) {
  static const std::uint64_t nothing = 0;
  H5Id space, mem;
  bool empty = false;  // a dataset without elements, on every rank alike
  agreed([&] {
    space = H5Id(RIPPLE_H5_CHECK(H5Dget_space(ds)));
    empty = H5Sget_simple_extent_npoints(space.get()) == 0;
    if (empty) return;
    const hsize_t at[2] = {start, 0}, rows[2] = {count, width};
    if (count == 0)
      RIPPLE_H5_CHECK(H5Sselect_none(space.get()));
    else
      RIPPLE_H5_CHECK(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, at, nullptr, rows, nullptr));
    const hsize_t elements = count * std::max<hsize_t>(width, 1);
    mem = H5Id(RIPPLE_H5_CHECK(H5Screate_simple(1, &elements, nullptr)));
    if (count == 0) RIPPLE_H5_CHECK(H5Sselect_none(mem.get()));
  });
  if (empty) return;
  // Independent: every rank writes one contiguous slice, and sees its own write's failure (Open MPI
  // 4.1's collective write on three or more ranks reports every rank's write whole, even one that
  // failed: the trace would have lost rows unseen).
  RIPPLE_H5_AGREED(H5Dwrite(ds, type, mem.get(), space.get(), file.independent(), data != nullptr ? data : &nothing));
}

// A [ranks] dataset to which every rank writes its own entry, collectively.
void write_per_rank(const ParallelH5File& file, const char* name, hid_t type, const void* value, int rank, int ranks) {
  const H5Id ds = create_table(file, name, type, ranks);
  write_slice(file, ds.get(), type, static_cast<hsize_t>(rank), 1, value);
}

// An HDF5 type of the writer's, made in an agreed step.
template <class Make>
H5Id agreed_type(Make&& make) {
  H5Id type;
  agreed([&] { type = make(); });
  return type;
}

// A table's `rows` rows of this rank, in rounds of at most `per_round`, so that memory stays
// bounded: round(done, n) handles rows [done, done + n). As many rounds as the rank with the most
// rows needs, since every rank joins every round's collective write (some with n = 0).
template <class Round>
void in_rounds(std::int64_t rows, std::int64_t per_round, Round&& round) {
  std::int64_t rounds = (rows + per_round - 1) / per_round;
  PMPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  std::int64_t done = 0;
  for (std::int64_t r = 0; r < rounds; ++r) {
    const std::int64_t n = std::clamp<std::int64_t>(rows - done, 0, per_round);
    round(done, static_cast<std::size_t>(n));
    done += n;
  }
}

// A side spool's records, read back for the file (flush_all has written them all). `rows`: how
// many whole records it holds (0 if it cannot be read: they count as lost).
struct SideSpool {
  detail::SpoolRecords in;
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
void write_rank_columns(const ParallelH5File& f, const State& s, const RankRow& row) {
  for (const layout::RankColumnSpec& spec : layout::kRankColumns) {
    std::int64_t i = 0;
    double d = 0;
    switch (spec.column) {
      case layout::RankColumn::Offset:
        i = row.offset;
        break;
      case layout::RankColumn::Count:
        i = row.count;
        break;
      case layout::RankColumn::Lost:
        i = row.lost;
        break;
      case layout::RankColumn::RequestsUntracked:
        i = s.requests.untracked();
        break;
      case layout::RankColumn::PeersUntranslated:
        i = s.peers_untranslated;
        break;
      case layout::RankColumn::CountersLost:
        i = row.counters_lost;
        break;
      case layout::RankColumn::SamplesLost:
        i = row.samples_lost;
        break;
      case layout::RankColumn::SamplesDropped:
        i = row.samples_dropped;
        break;
      case layout::RankColumn::ClockOffset:
        d = row.clock_offset;
        break;
      case layout::RankColumn::ClockDrift:
        d = row.clock_drift;
        break;
      case layout::RankColumn::ClockError:
        d = row.clock_error;
        break;
      case layout::RankColumn::LastEventWallTime:
        d = row.last_event_wall_time;
        break;
    }
    if (spec.type == layout::Number::I64)
      write_per_rank(f, spec.name, H5T_NATIVE_INT64, &i, s.rank, s.ranks);
    else
      write_per_rank(f, spec.name, H5T_NATIVE_DOUBLE, &d, s.rank, s.ranks);
  }
}

// Where this rank's `rows` go in a table of every rank's rows, in rank order (collective).
struct RankSlice {
  std::int64_t offset = 0, total = 0;
};
RankSlice rank_slice(std::int64_t rows, int rank) {
  RankSlice r;
  PMPI_Exscan(&rows, &r.offset, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) r.offset = 0;  // Exscan leaves rank 0's result undefined
  PMPI_Allreduce(&rows, &r.total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return r;
}

// Attribute values must be identical on every rank: rank 0's version of a per-rank string.
std::string rank0_string(std::string v) {
  int n = static_cast<int>(v.size());
  PMPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  v.resize(static_cast<std::size_t>(n));
  PMPI_Bcast(v.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  return v;
}

// This rank's sources (sources_json.hpp): rank 0's are the root attribute `sources`.
std::string sources_of(const State& s) {
  return detail::sources_json("active", s.counters.status_text(), s.sampler.status(), s.placement.status, s.eager_limits);
}

// /ranks/sources: every rank's own sources (`mine`), zero-padded to fixed-length strings as long
// as the longest (collective). Ranks can differ: a socket leader counts the uncore events; one
// rank's ring buffers fit the user's locked-memory limit, the next one's do not.
std::size_t sources_width(const std::string& mine) {
  long width = static_cast<long>(std::max<std::size_t>(mine.size(), 1));
  PMPI_Allreduce(MPI_IN_PLACE, &width, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return static_cast<std::size_t>(width);
}
void write_rank_sources(const ParallelH5File& file, const State& s, std::string mine, std::size_t width) {
  mine.resize(width, '\0');
  const H5Id type = agreed_type([&] { return text_h5_type(width); });
  write_per_rank(file, schema::kRankSources, type.get(), mine.data(), s.rank, s.ranks);
}

// /ranks/placement (one record per rank) and /topology: each node leader's hwloc XML, collectively.
void write_placement(const ParallelH5File& file, const State& s) {
  const H5Id type = agreed_type(placement_h5_type);
  write_per_rank(file, schema::kPlacement, type.get(), &s.placement.me, s.rank, s.ranks);

  const auto bytes = static_cast<std::int64_t>(s.placement.node_xml.size());
  const auto [at, total] = rank_slice(bytes, s.rank);
  int nodes = s.placement.me.node_leader;
  PMPI_Allreduce(MPI_IN_PLACE, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nodes) + 1, 0);
  if (s.placement.me.node_leader != 0) offsets[static_cast<std::size_t>(s.placement.me.node)] = at;
  PMPI_Allreduce(MPI_IN_PLACE, offsets.data(), nodes, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  offsets.back() = total;
  H5Id group(RIPPLE_H5_AGREED_ID(H5Gcreate2(file.id(), schema::kTopology, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  const auto n_offsets = static_cast<std::int64_t>(offsets.size());
  const H5Id off = create_table(file, schema::kTopologyXmlOffset, H5T_NATIVE_INT64, n_offsets);
  write_slice(file, off.get(), H5T_NATIVE_INT64, 0, s.rank == 0 ? static_cast<hsize_t>(n_offsets) : 0,
              offsets.data());  // rank 0 has them all
  const H5Id xml = create_table(file, schema::kTopologyXml, H5T_NATIVE_UINT8, total);
  write_slice(file, xml.get(), H5T_NATIVE_UINT8, static_cast<hsize_t>(at), static_cast<hsize_t>(bytes),
              s.placement.node_xml.data());
}

// A counter spool's record: its head, then one int64 per event.
std::size_t counter_record_bytes(const State& s) { return sizeof(detail::CounterRecordHead) + 8 * s.counters.size(); }

// /counters: every rank's samples (MPI_Init, each iteration marker, MPI_Finalize) from its counter
// spool, collectively, in rounds. Returns the samples taken that are not in the spool (its creation
// or a write failed): /ranks/counters_lost.
std::int64_t write_counters(const ParallelH5File& file, const State& s, const ClockModel& clock) {
  const std::size_t n = s.counters.size();
  // Every rank must create the same datasets: with different event lists per rank (RIPPLE_PAPI_EVENTS
  // set per rank) the value columns cannot share one table, and are left out on all ranks.
  long widths[2] = {static_cast<long>(n), -static_cast<long>(n)};
  PMPI_Allreduce(MPI_IN_PLACE, widths, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  const bool same_width = widths[0] == -widths[1];
  constexpr std::size_t kHead = sizeof(detail::CounterRecordHead);
  const std::size_t record_bytes = counter_record_bytes(s);
  SideSpool spool(n > 0 ? s.counter_spool_path : std::string(), s.counter_data_offset, record_bytes);
  const std::int64_t rows = std::min(spool.rows, s.counter_samples);
  const auto [offset, total] = rank_slice(rows, s.rank);
  H5Id group(RIPPLE_H5_AGREED_ID(H5Gcreate2(file.id(), schema::kCounters, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  agreed_attribute(group.get(), schema::kCounterEventsAttr, rank0_string(s.counters.names_text()));
  agreed_attribute(group.get(), schema::kStatusAttr, rank0_string(s.counters.status_text()));
  const bool with_values = n > 0 && same_width;
  H5Id time = create_table(file, schema::kCounterTime, H5T_NATIVE_DOUBLE, total);
  H5Id iteration = create_table(file, schema::kCounterIteration, H5T_NATIVE_INT32, total);
  H5Id rank = create_table(file, schema::kCounterRank, H5T_NATIVE_INT32, total);
  H5Id values;
  if (with_values) values = create_table(file, schema::kCounterValues, H5T_NATIVE_INT64, total, n);
  if (!same_width)
    agreed_attribute(group.get(), schema::kValuesMissingAttr, std::string("the ranks counted different event lists"));

  constexpr std::int64_t kRound = 1 << 16;
  const auto most = static_cast<std::size_t>(std::min(rows, kRound));
  std::vector<char> records;
  std::vector<double> t;
  std::vector<std::int32_t> it, rk;
  std::vector<std::int64_t> v;
  agreed([&] {
    records.resize(most * record_bytes);
    t.resize(most);
    it.resize(most);
    rk.assign(most, s.rank);
    v.resize(most * n);
  });
  in_rounds(rows, kRound, [&](std::int64_t done, std::size_t want) {
    const std::size_t got = spool.in.read(records.data(), want);
    std::fill(records.begin() + static_cast<std::ptrdiff_t>(got * record_bytes), records.end(), 0);  // unreadable
    for (std::size_t k = 0; k < want; ++k) {
      detail::CounterRecordHead head;
      std::memcpy(&head, records.data() + k * record_bytes, kHead);
      t[k] = clock.to_global(head.time + s.t0) - s.t0_root;
      it[k] = head.iteration;
      std::memcpy(v.data() + k * n, records.data() + k * record_bytes + kHead, 8 * n);
    }
    const auto at = static_cast<hsize_t>(offset + done);
    write_slice(file, time.get(), H5T_NATIVE_DOUBLE, at, want, t.data());
    write_slice(file, iteration.get(), H5T_NATIVE_INT32, at, want, it.data());
    write_slice(file, rank.get(), H5T_NATIVE_INT32, at, want, rk.data());
    if (with_values) write_slice(file, values.get(), H5T_NATIVE_INT64, at, want, v.data(), n);
  });
  return s.counter_samples - rows;
}

// /samples: every rank's precise memory samples from its sample spool, collectively, in rounds,
// times on rank 0's clock; this rank's losses into `row`.
void write_samples(const ParallelH5File& file, const State& s, const ClockModel& clock, RankRow& row) {
  SideSpool spool(s.sample_spool_path, s.sample_data_offset, sizeof(SampleRecord));
  const std::int64_t rows = spool.rows;
  const auto [offset, total] = rank_slice(rows, s.rank);
  H5Id group(RIPPLE_H5_AGREED_ID(H5Gcreate2(file.id(), schema::kSamplesGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  agreed_attribute(group.get(), schema::kStatusAttr, rank0_string(s.sampler.status()));
  agreed_attribute(group.get(), schema::kLevelNamesAttr, level_names_text());
  const H5Id type = agreed_type(sample_h5_type);
  H5Id ds = create_table(file, schema::kSamples, type.get(), total);
  constexpr std::int64_t kRound = 1 << 16;
  std::vector<SampleRecord> chunk;
  agreed([&] { chunk.resize(static_cast<std::size_t>(std::min(rows, kRound))); });
  in_rounds(rows, kRound, [&](std::int64_t done, std::size_t want) {
    const std::size_t got = spool.in.read(chunk.data(), want);
    std::fill(chunk.begin() + static_cast<std::ptrdiff_t>(got), chunk.end(), SampleRecord{});  // unreadable
    for (std::size_t k = 0; k < want; ++k) chunk[k].time = clock.to_global(chunk[k].time + s.t0) - s.t0_root;
    write_slice(file, ds.get(), type.get(), static_cast<hsize_t>(offset + done), want, chunk.data());
  });
  row.samples_lost = s.sampler.lost();
  // Decoded but not in the spool: more waiting than RIPPLE_TRACE_MAX_SAMPLES, or a failed write.
  row.samples_dropped = s.sampler.decoded() - rows;
}

// The clock map's pieces: those in the clock spool, then those still in memory (tracer_clock.hpp).
std::vector<TickSegment> clock_pieces(const State& s) {
  std::vector<TickSegment> pieces(s.clock_spooled);
  detail::SpoolRecords in;
  const std::size_t got = pieces.empty() || !in.open(s.clock_spool_path, sizeof(detail::ClockSpoolHeader), sizeof(TickSegment))
                              ? 0
                              : in.read(pieces.data(), pieces.size());
  if (got < pieces.size()) {
    std::fprintf(stderr, "ripple trace: rank %d cannot read back its clock spool %s: its times are less exact\n", s.rank,
                 s.clock_spool_path.c_str());
    pieces.resize(got);
  }
  const std::vector<TickSegment> rest = detail::tick_segments(s.clock_spooled);
  pieces.insert(pieces.end(), rest.begin(), rest.end());
  return pieces;
}

// What a rank adds to the file beside its events, samples, counters and placement: its rows of the
// per-rank tables (/ranks/offset, count, lost, the clock's offset, drift and error, the losses: 16
// columns of 8 bytes at most) and its node's entry of /topology/xml_offset.
constexpr std::int64_t kPerRankBytes = 17 * 8;

// The bytes to reserve for a file whose data take `bytes` (its metadata's margin added), or 0 where
// RIPPLE_TRACE_ROOM_CHECK=off (tests use it to reach the write errors the file itself meets).
std::int64_t file_need(std::int64_t bytes) {
  const char* check = std::getenv("RIPPLE_TRACE_ROOM_CHECK");
  if (check != nullptr && std::string(check) == "off") return 0;  // on this rank: the ranks still agree
  return hdf5_file_bytes(static_cast<double>(bytes));
}

// Whether every rank's file-size limit (ulimit -f) allows the file: any rank may be an MPI-IO
// aggregator writing near its end, and HDF5 1.10 that meets a write error cannot shut down cleanly
// (it crashes in MPI_Finalize on the file it failed to close). Looked at before rank 0 reserves the
// file's space (ParallelH5File::create), which sees a full disk or an exhausted quota: a
// reservation beyond the limit would raise SIGXFSZ.
bool size_limits_allow(const State& s, std::int64_t need) {
  int ok = 1;
  if (const std::string limited = need > 0 ? file_size_limit_refuses(need) : std::string(); !limited.empty()) {
    std::fprintf(stderr, "ripple trace: rank %d %s (%s)\n", s.rank, limited.c_str(), s.output.c_str());
    ok = 0;
  }
  PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return ok != 0;
}

// True when the whole file was written and closed on this rank.
bool write(State& s) {
  // Every event's times onto rank 0's clock, seconds since rank 0's start.
  const ClockModel clock(s.sync_start, s.sync_end);
  // Events carry raw ticks since tick0 (recorder.hpp): the clock's map makes them seconds. This
  // rank's own preparation (the map, its sources) is agreed on like every later step: a rank that
  // failed here (out of memory) would otherwise leave the others waiting in the first collective.
  std::optional<TickMap> clock_map;
  std::string sources;
  agreed([&] {
    clock_map.emplace(clock_pieces(s));
    sources = sources_of(s);
  });
  const TickMap& ticks = *clock_map;
  const auto seconds = [&](double t) { return stamp_seconds(ticks, s.tick0, t); };
  const auto to_global = [&](Event& e) {
    e.t_enter = clock.to_global(seconds(e.t_enter)) - s.t0_root;
    e.t_exit = clock.to_global(seconds(e.t_exit)) - s.t0_root;
  };
  // Everything this rank recorded: the spool, then what is still buffered.
  // (flush_all has emptied the ring: its events are in the spool or counted as lost.)
  const std::uint64_t ring_tail = s.tail.load(), ring_head = s.head.load();
  // The spool's events that can be read back, counted by a first reading before the rows are
  // placed: a disk may have lost or damaged blocks it took, and the table must hold only real
  // events (rows left for them became events of MPI_Init on rank 0). What did not make it, to a
  // failed write or on the disk, is lost. (Agreed on, as the steps after it: a rank that failed here
  // must not leave the others waiting in the next collective.)
  std::int64_t spooled = 0, lost = 0;
  agreed([&] {
    detail::EventBlockReader counting;
    if (counting.open(s.spool_path, detail::EventSpool::kDataOffset, detail::kBlockFormat))  // this build wrote it
      spooled = counting.count_rest();
    lost = detail::stream_lost(s.spool.numbered(), spooled, counting.lost());
    if (spooled < s.spool.written())  // the disk lost what it had taken: said, not hidden
      std::fprintf(stderr,
                   "ripple trace: rank %d: %lld spooled events could not be read back (%lld spool blocks damaged); they "
                   "are counted as lost\n",
                   s.rank, static_cast<long long>(s.spool.written() - spooled),
                   static_cast<long long>(counting.damaged_blocks()));
  });
  const std::int64_t total = spooled + static_cast<std::int64_t>(ring_head - ring_tail);
  const auto [offset, all] = rank_slice(total, s.rank);
  std::int64_t lost_all = 0;
  PMPI_Allreduce(&lost, &lost_all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);

  // What the file will hold: events, memory samples, counter rows, topology, sources (metadata: in the margin).
  const std::size_t width = sources_width(sources);
  std::int64_t file_bytes = static_cast<std::int64_t>(sizeof(Event)) * total +
                            static_cast<std::int64_t>(sizeof(SampleRecord)) *
                                SideSpool(s.sample_spool_path, s.sample_data_offset, sizeof(SampleRecord)).rows +
                            static_cast<std::int64_t>(counter_record_bytes(s)) *
                                SideSpool(s.counter_spool_path, s.counter_data_offset, counter_record_bytes(s)).rows +
                            static_cast<std::int64_t>(s.placement.node_xml.size() + sizeof(detail::Placement) + width) +
                            kPerRankBytes;
  PMPI_Allreduce(MPI_IN_PLACE, &file_bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  const std::int64_t need = file_need(file_bytes);
  if (!size_limits_allow(s, need)) return false;
  // Rounds of at most 1 Mi events per rank, so memory stays bounded; every rank joins every round.
  // Their buffer is allocated before the file exists: a failed allocation afterwards, on one rank,
  // would leave the others in the next collective.
  constexpr std::int64_t kRound = 1 << 20;
  std::vector<Event> chunk;
  ParallelH5File file;
  try {
    agreed([&] { chunk.reserve(static_cast<std::size_t>(std::clamp<std::int64_t>(total, 0, kRound))); });
    s.output_replaced = true;  // from here on the path holds this run's file, or nothing
    agreed([&] { file = ParallelH5File::create(MPI_COMM_WORLD, s.output, need); });  // collective: every rank or none
  } catch (const std::exception& e) {
    if (s.rank == 0) std::fprintf(stderr, "ripple trace: %s\n", e.what());
    return false;
  }
  void* handle = nullptr;  // the MPI-IO driver's MPI_File, whose write errors are kept from HDF5
  agreed([&] {
    if (H5Fget_vfd_handle(file.id(), H5P_DEFAULT, &handle) < 0 || handle == nullptr)
      throw Error("HDF5 gives no MPI-IO handle of the file");
  });
  watch_trace_file(*static_cast<MPI_File*>(handle));
  agreed_attribute(file.id(), schema::kSchemaAttr, std::string(schema::kSchema));
  agreed_attribute(file.id(), schema::kVersionAttr, static_cast<std::int64_t>(schema::kVersion));
  agreed_attribute(file.id(), schema::kEventsAttr, all);
  agreed_attribute(file.id(), schema::kLostEventsAttr, lost_all);
  agreed_attribute(file.id(), schema::kSourcesAttr, rank0_string(sources));
  agreed_attribute(file.id(), schema::kClockSourceAttr, rank0_string(s.clock_source));
  agreed_attribute(file.id(), schema::kClockAttr,
                   std::string("seconds since rank 0's start, on rank 0's CLOCK_MONOTONIC: each rank's offset to rank 0 "
                               "is measured by ping-pongs (shortest round trip) at MPI_Init and MPI_Finalize, with a "
                               "linear drift between; /ranks/clock_offset, clock_drift and clock_error give them"));
  int argc = 0;
  const Provenance provenance = collect_provenance(MPI_COMM_WORLD, argc, nullptr);
  agreed([&] { write_provenance(file.id(), provenance); });
  agreed_attribute(file.id(), schema::kCallNamesAttr, call_names_text());
  H5Id ranks_group(RIPPLE_H5_AGREED_ID(H5Gcreate2(file.id(), schema::kRanks, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  RankRow row;
  row.offset = offset;
  row.count = total;
  row.lost = lost;
  row.clock_offset = clock.offset();
  row.clock_drift = clock.drift();
  row.clock_error = std::max(s.sync_start.error, s.sync_end.error);

  row.counters_lost = write_counters(file, s, clock);
  write_placement(file, s);
  write_rank_sources(file, s, sources, width);
  write_samples(file, s, clock, row);

  H5Id type = agreed_type(event_h5_type);
  H5Id ds = create_table(file, schema::kEvents, type.get(), all);
  detail::EventBlockReader in;
  in.open(s.spool_path, detail::EventSpool::kDataOffset, detail::kBlockFormat);
  in_rounds(total, kRound, [&](std::int64_t done, std::size_t rows) {
    const auto n = static_cast<std::int64_t>(rows);
    chunk.resize(rows);
    // The spooled part in one read, then what is still in the buffer. The second reading gives what
    // the first counted, unless the file changed meanwhile (or a read failed): then the rows cannot
    // be filled, and the file is given up on every rank, its spools kept.
    const std::int64_t from_spool = std::clamp<std::int64_t>(spooled - done, 0, n);
    agreed([&] {
      const auto got = static_cast<std::int64_t>(in.read(chunk.data(), static_cast<std::size_t>(from_spool)));
      if (got < from_spool)
        throw Error("rank " + std::to_string(s.rank) + "'s spool " + s.spool_path + " gave " + std::to_string(spooled) +
                    " events when counted, and only " + std::to_string(done + got) + " when read again");
    });
    for (std::int64_t k = from_spool; k < n; ++k)
      chunk[static_cast<std::size_t>(k)] =
          s.ring[(ring_tail + static_cast<std::uint64_t>(done + k - spooled)) & (s.ring.size() - 1)];
    if (n > 0)  // events are in commit order: the round's last is the rank's last so far
      row.last_event_wall_time = s.spool.wall_start() + seconds(chunk[static_cast<std::size_t>(n - 1)].t_exit) - s.t0;
    for (std::int64_t k = 0; k < n; ++k) to_global(chunk[static_cast<std::size_t>(k)]);
    write_slice(file, ds.get(), type.get(), static_cast<hsize_t>(offset + done), rows, chunk.data());
  });
  in.close();
  write_rank_columns(file, s, row);
  ds.reset();  // the file closes only with none of its objects open
  type.reset();
  ranks_group.reset();
  agreed([&] { file.close(); });  // the close writes metadata, some ranks only: its failure too is agreed on
  return true;
}

}  // namespace

void stop(const void* call_site) {
  State* s = g_state;
  if (s == nullptr) return;
  if (detail::recording()) {
    { Scope scope(Call::MPI_Finalize, call_site); }
    detail::sample_counters(*s);
    detail::g_recording.on.store(false, std::memory_order_relaxed);  // HDF5's MPI calls below are not recorded
    detail::stop_flusher(*s);
    s->sampler.drain();
    detail::flush_all();  // everything to the spools first: if the HDF5 write fails, nothing is lost
    s->spool.close();
    if (s->counter_spool_fd >= 0) ::close(s->counter_spool_fd);
    if (s->clock_spool_fd >= 0) ::close(s->clock_spool_fd);
    s->counter_spool_fd = s->clock_spool_fd = -1;
    s->sampler.stop();  // closes the sample spool too
    s->sync_end = detail::measure_offset(s->rank, s->ranks);
    PMPI_Comm_free(&s->sync_comm);
    int written = 0;
    try {
      written = write(*s) ? 1 : 0;
    } catch (const AgreedError& e) {  // every rank has it: said once
      if (s->rank == 0) std::fprintf(stderr, "ripple trace: could not write %s: %s\n", s->output.c_str(), e.what());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ripple trace: rank %d could not write %s: %s\n", s->rank, s->output.c_str(), e.what());
    }
    unwatch_trace_file();  // closed: MPI-IO's calls are the application's again
    // The spools go only once every rank's part is in the file: a full disk must not lose the trace.
    PMPI_Allreduce(MPI_IN_PLACE, &written, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (written != 0) {
      ::unlink(s->spool_path.c_str());
      if (!s->counter_spool_path.empty()) ::unlink(s->counter_spool_path.c_str());
      if (!s->clock_spool_path.empty()) ::unlink(s->clock_spool_path.c_str());
      if (!s->sample_spool_path.empty()) ::unlink(s->sample_spool_path.c_str());
      if (!s->placement_spool_path.empty()) ::unlink(s->placement_spool_path.c_str());
      PMPI_Barrier(MPI_COMM_WORLD);
      if (s->rank == 0) {
        detail::release_spool_dir(s->spool_dir, s->spool_lock_fd, true);
        ::rmdir(s->spool_dir.c_str());
      }
    } else if (s->rank == 0) {
      // An incomplete file is no trace, and its blocks are what recover will need: it goes.
      if (s->output_replaced) remove_regular_file(s->output);
      std::fprintf(stderr,
                   "ripple trace: %s is missing (not written, or incomplete and removed); every rank's events stay in %s: make "
                   "room (or lift the limit) and run 'ripple trace recover %s'\n",
                   s->output.c_str(), s->spool_dir.c_str(), s->output.c_str());
    }
  }
  detail::stop_flusher(*s);
  detail::release_spool_dir(s->spool_dir, s->spool_lock_fd, false);  // kept spools: the next run may move them aside
  g_state = nullptr;
  delete s;
}

}  // namespace ripple::trace
