#pragma once
// Reading a spool's records back (spool_format.hpp): MPI_Finalize writes the trace file from the
// spools, in rounds, so that a rank's memory stays bounded however long it ran, and `recover` reads
// the spools a dead run left. Whole records only: a record cut off at the end of the file (the run
// died, or the disk filled, mid-write) is noted and never returned.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ripple::trace::detail {

class SpoolRecords {
public:
  SpoolRecords() = default;
  SpoolRecords(const SpoolRecords&) = delete;
  SpoolRecords& operator=(const SpoolRecords&) = delete;
  ~SpoolRecords() { close(); }

  // Opens `path` for records of `record_bytes` from byte `data_offset` on. False if it cannot.
  bool open(const std::string& path, std::int64_t data_offset, std::size_t record_bytes);
  // Up to `max` whole records into `out` (max * record_bytes bytes); fewer only at the file's end,
  // or where a read failed (failed(): none are returned after that).
  std::size_t read(void* out, std::size_t max);
  void close();

  // Whole records from data_offset to the file's end when it was opened (0 if it is not open).
  [[nodiscard]] std::int64_t records() const { return records_; }
  // The file ended inside a record (seen once read() has reached the end).
  [[nodiscard]] bool cut_off() const { return cut_off_; }
  [[nodiscard]] bool failed() const { return failed_; }

private:
  int fd_ = -1;
  std::size_t record_ = 1;
  std::int64_t records_ = 0;
  bool cut_off_ = false;
  bool failed_ = false;
};

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
