// The side spools beside the event spool (spool_format.hpp): counter samples, memory samples, the
// clock map's pieces and the placement. Opened at MPI_Init with their headers; flush_all appends
// what was queued since the last flush.
#include "side_spools.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "recorder_state.hpp"

namespace ripple::trace::detail {

namespace {

// Appends `bytes` to a side spool; one that fails is closed for good (-1), so that a recovered
// trace ends that table where the file ends, with whole records only as far as they got.
bool append_side(int& fd, const void* data, std::size_t bytes) {
  if (fd < 0) return false;
  if (write_all(fd, data, bytes)) return true;
  ::close(fd);
  fd = -1;
  return false;
}

// A side spool <spool_dir>/rank-NNNNNN.<kind>: its header and text, written now; records follow at
// each flush. -1 (and no path) if it cannot be created: a recovered trace then lacks it, the run goes on.
int open_side_spool(State& s, const char* kind, const void* header, std::size_t header_bytes, const std::string& text,
                    std::string& path) {
  char name[64];
  std::snprintf(name, sizeof name, "/rank-%06d.%s", s.rank, kind);
  const std::string where = s.spool_dir + name;
  const int fd = ::open(where.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    std::string bytes(static_cast<const char*>(header), header_bytes);
    bytes += text;
    if (write_all(fd, bytes.data(), bytes.size())) {
      path = where;  // removed at MPI_Finalize like the event spool
      return fd;
    }
    const int err = errno;
    ::close(fd);
    ::unlink(where.c_str());  // a header cut short would only be a damaged spool to `recover`
    errno = err;
  }
  std::fprintf(stderr, "ripple trace: rank %d cannot write %s: %s (the trace says what is missing)\n", s.rank, where.c_str(),
               std::strerror(errno));
  return -1;
}

}  // namespace

// The counter and sample records queued since the last flush, to their spools (under write_mutex).
void spool_side(State& s) {
  {
    const std::lock_guard<std::mutex> pending(s.counter_pending_mutex);
    s.counter_writing.swap(s.counter_pending);
  }
  append_side(s.counter_spool_fd, s.counter_writing.data(), s.counter_writing.size());
  s.counter_writing.clear();
  s.sampler.spool_new();
}

// The clock map's new pieces (one per re-anchoring, 0.1 s), so that MPI_Finalize and `recover` can
// convert the ticks of the events spooled after them (under write_mutex); spooled, they leave memory.
// Without a clock spool they stay in memory for MPI_Finalize, and `recover` uses the start's rate.
void spool_clock(State& s) {
  if (s.clock_spool_fd < 0) return;
  const std::vector<TickSegment> fresh = tick_segments(s.clock_spooled);
  if (!append_side(s.clock_spool_fd, fresh.data(), fresh.size() * sizeof(TickSegment))) return;
  s.clock_spooled += fresh.size();
  release_tick_segments(s.clock_spooled);
}

void open_counter_spool(State& s) {
  if (s.counters.size() == 0) return;
  const std::string names = s.counters.names_text(), status = s.counters.status_text();
  CounterSpoolHeader h;
  h.values = static_cast<std::int32_t>(s.counters.size());
  h.rank = s.rank;
  h.ranks = s.ranks;
  h.names_bytes = static_cast<std::int32_t>(names.size());
  h.status_bytes = static_cast<std::int32_t>(status.size());
  s.counter_spool_fd = open_side_spool(s, "counters", &h, sizeof h, names + status, s.counter_spool_path);
  s.counter_data_offset = static_cast<std::int64_t>(sizeof h + names.size() + status.size());
  s.counter_pending.reserve(1u << 16);
}

void open_clock_spool(State& s) {
  ClockSpoolHeader h;
  h.rank = s.rank;
  h.ranks = s.ranks;
  s.clock_spool_fd = open_side_spool(s, "clock", &h, sizeof h, std::string(), s.clock_spool_path);
}

// Where this rank runs, for `recover` (MPI_Finalize writes it from memory): written once, whole.
void write_placement_spool(State& s) {
  PlacementSpoolHeader h;
  h.rank = s.rank;
  h.ranks = s.ranks;
  h.xml_bytes = static_cast<std::int64_t>(s.placement.node_xml.size());
  h.status_bytes = static_cast<std::int32_t>(s.placement.status.size());
  const std::string text = std::string(reinterpret_cast<const char*>(&s.placement.me), sizeof s.placement.me) +
                           s.placement.node_xml + s.placement.status;
  const int fd = open_side_spool(s, "placement", &h, sizeof h, text, s.placement_spool_path);
  if (fd >= 0) ::close(fd);
}

void open_sample_spool(State& s) {
  if (!s.sampler.active()) return;
  SampleSpoolHeader h;
  h.rank = s.rank;
  h.ranks = s.ranks;
  h.status_bytes = static_cast<std::int32_t>(s.sampler.status().size());
  const int fd = open_side_spool(s, "samples", &h, sizeof h, s.sampler.status(), s.sample_spool_path);
  s.sample_data_offset = static_cast<std::int64_t>(sizeof h + s.sampler.status().size());
  s.sampler.spool_to(fd);  // without it (-1) the samples are dropped, and counted so per rank
}

}  // namespace ripple::trace::detail
