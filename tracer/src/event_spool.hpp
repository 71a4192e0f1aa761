#pragma once
// The event spool: the recorder's ring appended to rank-NNNNNN.bin (spool_format.hpp), so that a
// killed run leaves its events on disk.
//
// Where the file system allows, whole 4 KiB blocks go to the file with O_DIRECT straight from the
// ring: the kernel neither copies them into the page cache nor keeps them there. (On the development
// VM a buffered write of the 88-byte events cost about 65 ns per event in that copy, more than the
// rest of the recording path; O_DIRECT also wrote faster, 1.2 against 0.7 GB/s.) The bytes of an
// append that do not fill a block at either end go through a second, buffered descriptor, so the
// file always ends at the last event appended and a block is only ever written one way. After a
// failed write, or where O_DIRECT is refused, every write is buffered.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ripple/trace/event.hpp"
#include "spool_format.hpp"

namespace ripple::trace::detail {

class EventSpool {
public:
  static constexpr std::size_t kBlock = 4096;              // O_DIRECT alignment of buffer, length and offset
  static constexpr std::int64_t kDataOffset = 4 * kBlock;  // the header and the call names

  EventSpool() = default;
  EventSpool(const EventSpool&) = delete;
  EventSpool& operator=(const EventSpool&) = delete;
  ~EventSpool() { close(); }

  // Creates (truncates) `path`, its header block still empty. False, with errno set, if it cannot.
  bool open(const std::string& path);
  // Writes the header (with data_offset = kDataOffset) and the call names into the first blocks;
  // names beyond them are not kept (names_bytes 0). False if the write failed.
  bool write_header(SpoolHeader header, const std::string& call_names);
  // Appends the ring's events from the last append's end up to `head` (free-running indices; the
  // ring holds `slots` events, a power of two of at least 1024, at a kBlock-aligned address).
  // Returns the index below which the ring's slots may be reused: all of it is in the file, or
  // counted in lost(). A write that fails drops the rest of this append, and the file is cut back
  // to its last whole event.
  std::uint64_t append(const Event* ring, std::uint64_t slots, std::uint64_t head);
  void close();

  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  [[nodiscard]] bool direct() const { return direct_fd_ >= 0; }  // O_DIRECT still in use
  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] std::int64_t written() const { return static_cast<std::int64_t>(file_bytes_ / sizeof(Event)); }
  [[nodiscard]] std::int64_t lost() const { return lost_; }

private:
  // Writes the stream's bytes [from, to) (at most one ring lap) through fd at the file's end;
  // returns false if not all of them got there.
  bool put(int fd, const char* ring, std::uint64_t ring_bytes, std::uint64_t from, std::uint64_t to);
  int fd_ = -1;                   // buffered
  int direct_fd_ = -1;            // O_DIRECT, -1 where refused or after a failure
  std::uint64_t consumed_ = 0;    // bytes of the ring's event stream appended or lost
  std::uint64_t file_bytes_ = 0;  // bytes of events in the file; == consumed_ while nothing was lost
  std::int64_t lost_ = 0;
  bool failed_ = false;
};

}  // namespace ripple::trace::detail
