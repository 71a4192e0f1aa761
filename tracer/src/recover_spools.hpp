#pragma once
// `ripple trace recover`'s reading of a run's spools (spool_format.hpp): what each rank's event
// spool and side spools hold, checked; recover.cpp writes the file from them. Spools of versions
// older than those this build writes are refused (a development build's: no release wrote them).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ripple/common/error.hpp"
#include "ripple/trace/event.hpp"
#include "ripple/trace/placement_record.hpp"
#include "ripple/trace/sample_record.hpp"
#include "ripple/trace/tick_clock.hpp"
#include "spool_format.hpp"

namespace ripple::trace::recovery {

namespace fs = std::filesystem;

// Values of the clocks a run reads (CLOCK_MONOTONIC since boot, CLOCK_REALTIME since 1970, their
// differences; a tick's length) stay far within these. Anything else is a damaged value, which
// would turn every time it enters into NaN or infinity (or make info's sums overflow).
inline constexpr double kMaxSeconds = 1e12;  // 31 700 years
inline bool plausible_seconds(double s) { return std::isfinite(s) && std::abs(s) <= kMaxSeconds; }
inline bool plausible_rate(double seconds_per_tick) { return seconds_per_tick > 0 && seconds_per_tick <= 1; }  // false for NaN
inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();  // a time not known (trace-format.md)

// The kinds of spool file (extensions) recover reads.
inline constexpr const char* kSpoolKinds[] = {".bin", ".counters", ".samples", ".clock", ".placement"};

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

// A rank's event spool. Its events are read in rounds (read_events), twice: to count them, then to
// write them, so that recover's memory stays bounded whatever the spools hold.
struct RankSpool {
  fs::path path;
  detail::SpoolHeader header;
  std::int64_t data = 0;         // where its events start
  std::string call_names;        // of the build that wrote it; empty: not kept
  bool cut = false;              // the file ends inside its header or call names: it has no events, its losses are unknown
  bool times_known = true;       // false: its header's clock is damaged, or its ticks cannot be converted: times are NaN
  std::optional<TickMap> ticks;  // raw ticks to seconds, read with the first event
  std::int64_t numbered = -1;    // the stream's count its header blocks keep (SpoolStreamCount); -1: none
  // From the counting read:
  std::int64_t events = 0;
  std::int64_t lost = 0;            // records cut off at the end, unreadable or never written (/ranks/lost)
  std::int64_t damaged_blocks = 0;  // event blocks skipped (never reached the disk, or damaged)
  std::int64_t foreign = 0;         // events naming another rank: dropped, counted in `lost`
  double last_t_exit = 0;           // seconds since its t0
  // A time the rank recorded, on rank 0's clock with the offset measured at the start (there was no
  // second synchronisation); NaN where the rank's clock is not known.
  [[nodiscard]] double to_root(double t) const { return times_known ? t + header.t0 + header.offset - header.t0_root : kUnknown; }
};

// A rank's counter spool: its header, names, status and every complete sample record.
struct CounterSpool {
  detail::CounterSpoolHeader header;
  std::string names, status;
  fs::path path;
  std::int64_t data = 0;         // where its records start
  std::size_t record_bytes = 0;  // a CounterRecordHead and header.values int64s
  std::int64_t rows = 0;         // whole records, counted when it was read
};

// What each rank's side spools say of its sources, for /ranks/sources: filled in as they are read.
struct RankSources {
  std::string counters;                                // Counters::status_text(); empty: no counter spool
  std::string perf = "unknown (no sample spool)";      // the sampler's status
  std::string hwloc = "unknown (no placement spool)";  // hwloc's
};

// A rank's sample spool: the sampler's status, and where its records start.
struct SampleSpool {
  detail::SampleSpoolHeader header;
  std::string status;
  fs::path path;
  std::int64_t data = 0;
  std::int64_t rows = 0;  // whole records, counted when it was read
};

// A rank's placement spool: where it ran, its node's hwloc XML (node leaders) and hwloc's status.
struct PlacementSpool {
  int rank = 0;
  Placement me;
  std::string xml, status;
};

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

// A rank count that one file alone gives may be a damaged one (a flipped bit makes 2 ranks 2^21 + 2),
// and the per-rank tables are sized by it: beyond kLoneRanks, where a single event spool gives it,
// one of the side spools (their headers keep the run's rank count too) must say the same.
constexpr int kLoneRanks = 4096;

// The run's event spools by rank (those cut short inside their header placed by their name), its
// rank count and the call list its events index; throws where they cannot be one run's.
struct RunSpools {
  std::map<int, RankSpool> spools;
  int ranks = -1;
  std::string call_names;
};
RunSpools read_run(const fs::path& dir, const SpoolFiles& files);

// A rank's event spool, its header checked (used by read_run).
std::optional<RankSpool> read_spool(const fs::path& path);
// Every event of a rank's spool, in order, in rounds of at most `buffer`'s size, times in seconds
// since its t0 (NaN where they are not known); sets s.lost, s.damaged_blocks and s.foreign.
void read_events(RankSpool& s, std::vector<Event>& buffer, const std::function<void(const Event*, std::size_t)>& round);
// Empty where cut short or damaged (said): recovered as if not there.
std::optional<CounterSpool> read_counter_spool(const fs::path& path, int ranks);
std::optional<SampleSpool> read_sample_spool(const fs::path& path, int ranks);
std::optional<PlacementSpool> read_placement_spool(const fs::path& path, int ranks);
// The trusted records of a sample spool (its rank's, at a time a clock gives), in rounds of at
// most `each` into `round`, given to `use`; how many there were.
std::int64_t read_samples(const SampleSpool& s, std::int64_t each, std::vector<SampleRecord>& round,
                          const std::function<void(std::vector<SampleRecord>&)>& use);
// Whether a rank count beyond kLoneRanks that one event spool gives is confirmed by a side spool.
bool confirmed_ranks(const SpoolFiles& files, int ranks);

}  // namespace ripple::trace::recovery
