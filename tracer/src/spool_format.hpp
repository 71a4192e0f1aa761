#pragma once
// The per-rank spool files in <output>.spool/ (docs/trace-format.md): what a killed run leaves on
// disk for `ripple trace recover`. Written by the recorder; read back by MPI_Finalize, which writes
// the trace file from them, and by recover (spool_reader.hpp).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "event_blocks.hpp"
#include "ripple/trace/event.hpp"
#include "ripple/trace/placement_record.hpp"
#include "ripple/trace/sample_record.hpp"
#include "ripple/trace/tick_clock.hpp"

namespace ripple::trace::detail {

// The file-size limit (ulimit -f) in bytes; kNoFileSizeLimit where there is none. A write across it
// does not simply fail: the kernel ends the process with SIGXFSZ, sent to the writing thread, which
// is the flusher or an application thread that found the ring full. So the spools never make one
// (write_all). Read once, and again by read_file_size_limit() (EventSpool::open, at MPI_Init), so
// that the common case, no limit, costs no system call per write.
inline constexpr std::uint64_t kNoFileSizeLimit = ~std::uint64_t{0};
inline constexpr std::uint64_t kFileSizeLimitUnread = kNoFileSizeLimit - 1;
inline std::atomic<std::uint64_t> g_file_size_limit{kFileSizeLimitUnread};
inline std::uint64_t read_file_size_limit() {
  rlimit r{};
  const std::uint64_t limit = ::getrlimit(RLIMIT_FSIZE, &r) == 0 && r.rlim_cur != RLIM_INFINITY
                                  ? static_cast<std::uint64_t>(r.rlim_cur)
                                  : kNoFileSizeLimit;
  g_file_size_limit.store(limit, std::memory_order_relaxed);
  return limit;
}
inline std::uint64_t file_size_limit() {
  const std::uint64_t limit = g_file_size_limit.load(std::memory_order_relaxed);
  return limit == kFileSizeLimitUnread ? read_file_size_limit() : limit;
}

// Whether `bytes` written to fd at `offset` (negative: where fd's own writes go) end within the
// file-size limit. If not, errno is EFBIG, as for the kernel's refusal, but without its signal.
inline bool within_file_size_limit(int fd, std::size_t bytes, off_t offset) {
  if (file_size_limit() == kNoFileSizeLimit) return true;
  off_t at = offset;
  if (at < 0) {
    struct stat st {};
    const int flags = ::fcntl(fd, F_GETFL);
    at = flags >= 0 && (flags & O_APPEND) != 0 ? (::fstat(fd, &st) == 0 ? st.st_size : -1) : ::lseek(fd, 0, SEEK_CUR);
    if (at < 0) return true;  // not a file (a pipe): no size to exceed
  }
  const std::uint64_t end = static_cast<std::uint64_t>(at) + bytes;
  if (end <= file_size_limit() || end <= read_file_size_limit()) return true;  // read again: it may have been raised
  errno = EFBIG;
  return false;
}

// Writes all `bytes` to fd at its end (or at `offset`, if not negative), across short writes and
// signals. False if they did not all get there (the file then holds as many as did), or, with
// nothing written, if they would cross the file-size limit (errno EFBIG).
inline bool write_all(int fd, const void* data, std::size_t bytes, off_t offset = -1) {
  if (!within_file_size_limit(fd, bytes, offset)) return false;
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t w = offset < 0 ? ::write(fd, p, bytes) : ::pwrite(fd, p, bytes, offset);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    bytes -= static_cast<std::size_t>(w);
    if (offset >= 0) offset += w;
  }
  return true;
}

// Header of the event spool, rank-NNNNNN.bin. From data_offset on (whole blocks after the header
// and the call names, so that events can be written with O_DIRECT: event_spool.hpp) come 4 KiB
// blocks of encoded events (event_blocks.hpp: the version is the blocks' format). The header holds what `recover` needs to put
// the events on rank 0's clock without MPI_Finalize's second synchronisation; where stream_count is 1, the header blocks end with
// a SpoolStreamCount.
struct SpoolHeader {
  char magic[8] = {'R', 'P', 'L', 'S', 'P', 'O', 'O', 'L'};
  // kBlockFormat (6); recover refuses older spools (1 to 5) in one line.
  std::int32_t version = kBlockFormat;
  std::int32_t event_size = sizeof(Event);  // of a raw (or decoded) event
  std::int32_t rank = 0;
  std::int32_t ranks = 0;
  double t0 = 0;       // this rank's clock at the start, in seconds
  double t0_root = 0;  // rank 0's
  double offset = 0;   // rank 0's clock minus this rank's, at the start
  double offset_error = 0;
  double wall_start = 0;         // CLOCK_REALTIME seconds at t0, to relate the trace to outside events
  std::int64_t data_offset = 0;  // where the events start in the file
  // Version 3: event times are raw ticks since tick0 (tracer_clock.hpp), turned into seconds by the
  // map in the clock spool; tick0 is t0's tick.
  std::uint64_t tick0 = 0;
  double tick_rate = 0;  // seconds per tick at the start: `recover`'s fallback without a clock spool
  // Version 4: the writer's call names (call_names_text) follow the header, names_bytes of them, so
  // that `recover` reads each event's `call` with the list of the build that recorded it (the list
  // grows between versions, and a new entry renumbers the calls after it). 0: not kept.
  std::int32_t names_bytes = 0;
  // 1: a SpoolStreamCount lies at data_offset - sizeof(SpoolStreamCount); 0 (older builds): none,
  // so what failed writes lost after the last block that reached the disk cannot be known.
  std::int32_t stream_count = 0;
};

// How many events the rank's stream had handed to its spool (those in the file and those lost to
// failed writes) when this was last written: at MPI_Init (0), after every failed append until it
// is written, and at MPI_Finalize. The blocks' numbers show the events lost before a block that
// reached the disk, not those lost at the end of the stream (a disk that stays full); with this
// count `recover` knows both. It lies in the header blocks, which were written whole at MPI_Init:
// overwriting it needs no new block, even on a full disk.
struct SpoolStreamCount {
  char magic[8] = {'R', 'P', 'L', 'C', 'O', 'U', 'N', 'T'};
  std::int64_t numbered = 0;
};
static_assert(sizeof(SpoolStreamCount) == 16);

// Header of a per-rank clock spool, rank-NNNNNN.clock: the pieces of the tick-to-seconds map
// (TickSegment: uint64 tick, double seconds, double rate), appended at each flush.
struct ClockSpoolHeader {
  char magic[8] = {'R', 'P', 'L', 'C', 'L', 'O', 'C', 'K'};
  std::int32_t version = 1;
  std::int32_t record_size = sizeof(TickSegment);
  std::int32_t rank = 0;
  std::int32_t ranks = 0;
};

// Header of a per-rank counter spool, rank-NNNNNN.counters beside the event spool: every counter
// sample is appended at the flush after it was taken; MPI_Finalize and `recover` read them back.
// Then names_bytes of names and status_bytes of status (Counters::names_text, status_text), then
// records: a CounterRecordHead and int64 values[values].
struct CounterSpoolHeader {
  char magic[8] = {'R', 'P', 'L', 'C', 'N', 'T', 'R', 'S'};
  std::int32_t version = 1;
  std::int32_t values = 0;
  std::int32_t rank = 0;
  std::int32_t ranks = 0;
  std::int32_t names_bytes = 0;
  std::int32_t status_bytes = 0;
};

struct CounterRecordHead {
  double time = 0;  // seconds since t0, like the counters' samples in memory
  std::int32_t iteration = -1;
  std::int32_t unused = 0;
};
static_assert(sizeof(CounterRecordHead) == 16);

// Header of a per-rank sample spool, rank-NNNNNN.samples: the sampler's status text (status_bytes),
// then raw SampleRecords (record_size bytes each), appended at each flush.
struct SampleSpoolHeader {
  char magic[8] = {'R', 'P', 'L', 'S', 'M', 'P', 'L', 'S'};
  std::int32_t version = 2;  // 2: each record's iteration is set; 1: it was set only at MPI_Finalize
  std::int32_t record_size = sizeof(SampleRecord);
  std::int32_t rank = 0;
  std::int32_t ranks = 0;
  std::int32_t status_bytes = 0;
  std::int32_t unused = 0;
};

// Header of a per-rank placement spool, rank-NNNNNN.placement, written once at MPI_Init: then the
// rank's Placement record (record_size bytes), its node's hwloc topology as XML (xml_bytes; node
// leaders only) and the hwloc status text (status_bytes). `recover` writes /ranks/placement and
// /topology from them.
struct PlacementSpoolHeader {
  char magic[8] = {'R', 'P', 'L', 'P', 'L', 'A', 'C', 'E'};
  std::int32_t version = 1;
  std::int32_t record_size = sizeof(Placement);
  std::int32_t rank = 0;
  std::int32_t ranks = 0;
  std::int64_t xml_bytes = 0;
  std::int32_t status_bytes = 0;
  std::int32_t unused = 0;
};
static_assert(sizeof(PlacementSpoolHeader) == 40);

}  // namespace ripple::trace::detail
