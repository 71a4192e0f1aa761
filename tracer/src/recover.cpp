// `ripple trace recover`: builds a valid trace file from the per-rank spools a run left behind when
// it died before MPI_Finalize (a rank killed, MPI_Abort). Runs as one process, without MPI. The
// spools are read by recover_spools.cpp; this writes the file, in the layout trace_layout.hpp gives.
#include "recover.hpp"

#include <fmt/format.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "recorder_state.hpp"
#include "recover_spools.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/perf_decoder.hpp"
#include "ripple/trace/trace_layout.hpp"
#include "ripple/trace/trace_schema.hpp"
#include "sources_json.hpp"
#include "spool_reader.hpp"

namespace ripple::trace {
namespace {

namespace fs = std::filesystem;
using namespace recovery;

// A whole dataset of `rows` rows (`width` columns, or 1-D with width 0), written at once.
void write_dataset(hid_t file, const char* name, hid_t type, const void* data, hsize_t rows, hsize_t width = 0) {
  const hsize_t dims[2] = {rows, width};
  H5Id space(RIPPLE_H5_CHECK(H5Screate_simple(width > 0 ? 2 : 1, dims, nullptr)));
  H5Id ds(RIPPLE_H5_CHECK(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  if (rows > 0) RIPPLE_H5_CHECK(H5Dwrite(ds.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
}

// Rows [start, start + n) of the dataset `ds` (1-D, or `width` columns) from `data`.
void write_rows(hid_t ds, hid_t type, hsize_t start, const void* data, hsize_t n, hsize_t width = 0) {
  if (n == 0) return;
  const hsize_t at[2] = {start, 0}, size[2] = {n, width};
  H5Id file_space(RIPPLE_H5_CHECK(H5Dget_space(ds)));
  RIPPLE_H5_CHECK(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, at, nullptr, size, nullptr));
  H5Id memory(RIPPLE_H5_CHECK(H5Screate_simple(width > 0 ? 2 : 1, size, nullptr)));
  RIPPLE_H5_CHECK(H5Dwrite(ds, type, memory.get(), file_space.get(), H5P_DEFAULT, data));
}

// A dataset of `rows` rows (1-D, or `width` columns), to be written in rounds.
H5Id create_rows(hid_t file, const char* name, hid_t type, hsize_t rows, hsize_t width = 0) {
  const hsize_t dims[2] = {rows, width};
  H5Id space(RIPPLE_H5_CHECK(H5Screate_simple(width > 0 ? 2 : 1, dims, nullptr)));
  return H5Id(RIPPLE_H5_CHECK(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
}

// /counters as MPI_Finalize writes it, from the counter spools, times on rank 0's clock like events;
// read and written in rounds of 64 Ki samples, rank after rank, so that memory does not grow with
// the spools.
void write_recovered_counters(hid_t file, const fs::path& dir, const SpoolFiles& files, const std::map<int, RankSpool>& spools,
                              int ranks, std::map<int, RankSources>& sources) {
  const std::map<int, CounterSpool> counters = side_spools_by_rank<CounterSpool>(
      dir, files, ".counters", "counter", spools, [&](const fs::path& path) { return read_counter_spool(path, ranks); });
  for (const auto& [r, c] : counters) sources[r].counters = c.status;
  std::int64_t total = 0;
  for (const auto& [r, c] : counters) total += c.rows;
  if (counters.empty()) return;
  const CounterSpool& first = counters.begin()->second;
  bool same = true;
  for (const auto& [r, c] : counters) same = same && c.header.values == first.header.values && c.names == first.names;
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file, schema::kCounters, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  write_attribute(group.get(), schema::kCounterEventsAttr, first.names);
  write_attribute(group.get(), schema::kStatusAttr, first.status);
  write_attribute(group.get(), schema::kRecoveredAttr,
                  std::string("every sample taken before the run died (MPI_Init and each iteration marker), from the counter "
                              "spools; ranks without one are missing"));
  if (!same) write_attribute(group.get(), schema::kValuesMissingAttr, std::string("the ranks counted different event lists"));
  const auto rows = static_cast<hsize_t>(total), width = static_cast<hsize_t>(first.header.values);
  H5Id time_ds = create_rows(file, schema::kCounterTime, H5T_NATIVE_DOUBLE, rows);
  H5Id iteration_ds = create_rows(file, schema::kCounterIteration, H5T_NATIVE_INT32, rows);
  H5Id rank_ds = create_rows(file, schema::kCounterRank, H5T_NATIVE_INT32, rows);
  H5Id values_ds = same ? create_rows(file, schema::kCounterValues, H5T_NATIVE_INT64, rows, width) : H5Id();
  constexpr std::int64_t kRound = 1 << 16;
  std::vector<char> records;
  std::vector<double> time;
  std::vector<std::int32_t> iteration, rank;
  std::vector<std::int64_t> values;
  hsize_t at = 0;
  for (const auto& [r, c] : counters) {
    const RankSpool& events = spools.at(r);
    detail::SpoolRecords in;
    if (!in.open(c.path, c.data, c.record_bytes)) throw InputError(fmt::format("{}: cannot read", c.path.string()));
    for (std::int64_t done = 0; done < c.rows;) {
      const auto n = static_cast<std::size_t>(std::min(kRound, c.rows - done));
      records.resize(n * c.record_bytes);
      if (in.read(records.data(), n) != n) throw InputError(fmt::format("{}: could not be read to its end", c.path.string()));
      const auto per = static_cast<std::size_t>(c.header.values);
      time.resize(n);
      iteration.resize(n);
      rank.assign(n, r);
      values.resize(n * per);
      for (std::size_t k = 0; k < n; ++k) {
        const char* record = records.data() + k * c.record_bytes;
        detail::CounterRecordHead head;
        std::memcpy(&head, record, sizeof head);
        time[k] = events.to_root(head.time);
        iteration[k] = head.iteration;
        std::memcpy(values.data() + k * per, record + sizeof head, 8 * per);
      }
      write_rows(time_ds.get(), H5T_NATIVE_DOUBLE, at, time.data(), n);
      write_rows(iteration_ds.get(), H5T_NATIVE_INT32, at, iteration.data(), n);
      write_rows(rank_ds.get(), H5T_NATIVE_INT32, at, rank.data(), n);
      if (same) write_rows(values_ds.get(), H5T_NATIVE_INT64, at, values.data(), n, width);
      at += n;
      done += static_cast<std::int64_t>(n);
    }
  }
}

// /samples as MPI_Finalize writes it, from the sample spools: times on rank 0's clock, losses
// unknown (-1). Read and written in rounds of 64 Ki records, rank after rank, so that memory does
// not grow with the spools: once to count the records it can trust, once to write them. The
// records carry their iteration.
void write_recovered_samples(hid_t file, const std::map<int, SampleSpool>& found, const std::map<int, RankSpool>& spools) {
  if (found.empty()) return;
  constexpr std::int64_t kRound = 1 << 16;
  std::vector<SampleRecord> round;
  std::map<int, std::int64_t> kept;
  std::int64_t total = 0;
  for (const auto& [rank, s] : found) {
    const std::int64_t n = kept[rank] = read_samples(s, kRound, round, [](const std::vector<SampleRecord>&) {});
    total += n;
    if (n < s.rows)
      std::fprintf(stderr,
                   "ripple trace recover: %s: %lld of its %lld memory samples name another rank or a time no clock gives "
                   "(damaged): dropped\n",
                   s.path.string().c_str(), static_cast<long long>(s.rows - n), static_cast<long long>(s.rows));
  }
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file, schema::kSamplesGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  write_attribute(group.get(), schema::kStatusAttr, found.begin()->second.status);
  write_attribute(group.get(), schema::kLevelNamesAttr, level_names_text());
  write_attribute(group.get(), schema::kRecoveredAttr,
                  std::string("every sample drained before the run died (at least every 0.1 s), from the sample spools; "
                              "losses in the kernel's ring buffer are unknown (-1)"));
  H5Id type = sample_h5_type();
  H5Id ds = create_rows(file, schema::kSamples, type.get(), static_cast<hsize_t>(total));
  std::int64_t at = 0;
  for (const auto& [rank, s] : found) {
    const RankSpool& events = spools.at(rank);
    const std::int64_t end = at + kept.at(rank);  // its rows: never beyond them, should the spool change meanwhile
    read_samples(s, kRound, round, [&](std::vector<SampleRecord>& records) {
      for (SampleRecord& r : records) r.time = events.to_root(r.time);
      const auto n = std::min(static_cast<std::int64_t>(records.size()), end - at);
      write_rows(ds.get(), type.get(), static_cast<hsize_t>(at), records.data(), static_cast<hsize_t>(n));
      at += n;
    });
    if (at != end) throw InputError(fmt::format("{}: changed while it was read", s.path.string()));
  }
}

// /ranks/placement and /topology as MPI_Finalize writes them, from the placement spools (ranks
// without one get a row of unknowns, nodes whose leader has none an empty document), and each
// rank's hwloc status into `sources`.
void write_recovered_placement(hid_t file, const fs::path& dir, const SpoolFiles& files, int ranks,
                               std::map<int, RankSources>& sources) {
  std::map<int, PlacementSpool> found;
  for (const fs::path& path : files.of(".placement")) {
    std::optional<PlacementSpool> p = read_placement_spool(path, ranks);
    if (!p) continue;
    if (found.contains(p->rank)) throw InputError(fmt::format("{}: two placement spools for rank {}", dir.string(), p->rank));
    found.emplace(p->rank, std::move(*p));
  }
  for (const auto& [r, p] : found) sources[r].hwloc = p.status + " (recovered from the placement spools)";
  if (found.empty()) return;
  std::vector<Placement> rows(static_cast<std::size_t>(ranks));
  int nodes = 0;
  for (const auto& [r, p] : found) {
    rows[static_cast<std::size_t>(r)] = p.me;
    nodes = std::max(nodes, p.me.node + 1);
  }
  std::vector<const std::string*> leader_xml(static_cast<std::size_t>(nodes), nullptr);  // the lowest leader's
  for (const auto& [r, p] : found)
    if (p.me.node_leader != 0 && leader_xml[static_cast<std::size_t>(p.me.node)] == nullptr)
      leader_xml[static_cast<std::size_t>(p.me.node)] = &p.xml;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(nodes) + 1, 0);
  std::string xml;
  for (int node = 0; node < nodes; ++node) {
    offsets[static_cast<std::size_t>(node)] = static_cast<std::int64_t>(xml.size());
    if (const std::string* doc = leader_xml[static_cast<std::size_t>(node)]) xml += *doc;
  }
  offsets.back() = static_cast<std::int64_t>(xml.size());
  H5Id type = placement_h5_type();
  write_dataset(file, schema::kPlacement, type.get(), rows.data(), rows.size());
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file, schema::kTopology, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  write_dataset(file, schema::kTopologyXmlOffset, H5T_NATIVE_INT64, offsets.data(), offsets.size());
  write_dataset(file, schema::kTopologyXml, H5T_NATIVE_UINT8, xml.data(), xml.size());
}

// The root attribute `sources` (rank 0's) and /ranks/sources (every rank's), as MPI_Finalize writes
// them, from what the side spools said; in rounds of 64 Ki ranks, so that a header's rank count is
// not held in memory several times over.
void write_recovered_sources(hid_t file, int ranks, const std::map<int, RankSources>& sources) {
  const auto json_of = [](const RankSources& r) {
    return detail::sources_json("active (recovered)", r.counters, r.perf, r.hwloc);
  };
  // trace info refuses rows wider than 64 KiB (tracer/format/src/trace_reader.cpp). No status is that
  // long but a damaged spool's (a flipped bit of its status length takes its records into the
  // status): the longest of the rank's texts is then said and replaced until the row fits.
  constexpr std::size_t kMaxRow = 1 << 16;
  const auto fitted = [&](int rank, RankSources rs) {
    for (std::string row = json_of(rs); row.size() > kMaxRow; row = json_of(rs)) {
      std::string* longest = &rs.counters;
      for (std::string* text : {&rs.perf, &rs.hwloc})
        if (text->size() > longest->size()) longest = text;
      const char* whose = longest == &rs.counters ? "counter" : longest == &rs.perf ? "sample" : "placement";
      std::fprintf(stderr,
                   "ripple trace recover: rank %d's %s spool gives a status of %zu bytes, too long for /ranks/sources "
                   "(damaged): its status is unknown\n",
                   rank, whose, longest->size());
      *longest = longest == &rs.counters ? std::string() : fmt::format("unknown (a damaged status of {} bytes)", longest->size());
    }
    return json_of(rs);
  };
  const std::string none = json_of(RankSources{});  // a rank without side spools
  std::map<int, std::string> json;
  std::size_t width = none.size();
  for (const auto& [r, rs] : sources) width = std::max(width, json.emplace(r, fitted(r, rs)).first->second.size());
  const auto of_rank = [&](int r) -> const std::string& {
    const auto it = json.find(r);
    return it == json.end() ? none : it->second;
  };
  write_attribute(file, schema::kSourcesAttr, of_rank(0));
  H5Id type = text_h5_type(width);
  H5Id ds = create_rows(file, schema::kRankSources, type.get(), static_cast<hsize_t>(ranks));
  constexpr int kRound = 1 << 16;
  std::string rows;
  for (int first = 0; first < ranks; first += kRound) {
    const int n = std::min(kRound, ranks - first);
    rows.assign(static_cast<std::size_t>(n) * width, '\0');
    for (int k = 0; k < n; ++k) {
      const std::string& j = of_rank(first + k);
      std::memcpy(rows.data() + static_cast<std::size_t>(k) * width, j.data(), j.size());
    }
    write_rows(ds.get(), type.get(), static_cast<hsize_t>(first), rows.data(), static_cast<hsize_t>(n));
  }
}

// What the first reading gives of each rank, for the per-rank columns.
struct RankTotals {
  const std::vector<std::int64_t>& offset;
  const std::vector<std::int64_t>& count;
  const std::vector<std::int64_t>& lost;
  const std::vector<double>& last_wall;
};

// Every column of layout::kRankColumns, one at a time; what the spools do not say is unknown (the
// values trace_layout.hpp gives). The clock's offset and error are those measured at MPI_Init.
void write_rank_columns(hid_t file, const std::map<int, RankSpool>& spools, int ranks, const RankTotals& totals) {
  const auto n = static_cast<std::size_t>(ranks);
  const auto from_header = [&](double detail::SpoolHeader::*field) {
    std::vector<double> v(n, layout::kUnknownTime);
    for (const auto& [r, s] : spools)
      if (!s.cut && plausible_seconds(s.header.*field)) v[static_cast<std::size_t>(r)] = s.header.*field;
    return v;
  };
  for (const layout::RankColumnSpec& spec : layout::kRankColumns) {
    std::vector<std::int64_t> i;
    std::vector<double> d;
    switch (spec.column) {
      case layout::RankColumn::Offset:
        i = totals.offset;
        break;
      case layout::RankColumn::Count:
        i = totals.count;
        break;
      case layout::RankColumn::Lost:
        i = totals.lost;
        break;
      case layout::RankColumn::RequestsUntracked:
      case layout::RankColumn::PeersUntranslated:
      case layout::RankColumn::CountersLost:
      case layout::RankColumn::SamplesLost:
      case layout::RankColumn::SamplesDropped:
        i.assign(n, layout::kUnknownCount);
        break;
      case layout::RankColumn::ClockOffset:
        d = from_header(&detail::SpoolHeader::offset);
        break;
      case layout::RankColumn::ClockDrift:
        d.assign(n, layout::kUnknownTime);
        break;
      case layout::RankColumn::ClockError:
        d = from_header(&detail::SpoolHeader::offset_error);
        break;
      case layout::RankColumn::LastEventWallTime:
        d = totals.last_wall;
        break;
    }
    if (spec.type == layout::Number::I64)
      write_dataset(file, spec.name, H5T_NATIVE_INT64, i.data(), i.size());
    else
      write_dataset(file, spec.name, H5T_NATIVE_DOUBLE, d.data(), d.size());
  }
}

// The provenance attributes MPI_Finalize writes (ripple/common/provenance.hpp): the spools keep
// only the rank count; the rest is unknown.
void write_recovered_provenance(hid_t file, int ranks) {
  Provenance p;
  p.version = p.git_revision = p.command_line = p.mpi_library = p.slurm_job_id = "unknown (recovered: the spools do not keep it)";
  p.ranks = ranks;
  write_provenance(file, p);
}

}  // namespace

int recover(const std::string& input, const std::string& output) {
  fs::path dir = input;
  if (!fs::is_directory(dir)) dir = input + ".spool";
  if (!fs::is_directory(dir))
    throw InputError(fmt::format("{}: neither a spool directory nor a trace with a .spool beside it", input));
  const SpoolFiles files(dir);
  RunSpools run = read_run(dir, files);
  std::map<int, RankSpool>& spools = run.spools;
  const int ranks = run.ranks;
  const std::string& call_names = run.call_names;

  // First reading: how many events each rank has (and its losses, last time).
  std::vector<std::int64_t> offset(static_cast<std::size_t>(ranks), 0), count(static_cast<std::size_t>(ranks), 0),
      lost(static_cast<std::size_t>(ranks), 0);
  std::vector<double> last_wall(static_cast<std::size_t>(ranks), -1.0);
  std::int64_t total = 0;
  std::vector<Event> buffer(1 << 16);  // a round of events
  std::map<int, RankSources> sources;  // of the ranks with side spools
  const std::map<int, SampleSpool> samples = side_spools_by_rank<SampleSpool>(
      dir, files, ".samples", "sample", spools, [&](const fs::path& path) { return read_sample_spool(path, ranks); });
  for (const auto& [rank, s] : samples) sources[rank].perf = s.status;
  for (int r = 0; r < ranks; ++r) {
    offset[static_cast<std::size_t>(r)] = total;
    const auto it = spools.find(r);
    if (it == spools.end()) continue;  // that rank never spooled: nothing to recover for it
    RankSpool& s = it->second;
    read_events(s, buffer, [&](const Event* e, std::size_t n) {
      s.events += static_cast<std::int64_t>(n);
      s.last_t_exit = e[n - 1].t_exit;
    });
    total += s.events;
    count[static_cast<std::size_t>(r)] = s.events;
    // The blocks' gaps, and with the stream's count what failed writes lost at its end too.
    const std::int64_t rank_lost = detail::stream_lost(s.numbered, s.events, s.lost);
    lost[static_cast<std::size_t>(r)] = rank_lost;
    if (s.foreign > 0)
      std::fprintf(stderr,
                   "ripple trace recover: rank %d: %lld events of its spool name another rank (damaged): dropped, counted lost\n",
                   r, static_cast<long long>(s.foreign));
    if (s.damaged_blocks > 0)
      std::fprintf(stderr,
                   "ripple trace recover: rank %d: %lld of its event blocks skipped (never written, damaged or repeated), %lld "
                   "events lost\n",
                   r, static_cast<long long>(s.damaged_blocks), static_cast<long long>(s.lost));
    if (rank_lost > s.lost)
      std::fprintf(stderr,
                   "ripple trace recover: rank %d: its spool counts %lld events, %lld of them not in it (failed writes)\n", r,
                   static_cast<long long>(s.numbered), static_cast<long long>(rank_lost));
    else if (rank_lost < 0)
      std::fprintf(stderr,
                   "ripple trace recover: rank %d's spool does not say how many events its writes lost (its header blocks "
                   "are cut short or damaged): its /ranks/lost is -1 (unknown)\n",
                   r);
    // A wall-clock start no clock gives (a damaged header) leaves the time unknown; so does a damaged
    // t0, from which the last time counts (it was -inf, or -1e300, for t0 inf or 1e300).
    const bool wall_known =
        plausible_seconds(s.header.wall_start) && plausible_seconds(s.header.t0) && plausible_seconds(s.last_t_exit);
    if (s.events > 0) last_wall[static_cast<std::size_t>(r)] = wall_known ? s.header.wall_start + s.last_t_exit : kUnknown;
  }

  const std::string out =
      output.empty() ? (dir.string().ends_with(".spool") ? dir.string().substr(0, dir.string().size() - 6) : dir.string() + ".h5")
                     : output;
  // The file's blocks, asked for before HDF5 writes (ripple/common/file_space.hpp): a full disk or
  // a quota stops recover here, with the reason, not in the middle of the write. HDF5's serial
  // driver empties the file it creates, and writes its first bytes at once: the space is asked for
  // before the create (the reason, if there is none) and reserved again after it. Counters, samples,
  // clock maps and topologies take about what their spools take.
  std::uintmax_t side_bytes = 0;
  for (const char* kind : {".counters", ".samples", ".placement", ".clock"})
    for (const fs::path& path : files.of(kind)) {
      std::error_code ec;
      if (const std::uintmax_t bytes = fs::file_size(path, ec); !ec) side_bytes += bytes;
    }
  const std::int64_t need = hdf5_file_bytes(static_cast<double>(static_cast<std::uintmax_t>(total) * sizeof(Event) + side_bytes));
  const auto untouched = [&](const std::string& why) {
    return fmt::format("cannot write '{}': {}; the spools in {} are untouched", out, why, dir.string());
  };
  const auto refused = [&](const SpaceCheck& space) { return Error(untouched(space.reason)); };
  if (const std::string why = hdf5_output_refused(out); !why.empty()) throw InputError(untouched(why));
  if (const SpaceCheck space = reserve_file_space(out, need, ExistingFile::Replace); !space.room) throw refused(space);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5Id fapl(RIPPLE_H5_CHECK(H5Pcreate(H5P_FILE_ACCESS)));
  RIPPLE_H5_CHECK(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST));
  H5Id file(H5Fcreate(out.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
  // A file left half-written is no trace: it goes (with its blocks) when recover fails.
  struct PartialFile {
    H5Id& file;
    const std::string& path;
    bool done = false;
    ~PartialFile() {
      if (done) return;
      file.reset();
      remove_regular_file(path);
    }
  } partial{file, out};
  if (file.get() < 0) throw InputError(fmt::format("cannot create '{}': check the directory is writable", out));
  if (const SpaceCheck space = reserve_file_space(out, need, ExistingFile::Keep); !space.room) throw refused(space);
  write_attribute(file.get(), schema::kSchemaAttr, std::string(schema::kSchema));
  write_attribute(file.get(), schema::kVersionAttr, static_cast<std::int64_t>(schema::kVersion));
  write_attribute(file.get(), schema::kEventsAttr, total);
  write_attribute(file.get(), schema::kLostEventsAttr, static_cast<std::int64_t>(-1));
  write_attribute(
      file.get(), schema::kRecoveredAttr,
      std::string("rebuilt by ripple trace recover from the spools of a run that did not reach MPI_Finalize: "
                  "each rank's events up to its last spool flush; what it recorded after that is lost, how much "
                  "is unknown (lost_events = -1; /ranks/lost counts what reached the spool but is not in the file: failed "
                  "writes, cut-off and unreadable records; -1 where the spool does not say)"));
  write_attribute(file.get(), schema::kClockSourceAttr,
                  std::string("unknown (recovered: the spool does not say whether TSC or CLOCK_MONOTONIC stamped the "
                              "events; both are on CLOCK_MONOTONIC's scale)"));
  write_attribute(file.get(), schema::kClockAttr,
                  std::string("seconds since rank 0's start on rank 0's clock, from the offsets measured at MPI_Init only"));
  write_attribute(file.get(), schema::kCallNamesAttr, call_names);
  write_recovered_provenance(file.get(), ranks);
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file.get(), schema::kRanks, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  write_recovered_placement(file.get(), dir, files, ranks, sources);
  write_rank_columns(file.get(), spools, ranks, {offset, count, lost, last_wall});
  // Second reading: each rank's events onto rank 0's clock, written at the rank's offset in rounds.
  H5Id type = event_h5_type();
  H5Id events = create_rows(file.get(), schema::kEvents, type.get(), static_cast<hsize_t>(total));
  std::vector<Event> moved;
  for (auto& entry : spools) {
    const int r = entry.first;  // no structured binding: clang 14 (clang-tidy) cannot capture one
    RankSpool& s = entry.second;
    std::int64_t done = 0;
    read_events(s, buffer, [&](const Event* e, std::size_t got) {
      const auto take = static_cast<hsize_t>(
          std::clamp<std::int64_t>(s.events - done, 0, static_cast<std::int64_t>(got)));  // a spool still growing
      if (take == 0) return;
      moved.assign(e, e + take);
      for (Event& x : moved) {
        x.t_enter = s.to_root(x.t_enter);
        x.t_exit = s.to_root(x.t_exit);
      }
      write_rows(events.get(), type.get(), static_cast<hsize_t>(offset[static_cast<std::size_t>(r)] + done), moved.data(), take);
      done += static_cast<std::int64_t>(take);
    });
    if (done != s.events)
      throw InputError(fmt::format("{}: changed while it was read ({} events, then {})", s.path.string(), s.events, done));
  }
  events.reset();
  write_recovered_counters(file.get(), dir, files, spools, ranks, sources);
  write_recovered_samples(file.get(), samples, spools);
  write_recovered_sources(file.get(), ranks, sources);
  // Closed here, every object of it first (HDF5 closes a file with objects still open only when the
  // last of them goes, and an error then would be lost): a failed close is a failed recover.
  type.reset();
  group.reset();
  if (H5Fclose(file.release()) < 0)
    throw Error(
        fmt::format("cannot finish writing '{}' (disk full or an I/O error); the spools in {} are untouched", out, dir.string()));
  partial.done = true;
  release_unused_space(out);
  std::printf("ripple trace recover: %lld events of %zu of %d ranks from %s -> %s\n", static_cast<long long>(total),
              spools.size(), ranks, dir.string().c_str(), out.c_str());
  return 0;
}

}  // namespace ripple::trace
