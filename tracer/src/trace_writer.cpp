// MPI_Finalize: every rank's events (spool plus buffer) go into one HDF5 file, written collectively
// by all ranks in rounds of bounded size. Recording is off meanwhile: HDF5's own MPI calls pass
// through the wrappers unrecorded.
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "agreed_write.hpp"
#include "recorder.hpp"
#include "recorder_state.hpp"
#include "ripple/common/file_space.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/trace_schema.hpp"
#include "spool_dir.hpp"
#include "spool_reader.hpp"
#include "trace_file_guard.hpp"
#include "trace_sections.hpp"

namespace ripple::trace {
namespace {

using namespace detail;  // the writer's own parts: agreed_write.hpp, trace_sections.hpp

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
    EventBlockReader counting;
    if (counting.open(s.spool_path, EventSpool::kDataOffset))  // this build wrote it
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
  const RankSlice slice = rank_slice(total, s.rank);  // no structured binding: clang 14 (clang-tidy) cannot capture one
  const std::int64_t offset = slice.offset, all = slice.total;
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
  EventBlockReader in;
  in.open(s.spool_path, EventSpool::kDataOffset);
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
