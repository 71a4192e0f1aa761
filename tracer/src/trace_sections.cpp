#include "trace_sections.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "agreed_write.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/perf_decoder.hpp"
#include "ripple/trace/trace_layout.hpp"
#include "ripple/trace/trace_schema.hpp"
#include "sources_json.hpp"
#include "spool_dir.hpp"

namespace ripple::trace::detail {

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

std::string sources_of(const State& s) {
  return sources_json("active", s.counters.status_text(), s.sampler.status(), s.placement.status, s.eager_limits);
}

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

std::int64_t write_counters(const ParallelH5File& file, const State& s, const ClockModel& clock) {
  const std::size_t n = s.counters.size();
  // Every rank must create the same datasets: with different event lists per rank (RIPPLE_PAPI_EVENTS
  // set per rank) the value columns cannot share one table, and are left out on all ranks.
  long widths[2] = {static_cast<long>(n), -static_cast<long>(n)};
  PMPI_Allreduce(MPI_IN_PLACE, widths, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  const bool same_width = widths[0] == -widths[1];
  constexpr std::size_t kHead = sizeof(CounterRecordHead);
  const std::size_t record_bytes = counter_record_bytes(s);
  SideSpool spool(n > 0 ? s.counter_spool_path : std::string(), s.counter_data_offset, record_bytes);
  const std::int64_t rows = std::min(spool.rows, s.counter_samples);
  const RankSlice slice = rank_slice(rows, s.rank);  // no structured binding: clang 14 (clang-tidy) cannot capture one
  const std::int64_t offset = slice.offset, total = slice.total;
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
      CounterRecordHead head;
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

void write_samples(const ParallelH5File& file, const State& s, const ClockModel& clock, RankRow& row) {
  SideSpool spool(s.sample_spool_path, s.sample_data_offset, sizeof(SampleRecord));
  const std::int64_t rows = spool.rows;
  const RankSlice slice = rank_slice(rows, s.rank);  // no structured binding: clang 14 (clang-tidy) cannot capture one
  const std::int64_t offset = slice.offset, total = slice.total;
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

std::vector<TickSegment> clock_pieces(const State& s) {
  std::vector<TickSegment> pieces(s.clock_spooled);
  SpoolRecords in;
  const std::size_t got = pieces.empty() || !in.open(s.clock_spool_path, sizeof(ClockSpoolHeader), sizeof(TickSegment))
                              ? 0
                              : in.read(pieces.data(), pieces.size());
  if (got < pieces.size()) {
    std::fprintf(stderr, "ripple trace: rank %d cannot read back its clock spool %s: its times are less exact\n", s.rank,
                 s.clock_spool_path.c_str());
    pieces.resize(got);
  }
  const std::vector<TickSegment> rest = tick_segments(s.clock_spooled);
  pieces.insert(pieces.end(), rest.begin(), rest.end());
  return pieces;
}

}  // namespace ripple::trace::detail
