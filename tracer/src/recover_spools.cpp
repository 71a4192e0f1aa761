// `ripple trace recover`'s reading of the spools (recover_spools.hpp).
#include "recover_spools.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <utility>

#include "recorder_state.hpp"
#include "ripple/trace/perf_decoder.hpp"
#include "spool_reader.hpp"

namespace ripple::trace::recovery {

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
      : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), size_(other.size_), at_(other.at_) {}
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

// Spools live only between a crash and its recovery, and no release wrote older versions than
// these: a spool of an older version (a development build's) is refused, in one line.
void refuse_older(const fs::path& path, std::int32_t version, std::int32_t reads) {
  if (version >= 1 && version < reads)
    throw InputError(fmt::format("{}: spool version {} was written by an older development build; this ripple reads version {}",
                                 path.string(), version, reads));
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

// The clock map a rank's event spool needs: its clock spool's pieces, in order. Empty, with why
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
  refuse_older(path, s.header.version, detail::kBlockFormat);
  if (s.header.version != detail::kBlockFormat || s.header.event_size != static_cast<std::int32_t>(sizeof(Event)))
    throw InputError(fmt::format("{}: spool version {} with {}-byte events; this ripple reads version {} with {}", path.string(),
                                 s.header.version, s.header.event_size, detail::kBlockFormat, sizeof(Event)));
  if (s.header.ranks <= 0 || s.header.ranks > (1 << 24) || s.header.rank < 0 || s.header.rank >= s.header.ranks)
    throw InputError(fmt::format("{}: rank {} of {} in the header is impossible", path.string(), s.header.rank, s.header.ranks));
  const std::int64_t data = s.header.data_offset;
  if (data < static_cast<std::int64_t>(sizeof(detail::SpoolHeader)) || data > (1 << 20))
    throw InputError(fmt::format("{}: the header puts the events at byte {}, which is impossible", path.string(), data));
  if (s.header.names_bytes != 0) {  // the call names follow the header
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

// The map of an event spool's raw ticks to seconds: its clock spool, or without a
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
  // Events this rank cannot have written are dropped and counted lost: another rank's number (a
  // block whose check passes can hold another rank's events: a damaged block that happens to pass
  // it, one copied from another rank's spool; info would refuse the file).
  const auto deliver = [&](std::size_t n) {
    const auto kept = std::remove_if(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n),
                                     [&](const Event& e) { return e.rank != s.header.rank; });
    const auto whole = static_cast<std::size_t>(kept - buffer.begin());
    s.lost += static_cast<std::int64_t>(n - whole);
    s.foreign += static_cast<std::int64_t>(n - whole);
    if (whole == 0) return;
    const TickMap& map = tick_map(s);  // raw ticks since tick0: seconds since t0
    for (std::size_t k = 0; k < whole; ++k) {
      buffer[k].t_enter = map.empty() ? kUnknown : stamp_seconds(map, s.header.tick0, buffer[k].t_enter) - s.header.t0;
      buffer[k].t_exit = map.empty() ? kUnknown : stamp_seconds(map, s.header.tick0, buffer[k].t_exit) - s.header.t0;
    }
    round(buffer.data(), whole);
  };
  detail::EventBlockReader blocks;
  if (!blocks.open(s.path.string(), s.data)) throw InputError(fmt::format("{}: cannot read", s.path.string()));
  while (const std::size_t n = blocks.read(buffer.data(), round_size)) deliver(n);
  s.lost += blocks.lost();
  s.damaged_blocks = blocks.damaged_blocks();
  if (blocks.failed()) std::fprintf(stderr, "ripple trace recover: %s could not be read to its end\n", s.path.string().c_str());
}

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

// Empty where it is cut short inside its header or status: said, and recovered as if it were not there.
std::optional<SampleSpool> read_sample_spool(const fs::path& path, int ranks) {
  SampleSpool s;
  std::optional<SpoolFile> in = open_spool(path, s.header, "RPLSMPLS", "sample spool");
  const auto& h = s.header;
  if (in) refuse_older(path, h.version, 2);
  if (in && (h.version != 2 || h.record_size != static_cast<std::int32_t>(sizeof(SampleRecord)) || h.status_bytes < 0 ||
             h.status_bytes > (1 << 20) || h.ranks != ranks || h.rank < 0 || h.rank >= h.ranks))
    throw InputError(
        fmt::format("{}: impossible sample spool header (version {}, {}-byte records, rank {} of {}); this ripple reads version "
                    "2 with {}, for a run of {} ranks",
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
// gives.
bool trusted(const SampleRecord& r, int rank) { return r.rank == rank && plausible_seconds(r.time); }

// The trusted records of a sample spool, in rounds of at most `each` into `round`, given to `use`;
// how many there were.
std::int64_t read_samples(const SampleSpool& s, std::int64_t each, std::vector<SampleRecord>& round,
                          const std::function<void(std::vector<SampleRecord>&)>& use) {
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

RunSpools read_run(const fs::path& dir, const SpoolFiles& files) {
  RunSpools run;
  std::map<int, RankSpool>& spools = run.spools;
  std::vector<RankSpool> headerless;  // cut short inside their header: placed once the run's rank count is known
  int& ranks = run.ranks;
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
  // (where it fits their header blocks), those without one are read with this build's.
  std::string& call_names = run.call_names;
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
  return run;
}

}  // namespace ripple::trace::recovery
