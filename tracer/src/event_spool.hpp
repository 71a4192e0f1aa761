#pragma once
// The event spool: the recorder's ring appended to rank-NNNNNN.bin (spool_format.hpp), so that a
// killed run leaves its events on disk.
//
// Events are encoded into self-contained, numbered 4 KiB blocks (event_blocks.hpp; about 6 bytes
// for a ping-pong's event instead of 88), staged in a page-aligned buffer and written whole. Where
// the file system allows, they go with O_DIRECT: the kernel neither copies them into the page cache
// nor keeps them there. (On the development VM a buffered write of raw 88-byte events cost about
// 65 ns per event in that copy; O_DIRECT also wrote faster, 1.2 against 0.7 GB/s.) The file always
// ends at a whole block. After a failed write the file is cut back to its last whole block; where
// O_DIRECT is refused every write is buffered. The header blocks end with the stream's count
// (SpoolStreamCount), rewritten after a failed append and at close, so that a spool left behind
// says how many events failed writes lost, also at its end, where no later block's number shows it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "event_blocks.hpp"
#include "ripple/trace/event.hpp"
#include "spool_format.hpp"

namespace ripple::trace::detail {

class EventSpool {
public:
  static constexpr std::size_t kBlock = kEventBlock;       // O_DIRECT alignment of buffer, length and offset
  static constexpr std::int64_t kDataOffset = 4 * kBlock;  // the header and the call names

  EventSpool() = default;
  EventSpool(const EventSpool&) = delete;
  EventSpool& operator=(const EventSpool&) = delete;
  ~EventSpool();

  // Creates (truncates) `path`, its header block still empty, and the staging buffer. False, with
  // errno set, if it cannot.
  bool open(const std::string& path);
  // Writes the header (with data_offset = kDataOffset) and the call names into the first blocks,
  // which end with the stream's count (0); names beyond them are not kept (names_bytes 0). False if
  // the write failed.
  bool write_header(SpoolHeader header, const std::string& call_names);
  // Appends the ring's events from the last append's end up to `head` (free-running indices, which
  // number the blocks; the ring holds `slots` events, a power of two). Returns the index below which
  // the ring's slots may be reused: all of it is in the file, or counted in lost(). A write that
  // fails (a full disk, an I/O error, the file-size limit) drops the rest of this append, the file
  // is cut back to its last whole block, and the stream's count in the header is rewritten.
  std::uint64_t append(const Event* ring, std::uint64_t slots, std::uint64_t head);
  // Writes the stream's count into the header (MPI_Finalize: a spool kept for `recover` then says
  // exactly what it lost) and closes the file.
  void close();

  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  [[nodiscard]] bool direct() const { return direct_fd_ >= 0; }  // O_DIRECT still in use
  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] std::int64_t written() const { return written_; }  // events in the file
  [[nodiscard]] std::int64_t lost() const { return lost_; }
  [[nodiscard]] std::int64_t numbered() const { return written_ + lost_; }  // the stream's events so far
  // The header's CLOCK_REALTIME at t0 (write_header's), for /ranks/last_event_wall_time.
  [[nodiscard]] double wall_start() const { return wall_start_; }

private:
  static constexpr std::size_t kStageBlocks = 64;  // 256 KiB encoded per write
  // Writes `bytes` (whole blocks) at the file's end; false if not all of them got there.
  bool put(const unsigned char* blocks, std::size_t bytes);
  // Overwrites the stream's count in the header blocks (buffered: they are not O_DIRECT's).
  bool write_count();
  // Counts events [consumed_, head) as lost, and keeps the header's count up to date.
  std::uint64_t drop(std::uint64_t head);
  int fd_ = -1;                     // buffered
  int direct_fd_ = -1;              // O_DIRECT, -1 where refused or after a failure
  unsigned char* stage_ = nullptr;  // kStageBlocks blocks, page-aligned
  EventBlockEncoder encoder_;
  std::uint64_t consumed_ = 0;    // ring index up to which events are in the file or lost
  std::uint64_t file_bytes_ = 0;  // bytes of blocks in the file
  std::int64_t written_ = 0;
  std::int64_t lost_ = 0;
  bool failed_ = false;
  bool header_ = false;        // written: the count has its place
  bool count_behind_ = false;  // the header's count is not the stream's (its rewrite failed): tried again at each append
  bool stopped_ = false;       // the file could not even be cut back: nothing more is appended
  double wall_start_ = 0;
};

}  // namespace ripple::trace::detail
