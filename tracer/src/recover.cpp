// `ripple trace recover`: builds a valid trace file from the per-rank spools a run left behind when
// it died before MPI_Finalize (a rank killed, MPI_Abort). Runs as one process, without MPI.
#include "recover.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "recorder_state.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/perf_decoder.hpp"
#include "ripple/trace/trace_schema.hpp"
#include "sources_json.hpp"
#include "spool_reader.hpp"

namespace ripple::trace {
namespace {

namespace fs = std::filesystem;

// The spool directory's files by kind (extension), listed once: everything but directories (a
// dangling link named like a spool is read, and refused with why).
class SpoolFiles {
public:
  explicit SpoolFiles(const fs::path& dir) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::error_code ec;
      if (!entry.is_directory(ec)) by_kind_[entry.path().extension().string()].push_back(entry.path());
    }
  }
  [[nodiscard]] const std::vector<fs::path>& of(const std::string& kind) const {
    static const std::vector<fs::path> none;
    const auto it = by_kind_.find(kind);
    return it == by_kind_.end() ? none : it->second;
  }

private:
  std::map<std::string, std::vector<fs::path>> by_kind_;
};

// A rank's event spool. Its events are read in rounds (read_events), twice: to count them, then to
// write them, so that recover's memory stays bounded whatever the spools hold.
struct RankSpool {
  fs::path path;
  detail::SpoolHeader header;
  std::int64_t data = 0;         // where its events start
  std::string call_names;        // of the build that wrote it (version 4); empty: not kept
  bool names_cut = false;        // the file ends inside them: its header block was never whole, it has no events
  std::optional<TickMap> ticks;  // version 3 on: raw ticks to seconds, read with the first event
  std::int64_t numbered = -1;    // the stream's count its header blocks keep (SpoolStreamCount); -1: none
  // From the counting read:
  std::int64_t events = 0;
  std::int64_t lost = 0;                               // records cut off at the end, unreadable or never written (/ranks/lost)
  std::int64_t damaged_blocks = 0;                     // versions 5, 6: event blocks skipped (never reached the disk, or damaged)
  double last_t_exit = 0;                              // seconds since its t0
  bool needs_marks = false;                            // its sample spool is of version 1
  std::vector<std::pair<double, std::int32_t>> marks;  // then: MPI_Pcontrol's time and iteration
  // A time the rank recorded, on rank 0's clock with the offset measured at the start (there was no
  // second synchronisation).
  [[nodiscard]] double to_root(double t) const { return t + header.t0 + header.offset - header.t0_root; }
};

// A whole dataset of `rows` rows (`width` columns, or 1-D with width 0), written at once.
void write_dataset(hid_t file, const char* name, hid_t type, const void* data, hsize_t rows, hsize_t width = 0) {
  const hsize_t dims[2] = {rows, width};
  H5Id space(RIPPLE_H5_CHECK(H5Screate_simple(width > 0 ? 2 : 1, dims, nullptr)));
  H5Id ds(RIPPLE_H5_CHECK(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  if (rows > 0) RIPPLE_H5_CHECK(H5Dwrite(ds.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
}

// Opens a spool file and reads its header, which must start with `magic` (8 bytes).
template <class Header>
std::ifstream open_spool(const fs::path& path, Header& header, const char* magic, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read", path.string()));
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  if (in.gcount() != static_cast<std::streamsize>(sizeof header) || std::memcmp(header.magic, magic, 8) != 0)
    throw InputError(fmt::format("{}: not a Ripple {} (bad header)", path.string(), what));
  return in;
}

// The clock map a rank's version-3 spool needs: its clock spool's pieces, in order.
TickMap read_clock_spool(const fs::path& path, int rank) {
  detail::ClockSpoolHeader h;
  std::ifstream in = open_spool(path, h, "RPLCLOCK", "clock spool");
  if (h.version != 1 || h.record_size != static_cast<std::int32_t>(sizeof(TickSegment)) || h.rank != rank)
    throw InputError(
        fmt::format("{}: impossible clock spool header (version {}, {}-byte records, rank {}); this ripple reads "
                    "version 1 with {} for rank {}",
                    path.string(), h.version, h.record_size, h.rank, sizeof(TickSegment), rank));
  in.close();
  std::vector<TickSegment> pieces = detail::read_all_records<TickSegment>(path, sizeof h);
  for (std::size_t k = 1; k < pieces.size(); ++k)
    if (pieces[k].tick < pieces[k - 1].tick)
      throw InputError(fmt::format("{}: the clock's pieces are out of order", path.string()));
  return TickMap(std::move(pieces));  // empty if no piece reached the disk
}

RankSpool read_spool(const fs::path& path) {
  RankSpool s;
  std::ifstream in = open_spool(path, s.header, "RPLSPOOL", "spool file");
  if (s.header.version < 1 || s.header.version > 6 || s.header.event_size != static_cast<std::int32_t>(sizeof(Event)))
    throw InputError(fmt::format("{}: spool version {} with {}-byte events; this ripple reads versions 1 to 6 with {}",
                                 path.string(), s.header.version, s.header.event_size, sizeof(Event)));
  if (s.header.ranks <= 0 || s.header.ranks > (1 << 24) || s.header.rank < 0 || s.header.rank >= s.header.ranks)
    throw InputError(fmt::format("{}: rank {} of {} in the header is impossible", path.string(), s.header.rank, s.header.ranks));
  // Version 1 had its events right after a header without data_offset.
  const std::int64_t data =
      s.header.version == 1 ? static_cast<std::int64_t>(offsetof(detail::SpoolHeader, data_offset)) : s.header.data_offset;
  if (data < static_cast<std::int64_t>(offsetof(detail::SpoolHeader, data_offset)) || data > (1 << 20))
    throw InputError(fmt::format("{}: the header puts the events at byte {}, which is impossible", path.string(), data));
  if (s.header.version >= 4 && s.header.names_bytes != 0) {  // the call names follow the header
    if (s.header.names_bytes < 0 || static_cast<std::int64_t>(sizeof s.header) + s.header.names_bytes > data)
      throw InputError(fmt::format("{}: the header's {} bytes of call names do not fit before its events", path.string(),
                                   s.header.names_bytes));
    s.call_names.resize(static_cast<std::size_t>(s.header.names_bytes));
    in.read(s.call_names.data(), static_cast<std::streamsize>(s.call_names.size()));
    if (in.gcount() != static_cast<std::streamsize>(s.call_names.size())) {
      s.call_names.clear();
      s.names_cut = true;  // and no event lies before data_offset: the rank is recovered empty, said below
    }
  }
  in.close();
  s.path = path;
  s.data = data;
  s.numbered = detail::read_stream_count(path.string(), s.header, data);
  return s;
}

// The map of a version-3 (or later) spool's raw ticks to seconds: its clock spool, or without one
// the start's rate (said once).
const TickMap& tick_map(RankSpool& s) {
  if (s.ticks) return *s.ticks;
  const fs::path clock = fs::path(s.path).replace_extension(".clock");
  TickMap map;
  if (fs::exists(clock)) map = read_clock_spool(clock, s.header.rank);
  if (map.empty()) {  // no piece reached the disk: the start's rate, without the later re-anchorings
    if (!(s.header.tick_rate > 0))
      throw InputError(
          fmt::format("{}: no clock map beside it and no rate in its header: the times cannot be converted", s.path.string()));
    std::fprintf(stderr, "ripple trace recover: %s has no clock map: rank %d's times use the start's tick rate\n",
                 s.path.string().c_str(), s.header.rank);
    map = TickMap({{s.header.tick0, s.header.t0, s.header.tick_rate}});
  }
  return s.ticks.emplace(std::move(map));
}

// Every event of a rank's spool, in order, in rounds of at most `buffer`'s size (one buffer for
// all ranks and both readings), times in seconds since its t0; sets s.lost and s.damaged_blocks.
void read_events(RankSpool& s, std::vector<Event>& buffer, const std::function<void(const Event*, std::size_t)>& round) {
  const std::size_t round_size = buffer.size();
  const auto deliver = [&](std::size_t n) {
    if (n == 0) return;
    if (s.header.version >= 3) {  // raw ticks since tick0: seconds since t0, as in versions 1 and 2
      const TickMap& map = tick_map(s);
      for (std::size_t k = 0; k < n; ++k) {
        buffer[k].t_enter = stamp_seconds(map, s.header.tick0, buffer[k].t_enter) - s.header.t0;
        buffer[k].t_exit = stamp_seconds(map, s.header.tick0, buffer[k].t_exit) - s.header.t0;
      }
    }
    round(buffer.data(), n);
  };
  if (s.header.version >= 5) {
    detail::EventBlockReader blocks;
    if (!blocks.open(s.path.string(), s.data, s.header.version))
      throw InputError(fmt::format("{}: cannot read", s.path.string()));
    while (const std::size_t n = blocks.read(buffer.data(), round_size)) deliver(n);
    s.lost = blocks.lost();
    s.damaged_blocks = blocks.damaged_blocks();
    if (blocks.failed()) std::fprintf(stderr, "ripple trace recover: %s could not be read to its end\n", s.path.string().c_str());
    return;
  }
  // A record this rank cannot have written: another rank's number, or all zeros (no real record
  // is: MPI_Init's has peer -1). After a node crash, a buffered block may be missing (zeros) while
  // later O_DIRECT blocks reached the disk; such records are dropped and counted as lost.
  static constexpr Event kZero = [] {
    Event z;
    z.request = z.peer = z.tag = z.comm = z.iteration = 0;
    return z;
  }();
  detail::SpoolRecords records;
  if (!records.open(s.path.string(), s.data, sizeof(Event))) throw InputError(fmt::format("{}: cannot read", s.path.string()));
  s.lost = 0;
  while (const std::size_t n = records.read(buffer.data(), round_size)) {
    const auto kept = std::remove_if(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n), [&](const Event& e) {
      return e.rank != s.header.rank || std::memcmp(&e, &kZero, sizeof e) == 0;
    });
    const auto whole = static_cast<std::size_t>(kept - buffer.begin());
    s.lost += static_cast<std::int64_t>(n - whole);
    deliver(whole);
  }
  if (records.cut_off()) ++s.lost;
}

// A rank's counter spool: its header, names, status and every complete sample record.
struct CounterSpool {
  detail::CounterSpoolHeader header;
  std::string names, status;
  fs::path path;
  std::int64_t data = 0;         // where its records start
  std::size_t record_bytes = 0;  // a CounterRecordHead and header.values int64s
  std::int64_t rows = 0;         // whole records, counted when it was read
};

CounterSpool read_counter_spool(const fs::path& path) {
  CounterSpool c;
  std::ifstream in = open_spool(path, c.header, "RPLCNTRS", "counter spool");
  const auto& h = c.header;
  if (h.version != 1 || h.values <= 0 || h.values > 4096 || h.names_bytes < 0 || h.status_bytes < 0 ||
      h.names_bytes > (1 << 20) || h.status_bytes > (1 << 20) || h.ranks <= 0 || h.rank < 0 || h.rank >= h.ranks)
    throw InputError(
        fmt::format("{}: impossible counter spool header (version {}, {} values, rank {} of {}); this ripple reads version 1",
                    path.string(), h.version, h.values, h.rank, h.ranks));
  c.names.resize(static_cast<std::size_t>(h.names_bytes));
  c.status.resize(static_cast<std::size_t>(h.status_bytes));
  in.read(c.names.data(), h.names_bytes);
  in.read(c.status.data(), h.status_bytes);
  if (!in) throw InputError(fmt::format("{}: truncated counter spool header", path.string()));
  c.path = path;
  c.record_bytes = sizeof(detail::CounterRecordHead) + 8 * static_cast<std::size_t>(h.values);
  c.data = static_cast<std::int64_t>(sizeof h) + h.names_bytes + h.status_bytes;
  detail::SpoolRecords records;  // a cut-off last record is dropped
  if (!records.open(path, c.data, c.record_bytes)) throw InputError(fmt::format("{}: cannot read", path.string()));
  c.rows = records.records();
  return c;
}

// What each rank's side spools say of its sources, for /ranks/sources: filled in as they are read.
struct RankSources {
  std::string counters;                                // Counters::status_text(); empty: no counter spool
  std::string perf = "unknown (no sample spool)";      // the sampler's status
  std::string hwloc = "unknown (no placement spool)";  // hwloc's
};

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

// The side spools of one kind (`ext`), read by `read`, one per rank that has events (without them,
// no clock offsets place its samples). A second one for a rank (a copy under another name) is
// refused: the table would be sized for both and written for one.
template <class Spool, class Read>
std::map<int, Spool> side_spools_by_rank(const fs::path& dir, const SpoolFiles& files, const char* ext, const char* kind,
                                         const std::map<int, RankSpool>& spools, Read&& read) {
  std::map<int, Spool> out;
  for (const fs::path& path : files.of(ext)) {
    Spool spool = read(path);
    const int rank = spool.header.rank;
    if (!spools.contains(rank)) continue;
    if (out.contains(rank)) throw InputError(fmt::format("{}: two {} spools for rank {}", dir.string(), kind, rank));
    out.emplace(rank, std::move(spool));
  }
  return out;
}

// /counters as MPI_Finalize writes it, from the counter spools, times on rank 0's clock like events;
// read and written in rounds of 64 Ki samples, rank after rank, so that memory does not grow with
// the spools.
void write_recovered_counters(hid_t file, const fs::path& dir, const SpoolFiles& files, const std::map<int, RankSpool>& spools,
                              std::map<int, RankSources>& sources) {
  const std::map<int, CounterSpool> counters =
      side_spools_by_rank<CounterSpool>(dir, files, ".counters", "counter", spools, read_counter_spool);
  for (const auto& [r, c] : counters) sources[r].counters = c.status;
  std::int64_t total = 0;
  for (const auto& [r, c] : counters) total += c.rows;
  if (counters.empty()) return;
  const CounterSpool& first = counters.begin()->second;
  bool same = true;
  for (const auto& [r, c] : counters) same = same && c.header.values == first.header.values && c.names == first.names;
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file, "/counters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  write_attribute(group.get(), "events", first.names);
  write_attribute(group.get(), "status", first.status);
  write_attribute(group.get(), "recovered",
                  std::string("every sample taken before the run died (MPI_Init and each iteration marker), from the counter "
                              "spools; ranks without one are missing"));
  if (!same) write_attribute(group.get(), "values_missing", std::string("the ranks counted different event lists"));
  const auto rows = static_cast<hsize_t>(total), width = static_cast<hsize_t>(first.header.values);
  H5Id time_ds = create_rows(file, "/counters/time", H5T_NATIVE_DOUBLE, rows);
  H5Id iteration_ds = create_rows(file, "/counters/iteration", H5T_NATIVE_INT32, rows);
  H5Id rank_ds = create_rows(file, "/counters/rank", H5T_NATIVE_INT32, rows);
  H5Id values_ds = same ? create_rows(file, "/counters/values", H5T_NATIVE_INT64, rows, width) : H5Id();
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

// A rank's sample spool: the sampler's status, and where its records start.
struct SampleSpool {
  detail::SampleSpoolHeader header;
  std::string status;
  fs::path path;
  std::int64_t data = 0;
};

SampleSpool read_sample_spool(const fs::path& path) {
  SampleSpool s;
  std::ifstream in = open_spool(path, s.header, "RPLSMPLS", "sample spool");
  const auto& h = s.header;
  if (h.version < 1 || h.version > 2 || h.record_size != static_cast<std::int32_t>(sizeof(SampleRecord)) || h.status_bytes < 0 ||
      h.status_bytes > (1 << 20) || h.ranks <= 0 || h.rank < 0 || h.rank >= h.ranks)
    throw InputError(
        fmt::format("{}: impossible sample spool header (version {}, {}-byte records, rank {} of {}); this ripple reads versions "
                    "1 and 2 with {}",
                    path.string(), h.version, h.record_size, h.rank, h.ranks, sizeof(SampleRecord)));
  s.status.resize(static_cast<std::size_t>(h.status_bytes));
  in.read(s.status.data(), h.status_bytes);
  if (!in) throw InputError(fmt::format("{}: truncated sample spool header", path.string()));
  s.path = path;
  s.data = static_cast<std::int64_t>(sizeof h) + h.status_bytes;
  return s;
}

// /samples as MPI_Finalize writes it, from the sample spools: times on rank 0's clock, losses
// unknown (-1). Read and written in rounds of 64 Ki records, rank after rank, so that memory does
// not grow with the spools. Version 2 records carry their iteration; version 1 records get it from
// the rank's recovered iteration markers (MPI_Pcontrol events; version-1 sample spools come with
// event spools of versions 1 to 3, whose calls are this build's), which needs the rank's records
// sorted by time, in memory.
void write_recovered_samples(hid_t file, const fs::path& dir, const SpoolFiles& files, const std::map<int, RankSpool>& spools,
                             int ranks, std::map<int, RankSources>& sources) {
  std::map<int, std::pair<SampleSpool, std::int64_t>> found;  // and its whole records, counted now
  std::int64_t total = 0;
  for (auto& [rank, s] : side_spools_by_rank<SampleSpool>(dir, files, ".samples", "sample", spools, read_sample_spool)) {
    sources[rank].perf = s.status;
    detail::SpoolRecords in;
    const std::int64_t rows = in.open(s.path.string(), s.data, sizeof(SampleRecord)) ? in.records() : 0;
    total += rows;
    found.emplace(rank, std::make_pair(std::move(s), rows));
  }
  if (found.empty()) return;
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file, "/samples", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  write_attribute(group.get(), "status", found.begin()->second.first.status);
  write_attribute(group.get(), "level_names", level_names_text());
  write_attribute(group.get(), "recovered",
                  std::string("every sample drained before the run died (at least every 0.1 s), from the sample spools; "
                              "losses in the kernel's ring buffer are unknown (-1)"));
  H5Id type = sample_h5_type();
  H5Id ds = create_rows(file, schema::kSamples, type.get(), static_cast<hsize_t>(total));
  std::vector<SampleRecord> round;
  hsize_t at = 0;
  for (auto& [rank, spool] : found) {
    const auto& [s, rows] = spool;
    const RankSpool& events = spools.at(rank);
    detail::SpoolRecords in;
    if (!in.open(s.path.string(), s.data, sizeof(SampleRecord)))
      throw InputError(fmt::format("{}: cannot read", s.path.string()));
    const std::int64_t each = s.header.version == 1 ? rows : std::int64_t{1} << 16;
    for (std::int64_t done = 0; done < rows;) {
      round.resize(static_cast<std::size_t>(std::min(each, rows - done)));
      if (in.read(round.data(), round.size()) != round.size())
        throw InputError(fmt::format("{}: could not be read to its end", s.path.string()));
      if (s.header.version == 1) {
        const auto& marks = events.marks;  // on the rank's own clock, like the records
        std::sort(round.begin(), round.end(), [](const SampleRecord& a, const SampleRecord& b) { return a.time < b.time; });
        std::size_t m = 0;
        std::int32_t iteration = -1;
        for (SampleRecord& r : round) {
          while (m < marks.size() && marks[m].first <= r.time) iteration = marks[m++].second;
          r.iteration = iteration;
        }
      }
      for (SampleRecord& r : round) r.time = events.to_root(r.time);
      write_rows(ds.get(), type.get(), at, round.data(), round.size());
      at += round.size();
      done += static_cast<std::int64_t>(round.size());
    }
  }
  const std::vector<std::int64_t> unknown(static_cast<std::size_t>(ranks), -1);
  for (const char* name : {schema::kSamplesLost, schema::kSamplesDropped})
    write_dataset(file, name, H5T_NATIVE_INT64, unknown.data(), unknown.size());
}

// A rank's placement spool: where it ran, its node's hwloc XML (node leaders) and hwloc's status.
struct PlacementSpool {
  int rank = 0;
  bool cut = false;  // cut short (the rank was killed while writing it, in MPI_Init): said, not used
  Placement me;
  std::string xml, status;
};

// Throws on a damaged header.
PlacementSpool read_placement_spool(const fs::path& path, int ranks) {
  detail::PlacementSpoolHeader h;
  std::ifstream in = open_spool(path, h, "RPLPLACE", "placement spool");
  if (h.version != 1 || h.record_size != static_cast<std::int32_t>(sizeof(Placement)) || h.ranks != ranks || h.rank < 0 ||
      h.rank >= ranks || h.xml_bytes < 0 || h.xml_bytes > (std::int64_t{1} << 30) || h.status_bytes < 0)
    throw InputError(fmt::format(
        "{}: impossible placement spool header (version {}, {}-byte record, rank {} of {}, {} "
        "bytes of XML, {} of status); this ripple reads version 1 with {}-byte records, for a run of {} ranks",
        path.string(), h.version, h.record_size, h.rank, h.ranks, h.xml_bytes, h.status_bytes, sizeof(Placement), ranks));
  PlacementSpool p;
  p.rank = h.rank;
  const auto whole = static_cast<std::uintmax_t>(sizeof h + sizeof p.me) + static_cast<std::uintmax_t>(h.xml_bytes) +
                     static_cast<std::uintmax_t>(h.status_bytes);
  p.cut = fs::file_size(path) < whole;  // then nothing is allocated for what is not there
  if (!p.cut) {
    p.xml.resize(static_cast<std::size_t>(h.xml_bytes));
    p.status.resize(static_cast<std::size_t>(h.status_bytes));
    in.read(reinterpret_cast<char*>(&p.me), sizeof p.me);
    in.read(p.xml.data(), static_cast<std::streamsize>(p.xml.size()));
    in.read(p.status.data(), static_cast<std::streamsize>(p.status.size()));
  }
  p.cut = p.cut || !in;
  if (p.cut) {
    std::fprintf(stderr, "ripple trace recover: %s is cut short: rank %d's placement is missing\n", path.string().c_str(),
                 h.rank);
    return p;
  }
  p.me.host[sizeof p.me.host - 1] = '\0';  // never trust a file's strings to be terminated
  p.me.binding[sizeof p.me.binding - 1] = '\0';
  if (p.me.node < -1 || p.me.node >= ranks || (p.me.node_leader != 0 && p.me.node < 0))
    throw InputError(fmt::format("{}: node {} of a run of {} ranks is impossible", path.string(), p.me.node, ranks));
  return p;
}

// /ranks/placement and /topology as MPI_Finalize writes them, from the placement spools (ranks
// without one get a row of unknowns, nodes whose leader has none an empty document), and each
// rank's hwloc status into `sources`.
void write_recovered_placement(hid_t file, const fs::path& dir, const SpoolFiles& files, int ranks,
                               std::map<int, RankSources>& sources) {
  std::map<int, PlacementSpool> found;
  for (const fs::path& path : files.of(".placement")) {
    PlacementSpool p = read_placement_spool(path, ranks);
    if (found.contains(p.rank)) throw InputError(fmt::format("{}: two placement spools for rank {}", dir.string(), p.rank));
    if (!p.cut) found.emplace(p.rank, std::move(p));
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
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file, "/topology", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
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
  const std::string none = json_of(RankSources{});  // a rank without side spools
  std::map<int, std::string> json;
  std::size_t width = none.size();
  for (const auto& [r, rs] : sources) width = std::max(width, json.emplace(r, json_of(rs)).first->second.size());
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

}  // namespace

int recover(const std::string& input, const std::string& output) {
  fs::path dir = input;
  if (!fs::is_directory(dir)) dir = input + ".spool";
  if (!fs::is_directory(dir))
    throw InputError(fmt::format("{}: neither a spool directory nor a trace with a .spool beside it", input));
  std::map<int, RankSpool> spools;
  int ranks = -1;
  const SpoolFiles files(dir);
  for (const fs::path& path : files.of(".bin")) {
    RankSpool s = read_spool(path);
    if (ranks >= 0 && s.header.ranks != ranks)
      throw InputError(
          fmt::format("{}: spools disagree on the number of ranks ({} and {})", dir.string(), ranks, s.header.ranks));
    ranks = s.header.ranks;
    if (spools.contains(s.header.rank)) throw InputError(fmt::format("{}: two spools for rank {}", dir.string(), s.header.rank));
    spools.emplace(s.header.rank, std::move(s));
  }
  if (spools.empty()) throw InputError(fmt::format("{}: no rank-*.bin spool files", dir.string()));
  // Each event's `call` indexes the call list of the build that recorded it: the spools keep it
  // (version 4), older ones are read with this build's.
  std::string call_names;
  int with_names = 0, without = 0;
  for (const auto& [rank, s] : spools) {
    if (s.names_cut) {
      std::fprintf(stderr, "ripple trace recover: rank %d's spool ends inside its header: no events of it to recover\n", rank);
      continue;
    }
    ++(s.call_names.empty() ? without : with_names);
    if (s.call_names.empty()) continue;
    if (!call_names.empty() && s.call_names != call_names)
      throw InputError(fmt::format("{}: the spools were written by builds with different lists of MPI calls", dir.string()));
    call_names = s.call_names;
  }
  if (with_names > 0 && without > 0)  // one run's ranks share one build: these spools are of two
    throw InputError(fmt::format("{}: {} spools keep their list of MPI calls and {} do not: written by different builds",
                                 dir.string(), with_names, without));
  if (call_names.empty()) call_names = call_names_text();

  // First reading: how many events each rank has (and its losses, last time, iteration markers).
  std::vector<std::int64_t> offset(static_cast<std::size_t>(ranks), 0), count(static_cast<std::size_t>(ranks), 0),
      lost(static_cast<std::size_t>(ranks), 0);
  std::vector<double> last_wall(static_cast<std::size_t>(ranks), -1.0);
  std::int64_t total = 0;
  const auto pcontrol = static_cast<std::int32_t>(Call::MPI_Pcontrol);  // version-1 samples: this build's calls
  std::vector<Event> buffer(1 << 16);                                   // a round of events
  // Iteration markers are kept only for ranks whose sample spool is of version 1, whose records get
  // their iterations from them: otherwise memory would grow with every rank's markers.
  for (const fs::path& path : files.of(".samples")) {
    const SampleSpool samples = read_sample_spool(path);
    if (const auto it = spools.find(samples.header.rank); it != spools.end() && samples.header.version == 1)
      it->second.needs_marks = true;
  }
  for (int r = 0; r < ranks; ++r) {
    offset[static_cast<std::size_t>(r)] = total;
    const auto it = spools.find(r);
    if (it == spools.end()) continue;  // that rank never spooled: nothing to recover for it
    RankSpool& s = it->second;
    read_events(s, buffer, [&](const Event* e, std::size_t n) {
      s.events += static_cast<std::int64_t>(n);
      s.last_t_exit = e[n - 1].t_exit;
      for (std::size_t k = 0; s.needs_marks && k < n; ++k)
        if (e[k].call == pcontrol) s.marks.emplace_back(e[k].t_enter, e[k].iteration);
    });
    total += s.events;
    count[static_cast<std::size_t>(r)] = s.events;
    // The blocks' gaps, and with the stream's count what failed writes lost at its end too.
    const std::int64_t rank_lost = detail::stream_lost(s.numbered, s.events, s.lost);
    lost[static_cast<std::size_t>(r)] = rank_lost;
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
                   "ripple trace recover: rank %d's spool does not say how many events its writes lost (an older build's, or "
                   "its header blocks are cut short): its /ranks/lost is -1 (unknown)\n",
                   r);
    if (s.events > 0) last_wall[static_cast<std::size_t>(r)] = s.header.wall_start + s.last_t_exit;
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
  namespace sc = schema;
  write_attribute(file.get(), "schema", std::string(sc::kSchema));
  write_attribute(file.get(), "schema_version", static_cast<std::int64_t>(sc::kVersion));
  write_attribute(file.get(), "events", total);
  write_attribute(file.get(), "lost_events", static_cast<std::int64_t>(-1));
  write_attribute(
      file.get(), "recovered",
      std::string("rebuilt by ripple trace recover from the spools of a run that did not reach MPI_Finalize: "
                  "each rank's events up to its last spool flush; what it recorded after that is lost, how much "
                  "is unknown (lost_events = -1; /ranks/lost counts what reached the spool but is not in the file: failed "
                  "writes, cut-off and unreadable records; -1 where the spool does not say)"));
  write_attribute(file.get(), sc::kClockSourceAttr,
                  std::string("unknown (recovered: the spool does not say whether TSC or CLOCK_MONOTONIC stamped the "
                              "events; both are on CLOCK_MONOTONIC's scale)"));
  write_attribute(file.get(), sc::kClockAttr,
                  std::string("seconds since rank 0's start on rank 0's clock, from the offsets measured at MPI_Init only"));
  write_attribute(file.get(), "call_names", call_names);
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file.get(), "/ranks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  std::map<int, RankSources> sources;  // of the ranks with side spools
  write_recovered_placement(file.get(), dir, files, ranks, sources);
  const auto n = static_cast<hsize_t>(ranks);
  write_dataset(file.get(), sc::kRankOffset, H5T_NATIVE_INT64, offset.data(), n);
  write_dataset(file.get(), sc::kRankCount, H5T_NATIVE_INT64, count.data(), n);
  write_dataset(file.get(), sc::kRankLost, H5T_NATIVE_INT64, lost.data(), n);
  write_dataset(file.get(), "/ranks/last_event_wall_time", H5T_NATIVE_DOUBLE, last_wall.data(), n);
  const std::vector<std::int64_t> unknown(static_cast<std::size_t>(ranks), -1);  // what the spools do not say
  for (const char* name : {sc::kCountersLost, sc::kRequestsUntracked, sc::kPeersUntranslated})
    write_dataset(file.get(), name, H5T_NATIVE_INT64, unknown.data(), n);
  // Second reading: each rank's events onto rank 0's clock, written at the rank's offset in rounds.
  H5Id type = event_h5_type();
  H5Id events = create_rows(file.get(), sc::kEvents, type.get(), static_cast<hsize_t>(total));
  std::vector<Event> moved;
  for (auto& [r, s] : spools) {
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
  write_recovered_counters(file.get(), dir, files, spools, sources);
  write_recovered_samples(file.get(), dir, files, spools, ranks, sources);
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
