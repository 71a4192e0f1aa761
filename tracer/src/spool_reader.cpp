#include "spool_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ripple::trace::detail {

int open_spool_file(const std::string& path, std::int64_t& bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = S_ISREG(st.st_mode) ? errno : EINVAL;
    ::close(fd);
    errno = err;
    return -1;
  }
  bytes = static_cast<std::int64_t>(st.st_size);
  return fd;
}

bool SpoolRecords::open(const std::string& path, std::int64_t data_offset, std::size_t record_bytes) {
  close();
  record_ = record_bytes > 0 ? record_bytes : 1;
  cut_off_bytes_ = 0;
  cut_off_ = failed_ = false;
  std::int64_t size = 0;
  fd_ = open_spool_file(path, size);
  if (fd_ < 0) return false;
  if (::lseek(fd_, data_offset, SEEK_SET) != data_offset) {
    close();
    return false;
  }
  const std::int64_t bytes = size > data_offset ? size - data_offset : 0;
  records_ = bytes / static_cast<std::int64_t>(record_);
  return true;
}

std::size_t SpoolRecords::read(void* out, std::size_t max) {
  if (fd_ < 0 || failed_ || max == 0) return 0;
  char* p = static_cast<char*>(out);
  const std::size_t want = max * record_;
  std::size_t got = 0;
  while (got < want) {
    const ssize_t n = ::read(fd_, p + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {  // an unreadable block: the records before it count, none after (they could be out of step)
      failed_ = true;
      break;
    }
    if (n == 0) {  // the end: a partial record there was cut off mid-write
      cut_off_bytes_ = got % record_;
      cut_off_ = cut_off_bytes_ != 0;
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  // open() makes record_ at least 1.
  // NOLINTNEXTLINE(clang-analyzer-core.DivideZero)
  return got / record_;
}

void SpoolRecords::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  records_ = 0;
}

bool EventBlockReader::open(const std::string& path, std::int64_t data_offset) {
  decoder_.emplace();
  expected_ = 0;
  ready_ = taken_ = 0;
  lost_ = unplaced_ = damaged_ = 0;
  ended_ = false;
  return blocks_.open(path, data_offset, kEventBlock);
}

void EventBlockReader::close() { blocks_.close(); }

std::int64_t EventBlockReader::claimed_events(const unsigned char* block, std::size_t bytes) {
  EventBlockHead head;
  if (bytes < sizeof head) return 0;
  std::memcpy(&head, block, sizeof head);
  const bool whole = std::memcmp(head.magic, EventBlockHead{}.magic, sizeof head.magic) == 0 &&
                     head.events <= kMaxEventsPerBlock && head.bytes <= kEventBlockPayload;
  return whole ? head.events : 0;
}

bool EventBlockReader::next_block() {
  if (ended_) return false;
  while (blocks_.read(block_, 1) == 1) {
    EventBlockHead head;
    if (!decoder_->decode(block_, events_.data(), head)) {
      ++damaged_;  // never reached the disk (zeros), or damaged: as many lost as its head says, 1 if it cannot
      unplaced_ += std::max<std::int64_t>(claimed_events(block_, kEventBlock), 1);
      continue;
    }
    // Numbered before the next expected event (written twice: its events are counted already) or
    // implausibly far beyond it (not a number this rank wrote): skipped, and the gap not counted.
    constexpr std::uint64_t kMaxFirst = std::uint64_t{1} << 62, kMaxGap = std::uint64_t{1} << 48;
    if (head.first < expected_ || head.first - expected_ > kMaxGap || head.first > kMaxFirst) {
      ++damaged_;
      continue;
    }
    lost_ += static_cast<std::int64_t>(head.first - expected_);  // the blocks between: skipped, or never written
    unplaced_ = 0;                                               // counted by that gap
    expected_ = head.first + head.events;
    ready_ = head.events;
    taken_ = 0;
    if (ready_ > 0) return true;
  }
  // The end of the file, or of what could be read. A block whose write was cut off: its events are
  // lost, as many as its head says, 1 if it cannot.
  if (blocks_.cut_off()) unplaced_ += std::max<std::int64_t>(claimed_events(block_, blocks_.cut_off_bytes()), 1);
  lost_ += unplaced_;
  unplaced_ = 0;
  ended_ = true;
  blocks_.close();
  return false;
}

std::int64_t EventBlockReader::count_rest() {
  auto n = static_cast<std::int64_t>(ready_ - taken_);
  taken_ = ready_;
  while (next_block()) {
    n += static_cast<std::int64_t>(ready_);
    taken_ = ready_;
  }
  return n;
}

std::int64_t read_stream_count(const std::string& path, const SpoolHeader& header, std::int64_t data_offset) {
  SpoolStreamCount count;
  const auto at = data_offset - static_cast<std::int64_t>(sizeof count);
  // Where the header or its names would overlap it, it is not one.
  if (header.stream_count != 1 || header.names_bytes < 0 || at < static_cast<std::int64_t>(sizeof header) + header.names_bytes)
    return -1;
  std::int64_t size = 0;
  const int fd = open_spool_file(path, size);
  if (fd < 0) return -1;
  const bool whole = ::pread(fd, &count, sizeof count, at) == static_cast<ssize_t>(sizeof count);
  ::close(fd);
  constexpr std::int64_t kMax = std::int64_t{1} << 62;
  const bool valid = whole && std::memcmp(count.magic, SpoolStreamCount{}.magic, sizeof count.magic) == 0 &&
                     count.numbered >= 0 && count.numbered <= kMax;
  return valid ? count.numbered : -1;
}

std::size_t EventBlockReader::read(Event* out, std::size_t max) {
  std::size_t got = 0;
  while (got < max) {
    if (taken_ == ready_ && !next_block()) break;
    const std::size_t n = std::min(max - got, ready_ - taken_);
    std::copy_n(events_.data() + taken_, n, out + got);
    taken_ += n;
    got += n;
  }
  return got;
}

}  // namespace ripple::trace::detail
