#pragma once
// Reading a spool's records back (spool_format.hpp): MPI_Finalize writes the trace file from the
// spools, in rounds, so that a rank's memory stays bounded however long it ran, and `recover` reads
// the spools a dead run left. Whole records only: a record cut off at the end of the file (the run
// died, or the disk filled, mid-write) is noted and never returned.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "event_blocks.hpp"
#include "spool_format.hpp"

namespace ripple::trace::detail {

// Opens a spool for reading: without blocking (a FIFO or a device named like a spool would block the
// open, or every read, for ever; O_NONBLOCK does nothing to a regular file's reads), a regular
// file only. Its descriptor, and its size in `bytes`; or -1 with errno (EINVAL: not a regular file).
int open_spool_file(const std::string& path, std::int64_t& bytes);

class SpoolRecords {
public:
  SpoolRecords() = default;
  SpoolRecords(const SpoolRecords&) = delete;
  SpoolRecords& operator=(const SpoolRecords&) = delete;
  ~SpoolRecords() { close(); }

  // Opens `path` for records of `record_bytes` from byte `data_offset` on. False if it cannot
  // (open_spool_file).
  bool open(const std::string& path, std::int64_t data_offset, std::size_t record_bytes);
  // Up to `max` whole records into `out` (max * record_bytes bytes); fewer only at the file's end,
  // or where a read failed (failed(): none are returned after that).
  std::size_t read(void* out, std::size_t max);
  void close();

  // Whole records from data_offset to the file's end when it was opened (0 if it is not open).
  [[nodiscard]] std::int64_t records() const { return records_; }
  // The file ended inside a record (seen once read() has reached the end); that record's bytes,
  // which read() left in `out` after the whole ones.
  [[nodiscard]] bool cut_off() const { return cut_off_; }
  [[nodiscard]] std::size_t cut_off_bytes() const { return cut_off_bytes_; }
  [[nodiscard]] bool failed() const { return failed_; }

private:
  int fd_ = -1;
  std::size_t record_ = 1;
  std::int64_t records_ = 0;
  std::size_t cut_off_bytes_ = 0;
  bool cut_off_ = false;
  bool failed_ = false;
};

// The events of a version-5 or later event spool (event_blocks.hpp), block by block from data_offset on, in
// order. A block that fails its check, or that is out of order, is skipped; the blocks' numbers say
// how many events are missing; at the end of the file a damaged block's head does, if it is still
// whole (else it counts 1).
class EventBlockReader {
public:
  EventBlockReader() = default;
  EventBlockReader(const EventBlockReader&) = delete;
  EventBlockReader& operator=(const EventBlockReader&) = delete;
  ~EventBlockReader() = default;
  // False if it cannot be read. Blocks of kBlockFormat, the spool version this build writes.
  bool open(const std::string& path, std::int64_t data_offset);
  // Up to `max` events into `out`; fewer only at the file's end, or where a read failed.
  std::size_t read(Event* out, std::size_t max);
  // The events read() would still give, passed over (decoded and checked alike): a counting
  // reading, after which lost() is known.
  std::int64_t count_rest();
  void close();

  // Known once read() has reached the end: events missing (skipped blocks, a block cut off at the
  // end, a failed write's), blocks skipped, whether the file ended inside a block, a read error.
  [[nodiscard]] std::int64_t lost() const { return lost_ + unplaced_; }
  [[nodiscard]] std::int64_t damaged_blocks() const { return damaged_; }
  [[nodiscard]] bool cut_off() const { return blocks_.cut_off(); }
  [[nodiscard]] bool failed() const { return blocks_.failed(); }

private:
  bool next_block();  // the next whole, valid block's events; false at the end
  // Events a block's head gives, if the head itself looks whole (a damaged block's payload).
  static std::int64_t claimed_events(const unsigned char* block, std::size_t bytes);
  SpoolRecords blocks_;         // records of one block each
  std::uint64_t expected_ = 0;  // the next event's number
  std::vector<Event> events_ = std::vector<Event>(kMaxEventsPerBlock);
  std::size_t ready_ = 0, taken_ = 0;
  std::int64_t lost_ = 0, unplaced_ = 0, damaged_ = 0;  // unplaced_: claimed by damaged blocks since the last good one
  bool ended_ = false;                                  // the file's end reached, what it lost counted
  std::optional<EventBlockDecoder> decoder_;
  unsigned char block_[kEventBlock];
};

// The stream's count an event spool keeps (SpoolStreamCount, at data_offset - its size, where the
// header says it has one): -1 where it has none (older builds), the file ends before it, or it is
// not one (its magic, or a count beyond 2^62).
std::int64_t read_stream_count(const std::string& path, const SpoolHeader& header, std::int64_t data_offset);

// The events of a rank's stream that are not among the `read` ones a reading gave: of `numbered`
// (the stream's count; -1: unknown), at least the `gaps` the reading counted (EventBlockReader::
// lost(); a count written before later blocks is behind them). -1 where the count is unknown: a
// failed write at the stream's end leaves no trace in the blocks.
inline std::int64_t stream_lost(std::int64_t numbered, std::int64_t read, std::int64_t gaps) {
  return numbered < 0 ? -1 : std::max(gaps, numbered - read);
}

// Every whole record of a spool from data_offset on (recover: a dead run's spools are read whole).
template <class Record>
std::vector<Record> read_all_records(const std::string& path, std::int64_t data_offset, bool* cut_off = nullptr) {
  SpoolRecords in;
  std::vector<Record> all;
  if (in.open(path, data_offset, sizeof(Record))) {
    all.resize(static_cast<std::size_t>(in.records()));
    all.resize(in.read(all.data(), all.size()));
    Record extra;  // a file still growing: whatever came after the size was taken
    while (in.read(&extra, 1) == 1) all.push_back(extra);
  }
  if (cut_off != nullptr) *cut_off = in.cut_off();
  return all;
}

}  // namespace ripple::trace::detail
