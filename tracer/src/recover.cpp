// `ripple trace recover`: builds a valid trace file from the per-rank spools a run left behind when
// it died before MPI_Finalize (a rank killed, MPI_Abort). Runs as one process, without MPI.
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
#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/common/pcontrol.hpp"
#include "ripple/trace/event_h5.hpp"
#include "ripple/trace/perf_decoder.hpp"
#include "ripple/trace/trace_schema.hpp"
#include "sources_json.hpp"
#include "spool_reader.hpp"

namespace ripple::trace {
namespace {

namespace fs = std::filesystem;

// The kinds of spool file (extensions) recover reads.
constexpr const char* kSpoolKinds[] = {".bin", ".counters", ".samples", ".clock", ".placement"};

// The spool directory's files by kind (extension), listed once: regular files, and entries whose
// kind cannot be told (a dangling link named like a spool is read, and refused with why).
// Directories are passed over; other entries named like a spool (a FIFO, a socket, a device) are
// said and passed over too: reading one would block or never end, and none holds a spool.
class SpoolFiles {
public:
  explicit SpoolFiles(const fs::path& dir) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::error_code ec;
      const fs::file_status status = entry.status(ec);
      const std::string kind = entry.path().extension().string();
      if (!ec && status.type() != fs::file_type::regular) {
        if (status.type() != fs::file_type::directory && std::ranges::find(kSpoolKinds, kind) != std::end(kSpoolKinds))
          std::fprintf(stderr, "ripple trace recover: %s is not a regular file: ignored\n", entry.path().string().c_str());
        continue;
      }
      by_kind_[kind].push_back(entry.path());
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

// A spool file, read from its start. Opened without blocking and refused unless it is a regular
// file (one replaced by a FIFO after the listing would block the reading for ever).
class SpoolFile {
public:
  explicit SpoolFile(const fs::path& path) : path_(path) {
    std::int64_t bytes = 0;
    fd_ = detail::open_spool_file(path.string(), bytes);
    if (fd_ < 0 && errno == EINVAL) throw InputError(fmt::format("{}: not a regular file", path.string()));
    if (fd_ < 0) throw InputError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
    size_ = static_cast<std::uintmax_t>(bytes);
  }
  SpoolFile(SpoolFile&& other) noexcept
      : path_(other.path_), fd_(std::exchange(other.fd_, -1)), size_(other.size_), at_(other.at_) {}
  SpoolFile(const SpoolFile&) = delete;
  SpoolFile& operator=(const SpoolFile&) = delete;
  SpoolFile& operator=(SpoolFile&&) = delete;
  ~SpoolFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  // The next `bytes` bytes into `out`; how many there were (fewer at the file's end).
  std::size_t read(void* out, std::size_t bytes) {
    std::size_t got = 0;
    while (got < bytes) {
      const ssize_t n = ::pread(fd_, static_cast<char*>(out) + got, bytes - got, static_cast<off_t>(at_ + got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(fmt::format("{}: cannot read: {}", path_.string(), std::strerror(errno)));
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    at_ += got;
    return got;
  }
  // The file's size when it was opened.
  [[nodiscard]] std::uintmax_t size() const { return size_; }

private:
  fs::path path_;
  int fd_ = -1;
  std::uintmax_t size_ = 0;
  std::uintmax_t at_ = 0;
};

// Opens a spool file and reads its header, which must start with `magic` (8 bytes). Empty where
// the file ends inside the header and what there is of it is a header's start: it was cut short (a
// rank killed between creating its spool and writing the header, at MPI_Init, leaves it empty), and
// is recovered as if it were not there (say_cut says so). Anything else is refused.
template <class Header>
std::optional<SpoolFile> open_spool(const fs::path& path, Header& header, const char* magic, const char* what) {
  SpoolFile in(path);
  const std::size_t got = in.read(&header, sizeof header);
  if (got < sizeof header && std::memcmp(header.magic, magic, std::min<std::size_t>(got, 8)) == 0) return std::nullopt;
  if (got < sizeof header || std::memcmp(header.magic, magic, 8) != 0)
    throw InputError(fmt::format("{}: not a Ripple {} (bad header)", path.string(), what));
  return in;
}

void say_cut(const fs::path& path, const char* then) {
  std::fprintf(stderr, "ripple trace recover: %s ends inside its header (cut short): %s\n", path.string().c_str(), then);
}

// The rank a spool's name gives (rank-NNNNNN.<kind>), for a spool cut short before its header.
std::optional<int> rank_of_name(const fs::path& path) {
  const std::string stem = path.stem().string();
  if (!stem.starts_with("rank-") || stem.size() == 5 || stem.size() > 14) return std::nullopt;
  std::int64_t rank = 0;
  for (const char c : stem.substr(5)) {
    if (c < '0' || c > '9') return std::nullopt;
    rank = rank * 10 + (c - '0');
  }
  return rank < (1 << 24) ? std::optional<int>(static_cast<int>(rank)) : std::nullopt;
}

// Values of the clocks a run reads (CLOCK_MONOTONIC since boot, CLOCK_REALTIME since 1970, their
// differences; a tick's length) stay far within these. Anything else is a damaged value, which
// would turn every time it enters into NaN or infinity (or make info's sums overflow).
constexpr double kMaxSeconds = 1e12;  // 31 700 years
bool plausible_seconds(double s) { return std::isfinite(s) && std::abs(s) <= kMaxSeconds; }
bool plausible_rate(double seconds_per_tick) { return seconds_per_tick > 0 && seconds_per_tick <= 1; }  // false for NaN
constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();  // a time not known (trace-format.md)

// A rank's event spool. Its events are read in rounds (read_events), twice: to count them, then to
// write them, so that recover's memory stays bounded whatever the spools hold.
struct RankSpool {
  fs::path path;
  detail::SpoolHeader header;
  std::int64_t data = 0;         // where its events start
  std::string call_names;        // of the build that wrote it (version 4); empty: not kept
  bool cut = false;              // the file ends inside its header or call names: it has no events, its losses are unknown
  bool times_known = true;       // false: its header's clock is damaged, or its ticks cannot be converted: times are NaN
  std::optional<TickMap> ticks;  // version 3 on: raw ticks to seconds, read with the first event
  std::int64_t numbered = -1;    // the stream's count its header blocks keep (SpoolStreamCount); -1: none
  // From the counting read:
  std::int64_t events = 0;
  std::int64_t lost = 0;                               // records cut off at the end, unreadable or never written (/ranks/lost)
  std::int64_t damaged_blocks = 0;                     // versions 5, 6: event blocks skipped (never reached the disk, or damaged)
  std::int64_t foreign = 0;                            // events naming another rank: dropped, counted in `lost`
  double last_t_exit = 0;                              // seconds since its t0
  bool needs_marks = false;                            // its sample spool is of version 1
  std::vector<std::pair<double, std::int32_t>> marks;  // then: MPI_Pcontrol's time and iteration
  // A time the rank recorded, on rank 0's clock with the offset measured at the start (there was no
  // second synchronisation); NaN where the rank's clock is not known.
  [[nodiscard]] double to_root(double t) const { return times_known ? t + header.t0 + header.offset - header.t0_root : kUnknown; }
};

// A whole dataset of `rows` rows (`width` columns, or 1-D with width 0), written at once.
void write_dataset(hid_t file, const char* name, hid_t type, const void* data, hsize_t rows, hsize_t width = 0) {
  const hsize_t dims[2] = {rows, width};
  H5Id space(RIPPLE_H5_CHECK(H5Screate_simple(width > 0 ? 2 : 1, dims, nullptr)));
  H5Id ds(RIPPLE_H5_CHECK(H5Dcreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  if (rows > 0) RIPPLE_H5_CHECK(H5Dwrite(ds.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
}

// The clock map a rank's version-3 spool needs: its clock spool's pieces, in order. Empty, with why
// in `why`, where it has none to use: cut short inside its header, no piece on the disk, or a piece
// damaged (a value no clock gives, or pieces out of order: which of them is wrong cannot be told, so
// no piece is trusted).
TickMap read_clock_spool(const fs::path& path, int rank, int ranks, std::string& why) {
  detail::ClockSpoolHeader h;
  if (!open_spool(path, h, "RPLCLOCK", "clock spool")) {
    why = "has no clock map (its clock spool ends inside its header)";
    return {};
  }
  if (h.version != 1 || h.record_size != static_cast<std::int32_t>(sizeof(TickSegment)) || h.rank != rank || h.ranks != ranks)
    throw InputError(
        fmt::format("{}: impossible clock spool header (version {}, {}-byte records, rank {} of {}); this ripple reads "
                    "version 1 with {} for rank {} of {}",
                    path.string(), h.version, h.record_size, h.rank, h.ranks, sizeof(TickSegment), rank, ranks));
  std::vector<TickSegment> pieces = detail::read_all_records<TickSegment>(path, sizeof h);
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const TickSegment& p = pieces[k];
    if (!plausible_seconds(p.seconds) || !plausible_rate(p.rate) || (k > 0 && p.tick < pieces[k - 1].tick)) {
      why = fmt::format("has a damaged clock map (piece {} of {}: tick {}, {} s, {} s per tick)", k + 1, pieces.size(), p.tick,
                        p.seconds, p.rate);
      return {};
    }
  }
  return TickMap(std::move(pieces));  // empty if no piece reached the disk
}

// A rank's event spool, its header checked. One cut short inside its header (the rank was killed
// between creating it and writing the header, at MPI_Init) gives only its rank, from its name, and
// `header.ranks` 0; nothing where the name does not say it (said). Either has no events.
std::optional<RankSpool> read_spool(const fs::path& path) {
  RankSpool s;
  s.path = path;
  std::optional<SpoolFile> in = open_spool(path, s.header, "RPLSPOOL", "spool file");
  if (!in) {
    const std::optional<int> rank = rank_of_name(path);
    if (!rank) {
      say_cut(path, "its name does not say whose it is: ignored");
      return std::nullopt;
    }
    s.header = detail::SpoolHeader{};
    s.header.rank = *rank;
    s.header.ranks = 0;
    s.cut = true;
    s.times_known = false;
    return s;
  }
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
    if (in->read(s.call_names.data(), s.call_names.size()) != s.call_names.size()) {
      s.call_names.clear();
      s.cut = true;  // and no event lies before data_offset: the rank is recovered empty, said below
    }
  }
  // Clock values no clock gives: the rank's events are kept, their times unknown (NaN), said.
  const detail::SpoolHeader& h = s.header;
  if (!plausible_seconds(h.t0) || !plausible_seconds(h.t0_root) || !plausible_seconds(h.offset)) {
    std::fprintf(stderr,
                 "ripple trace recover: %s: its header's clock is damaged (t0 %g s, rank 0's t0 %g s, offset %g s): rank %d's "
                 "times are unknown (NaN)\n",
                 path.string().c_str(), h.t0, h.t0_root, h.offset, h.rank);
    s.times_known = false;
  }
  if (!plausible_seconds(h.wall_start))
    std::fprintf(stderr,
                 "ripple trace recover: %s: its header's wall-clock start is damaged (%g s): rank %d's last_event_wall_time is "
                 "unknown (NaN)\n",
                 path.string().c_str(), h.wall_start, h.rank);
  s.data = data;
  s.numbered = detail::read_stream_count(path.string(), s.header, data);
  return s;
}

// The map of a version-3 (or later) spool's raw ticks to seconds: its clock spool, or without a
// usable one the start's rate (said once); empty where there is no rate either: the rank's times
// are then unknown.
const TickMap& tick_map(RankSpool& s) {
  if (s.ticks) return *s.ticks;
  const fs::path clock = fs::path(s.path).replace_extension(".clock");
  TickMap map;
  std::string why = "has no clock map";
  std::error_code ec;
  if (fs::is_regular_file(clock, ec)) map = read_clock_spool(clock, s.header.rank, s.header.ranks, why);
  if (map.empty() && s.times_known) {  // the start's rate, without the later re-anchorings
    s.times_known = plausible_rate(s.header.tick_rate);
    const std::string then =
        s.times_known ? "use the start's tick rate"
                      : fmt::format("are unknown (NaN): its header's tick rate ({} s per tick) is damaged", s.header.tick_rate);
    std::fprintf(stderr, "ripple trace recover: %s %s: rank %d's times %s\n", s.path.string().c_str(), why.c_str(), s.header.rank,
                 then.c_str());
    if (s.times_known) map = TickMap({{s.header.tick0, s.header.t0, s.header.tick_rate}});
  }
  return s.ticks.emplace(std::move(map));
}

// Every event of a rank's spool, in order, in rounds of at most `buffer`'s size (one buffer for
// all ranks and both readings), times in seconds since its t0 (NaN where they are not known); sets
// s.lost, s.damaged_blocks and s.foreign.
void read_events(RankSpool& s, std::vector<Event>& buffer, const std::function<void(const Event*, std::size_t)>& round) {
  const std::size_t round_size = buffer.size();
  s.lost = s.foreign = 0;
  if (s.cut) return;
  // Events this rank cannot have written are dropped and counted lost: another rank's number, or
  // (versions 1 to 4, raw records) all zeros (no real record is: MPI_Init's has peer -1; after a
  // node crash, a buffered block may be missing, zeros, while later O_DIRECT blocks reached the
  // disk). A block whose check passes can hold another rank's events too (a damaged block that
  // happens to pass it, one copied from another rank's spool): info would refuse the file.
  static constexpr Event kZero = [] {
    Event z;
    z.request = z.peer = z.tag = z.comm = z.iteration = 0;
    return z;
  }();
  const auto deliver = [&](std::size_t n) {
    const auto kept = std::remove_if(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n), [&](const Event& e) {
      const bool zero = s.header.version < 5 && std::memcmp(&e, &kZero, sizeof e) == 0;
      const bool foreign = !zero && e.rank != s.header.rank;
      s.foreign += foreign ? 1 : 0;
      return zero || foreign;
    });
    const auto whole = static_cast<std::size_t>(kept - buffer.begin());
    s.lost += static_cast<std::int64_t>(n - whole);
    if (whole == 0) return;
    if (s.header.version >= 3) {  // raw ticks since tick0: seconds since t0, as in versions 1 and 2
      const TickMap& map = tick_map(s);
      for (std::size_t k = 0; k < whole; ++k) {
        buffer[k].t_enter = map.empty() ? kUnknown : stamp_seconds(map, s.header.tick0, buffer[k].t_enter) - s.header.t0;
        buffer[k].t_exit = map.empty() ? kUnknown : stamp_seconds(map, s.header.tick0, buffer[k].t_exit) - s.header.t0;
      }
    } else {  // versions 1, 2: seconds since t0, as recorded; one no clock gives is a damaged record's (info refused inf)
      for (std::size_t k = 0; k < whole; ++k)
        for (double* t : {&buffer[k].t_enter, &buffer[k].t_exit})
          if (!plausible_seconds(*t)) *t = kUnknown;
    }
    round(buffer.data(), whole);
  };
  if (s.header.version >= 5) {
    detail::EventBlockReader blocks;
    if (!blocks.open(s.path.string(), s.data, s.header.version))
      throw InputError(fmt::format("{}: cannot read", s.path.string()));
    while (const std::size_t n = blocks.read(buffer.data(), round_size)) deliver(n);
    s.lost += blocks.lost();
    s.damaged_blocks = blocks.damaged_blocks();
    if (blocks.failed()) std::fprintf(stderr, "ripple trace recover: %s could not be read to its end\n", s.path.string().c_str());
    return;
  }
  detail::SpoolRecords records;
  if (!records.open(s.path.string(), s.data, sizeof(Event))) throw InputError(fmt::format("{}: cannot read", s.path.string()));
  while (const std::size_t n = records.read(buffer.data(), round_size)) deliver(n);
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

// The names a text gives as `trace info` reads them back from the file (its lines; HDF5's strings
// lose trailing NULs): /counters/values must have as many columns.
std::size_t name_lines(std::string text) {
  while (!text.empty() && text.back() == '\0') text.pop_back();
  const auto breaks = static_cast<std::size_t>(std::ranges::count(text, '\n'));
  return breaks + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// Empty where it is cut short inside its header, names or status, or where its names are not as
// many as its values (a damaged byte): said, and recovered as if it were not there.
std::optional<CounterSpool> read_counter_spool(const fs::path& path, int ranks) {
  CounterSpool c;
  std::optional<SpoolFile> in = open_spool(path, c.header, "RPLCNTRS", "counter spool");
  const auto& h = c.header;
  if (in && (h.version != 1 || h.values <= 0 || h.values > 4096 || h.names_bytes < 0 || h.status_bytes < 0 ||
             h.names_bytes > (1 << 20) || h.status_bytes > (1 << 20) || h.ranks != ranks || h.rank < 0 || h.rank >= h.ranks))
    throw InputError(fmt::format(
        "{}: impossible counter spool header (version {}, {} values, rank {} of {}); this ripple reads version 1, for a run "
        "of {} ranks",
        path.string(), h.version, h.values, h.rank, h.ranks, ranks));
  c.data = static_cast<std::int64_t>(sizeof h) + h.names_bytes + h.status_bytes;
  if (!in || in->size() < static_cast<std::uintmax_t>(c.data)) {  // then nothing is allocated for what is not there
    say_cut(path, "that rank's counter samples are missing");
    return std::nullopt;
  }
  c.names.resize(static_cast<std::size_t>(h.names_bytes));
  c.status.resize(static_cast<std::size_t>(h.status_bytes));
  const bool whole =
      in->read(c.names.data(), c.names.size()) == c.names.size() && in->read(c.status.data(), c.status.size()) == c.status.size();
  if (!whole) throw InputError(fmt::format("{}: changed while it was read", path.string()));
  c.path = path;
  c.record_bytes = sizeof(detail::CounterRecordHead) + 8 * static_cast<std::size_t>(h.values);
  detail::SpoolRecords records;  // a cut-off last record is dropped
  if (!records.open(path, c.data, c.record_bytes)) throw InputError(fmt::format("{}: cannot read", path.string()));
  c.rows = records.records();
  if (const std::size_t names = name_lines(c.names); names != static_cast<std::size_t>(h.values)) {
    std::fprintf(stderr,
                 "ripple trace recover: %s is damaged (%zu names for %d values): rank %d's %lld counter samples are dropped\n",
                 path.string().c_str(), names, h.values, h.rank, static_cast<long long>(c.rows));
    return std::nullopt;
  }
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

// The side spools of one kind (`ext`), read by `read` (empty: cut short or damaged, said), one per
// rank that has an event spool (without it, no clock offsets place its samples). A second one for a
// rank (a copy under another name) is refused: the table would be sized for both and written for one.
template <class Spool, class Read>
std::map<int, Spool> side_spools_by_rank(const fs::path& dir, const SpoolFiles& files, const char* ext, const char* kind,
                                         const std::map<int, RankSpool>& spools, Read&& read) {
  std::map<int, Spool> out;
  for (const fs::path& path : files.of(ext)) {
    std::optional<Spool> spool = read(path);
    if (!spool) continue;
    const int rank = spool->header.rank;
    if (!spools.contains(rank)) continue;
    if (out.contains(rank)) throw InputError(fmt::format("{}: two {} spools for rank {}", dir.string(), kind, rank));
    out.emplace(rank, std::move(*spool));
  }
  return out;
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

// A rank's sample spool: the sampler's status, and where its records start.
struct SampleSpool {
  detail::SampleSpoolHeader header;
  std::string status;
  fs::path path;
  std::int64_t data = 0;
  std::int64_t rows = 0;  // whole records, counted when it was read
};

// Empty where it is cut short inside its header or status: said, and recovered as if it were not there.
std::optional<SampleSpool> read_sample_spool(const fs::path& path, int ranks) {
  SampleSpool s;
  std::optional<SpoolFile> in = open_spool(path, s.header, "RPLSMPLS", "sample spool");
  const auto& h = s.header;
  if (in && (h.version < 1 || h.version > 2 || h.record_size != static_cast<std::int32_t>(sizeof(SampleRecord)) ||
             h.status_bytes < 0 || h.status_bytes > (1 << 20) || h.ranks != ranks || h.rank < 0 || h.rank >= h.ranks))
    throw InputError(
        fmt::format("{}: impossible sample spool header (version {}, {}-byte records, rank {} of {}); this ripple reads versions "
                    "1 and 2 with {}, for a run of {} ranks",
                    path.string(), h.version, h.record_size, h.rank, h.ranks, sizeof(SampleRecord), ranks));
  s.data = static_cast<std::int64_t>(sizeof h) + h.status_bytes;
  if (!in || in->size() < static_cast<std::uintmax_t>(s.data)) {  // then nothing is allocated for what is not there
    say_cut(path, "that rank's memory samples are missing");
    return std::nullopt;
  }
  s.status.resize(static_cast<std::size_t>(h.status_bytes));
  if (in->read(s.status.data(), s.status.size()) != s.status.size())
    throw InputError(fmt::format("{}: changed while it was read", path.string()));
  s.path = path;
  detail::SpoolRecords records;
  s.rows = records.open(s.path.string(), s.data, sizeof(SampleRecord)) ? records.records() : 0;
  return s;
}

// Whether a sample record can be the rank's: one naming another rank is damaged (trace info would
// refuse the file, or the sample would go to the wrong rank), and so is one whose time no clock
// gives (version 1's records are sorted by it).
bool trusted(const SampleRecord& r, int rank) { return r.rank == rank && plausible_seconds(r.time); }

// The trusted records of a sample spool, in rounds of at most `each` into `round`, given to `use`;
// how many there were.
template <class Use>
std::int64_t read_samples(const SampleSpool& s, std::int64_t each, std::vector<SampleRecord>& round, Use&& use) {
  detail::SpoolRecords in;
  if (!in.open(s.path.string(), s.data, sizeof(SampleRecord))) throw InputError(fmt::format("{}: cannot read", s.path.string()));
  std::int64_t kept = 0;
  for (std::int64_t done = 0; done < s.rows;) {
    round.resize(static_cast<std::size_t>(std::min(each, s.rows - done)));
    if (in.read(round.data(), round.size()) != round.size())
      throw InputError(fmt::format("{}: could not be read to its end", s.path.string()));
    done += static_cast<std::int64_t>(round.size());
    std::erase_if(round, [&](const SampleRecord& r) { return !trusted(r, s.header.rank); });
    kept += static_cast<std::int64_t>(round.size());
    use(round);
  }
  return kept;
}

// /samples as MPI_Finalize writes it, from the sample spools: times on rank 0's clock, losses
// unknown (-1). Read and written in rounds of 64 Ki records, rank after rank, so that memory does
// not grow with the spools: once to count the records it can trust, once to write them. Version 2
// records carry their iteration; version 1 records get it from the rank's recovered iteration
// markers (MPI_Pcontrol events; version-1 sample spools come with event spools of versions 1 to 3,
// whose calls are this build's), which needs the rank's records sorted by time, in memory.
void write_recovered_samples(hid_t file, const std::map<int, SampleSpool>& found, const std::map<int, RankSpool>& spools,
                             int ranks) {
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
    read_samples(s, s.header.version == 1 ? s.rows : kRound, round, [&](std::vector<SampleRecord>& records) {
      if (s.header.version == 1) {
        const auto& marks = events.marks;  // on the rank's own clock, like the records
        std::ranges::sort(records, {}, &SampleRecord::time);
        std::size_t m = 0;
        std::int32_t iteration = -1;
        for (SampleRecord& r : records) {
          while (m < marks.size() && marks[m].first <= r.time) iteration = marks[m++].second;
          r.iteration = iteration;
        }
      }
      for (SampleRecord& r : records) r.time = events.to_root(r.time);
      const auto n = std::min(static_cast<std::int64_t>(records.size()), end - at);
      write_rows(ds.get(), type.get(), static_cast<hsize_t>(at), records.data(), static_cast<hsize_t>(n));
      at += n;
    });
    if (at != end) throw InputError(fmt::format("{}: changed while it was read", s.path.string()));
  }
  const std::vector<std::int64_t> unknown(static_cast<std::size_t>(ranks), -1);
  for (const char* name : {schema::kSamplesLost, schema::kSamplesDropped})
    write_dataset(file, name, H5T_NATIVE_INT64, unknown.data(), unknown.size());
}

// A rank's placement spool: where it ran, its node's hwloc XML (node leaders) and hwloc's status.
struct PlacementSpool {
  int rank = 0;
  Placement me;
  std::string xml, status;
};

// Throws on a damaged header; empty where it is cut short (the rank was killed while writing it, in
// MPI_Init): said, not used.
std::optional<PlacementSpool> read_placement_spool(const fs::path& path, int ranks) {
  detail::PlacementSpoolHeader h;
  std::optional<SpoolFile> in = open_spool(path, h, "RPLPLACE", "placement spool");
  if (!in) {
    say_cut(path, "that rank's placement is missing");
    return std::nullopt;
  }
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
  bool cut = in->size() < whole;  // then nothing is allocated for what is not there
  if (!cut) {
    p.xml.resize(static_cast<std::size_t>(h.xml_bytes));
    p.status.resize(static_cast<std::size_t>(h.status_bytes));
    cut = in->read(&p.me, sizeof p.me) != sizeof p.me || in->read(p.xml.data(), p.xml.size()) != p.xml.size() ||
          in->read(p.status.data(), p.status.size()) != p.status.size();
  }
  if (cut) {
    std::fprintf(stderr, "ripple trace recover: %s is cut short: rank %d's placement is missing\n", path.string().c_str(),
                 h.rank);
    return std::nullopt;
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

// A rank count that one file alone gives may be a damaged one (a flipped bit makes 2 ranks 2^21 + 2),
// and the per-rank tables are sized by it: beyond kLoneRanks, where a single event spool gives it,
// one of the side spools (their headers keep the run's rank count too) must say the same.
constexpr int kLoneRanks = 4096;

template <class Header>
bool says_ranks(const fs::path& path, int ranks) {
  const Header expected;
  Header h;
  try {
    return open_spool(path, h, expected.magic, "spool") && h.ranks == ranks;
  } catch (const InputError&) {
    return false;  // not one, or unreadable: said when it is read
  }
}

bool confirmed_ranks(const SpoolFiles& files, int ranks) {
  if (ranks <= kLoneRanks) return true;
  const auto any = [&](const char* kind, auto says) {
    return std::ranges::any_of(files.of(kind), [&](const fs::path& p) { return says(p, ranks); });
  };
  return any(".clock", says_ranks<detail::ClockSpoolHeader>) || any(".counters", says_ranks<detail::CounterSpoolHeader>) ||
         any(".samples", says_ranks<detail::SampleSpoolHeader>) || any(".placement", says_ranks<detail::PlacementSpoolHeader>);
}

}  // namespace

int recover(const std::string& input, const std::string& output) {
  fs::path dir = input;
  if (!fs::is_directory(dir)) dir = input + ".spool";
  if (!fs::is_directory(dir))
    throw InputError(fmt::format("{}: neither a spool directory nor a trace with a .spool beside it", input));
  std::map<int, RankSpool> spools;
  std::vector<RankSpool> headerless;  // cut short inside their header: placed once the run's rank count is known
  int ranks = -1;
  const SpoolFiles files(dir);
  for (const fs::path& path : files.of(".bin")) {
    std::optional<RankSpool> s = read_spool(path);
    if (!s) continue;
    if (s->header.ranks == 0) {
      headerless.push_back(std::move(*s));
      continue;
    }
    if (ranks >= 0 && s->header.ranks != ranks)
      throw InputError(
          fmt::format("{}: spools disagree on the number of ranks ({} and {})", dir.string(), ranks, s->header.ranks));
    ranks = s->header.ranks;
    if (spools.contains(s->header.rank))
      throw InputError(fmt::format("{}: two spools for rank {}", dir.string(), s->header.rank));
    spools.emplace(s->header.rank, std::move(*s));
  }
  if (spools.empty() && files.of(".bin").empty()) throw InputError(fmt::format("{}: no rank-*.bin spool files", dir.string()));
  if (spools.empty())
    throw InputError(fmt::format("{}: no rank-*.bin spool has a whole header: nothing to recover", dir.string()));
  if (spools.size() == 1 && !confirmed_ranks(files, ranks))
    throw InputError(
        fmt::format("{}: its header gives the run {} ranks, and no other spool says so (a damaged header?): "
                    "refused, beyond {} ranks a second spool of the run must confirm the count",
                    spools.begin()->second.path.string(), ranks, kLoneRanks));
  for (RankSpool& s : headerless) {
    if (s.header.rank >= ranks) {
      std::fprintf(stderr, "ripple trace recover: %s names rank %d, not one of the run's %d: ignored\n", s.path.string().c_str(),
                   s.header.rank, ranks);
      continue;
    }
    if (spools.contains(s.header.rank)) throw InputError(fmt::format("{}: two spools for rank {}", dir.string(), s.header.rank));
    s.header.ranks = ranks;
    spools.emplace(s.header.rank, std::move(s));
  }
  // Each event's `call` indexes the call list of the build that recorded it: the spools keep it
  // (version 4), older ones are read with this build's.
  std::string call_names;
  int with_names = 0, without = 0;
  for (const auto& [rank, s] : spools) {
    if (s.cut) {
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
  std::map<int, RankSources> sources;                                   // of the ranks with side spools
  const std::map<int, SampleSpool> samples = side_spools_by_rank<SampleSpool>(
      dir, files, ".samples", "sample", spools, [&](const fs::path& path) { return read_sample_spool(path, ranks); });
  // Iteration markers are kept only for ranks whose sample spool is of version 1, whose records get
  // their iterations from them: otherwise memory would grow with every rank's markers.
  for (const auto& [rank, s] : samples) {
    sources[rank].perf = s.status;
    spools.at(rank).needs_marks = s.header.version == 1;
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
        if (e[k].call == pcontrol && e[k].tag == kPcontrolIteration) s.marks.emplace_back(e[k].t_enter, e[k].iteration);
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
                   "ripple trace recover: rank %d's spool does not say how many events its writes lost (an older build's, or "
                   "its header blocks are cut short): its /ranks/lost is -1 (unknown)\n",
                   r);
    // A wall-clock start no clock gives (a damaged header) leaves the time unknown; so does a damaged
    // t0, from which versions 3 on count the last time (it was -inf, or -1e300, for t0 inf or 1e300).
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
  H5Id group(RIPPLE_H5_CHECK(H5Gcreate2(file.get(), schema::kRanks, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  write_recovered_placement(file.get(), dir, files, ranks, sources);
  const auto n = static_cast<hsize_t>(ranks);
  write_dataset(file.get(), schema::kRankOffset, H5T_NATIVE_INT64, offset.data(), n);
  write_dataset(file.get(), schema::kRankCount, H5T_NATIVE_INT64, count.data(), n);
  write_dataset(file.get(), schema::kRankLost, H5T_NATIVE_INT64, lost.data(), n);
  write_dataset(file.get(), schema::kLastEventWallTime, H5T_NATIVE_DOUBLE, last_wall.data(), n);
  const std::vector<std::int64_t> unknown(static_cast<std::size_t>(ranks), -1);  // what the spools do not say
  for (const char* name : {schema::kCountersLost, schema::kRequestsUntracked, schema::kPeersUntranslated})
    write_dataset(file.get(), name, H5T_NATIVE_INT64, unknown.data(), n);
  // Second reading: each rank's events onto rank 0's clock, written at the rank's offset in rounds.
  H5Id type = event_h5_type();
  H5Id events = create_rows(file.get(), schema::kEvents, type.get(), static_cast<hsize_t>(total));
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
  write_recovered_counters(file.get(), dir, files, spools, ranks, sources);
  write_recovered_samples(file.get(), samples, spools, ranks);
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
