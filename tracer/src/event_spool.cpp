#include "event_spool.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace ripple::trace::detail {

static_assert(sizeof(SpoolHeader) == 96, "the spool header's layout is documented (docs/trace-format.md)");

EventSpool::~EventSpool() {
  close();
  if (stage_ != nullptr) ::munmap(stage_, kStageBlocks * kBlock);
}

bool EventSpool::open(const std::string& path) {
  close();
  if (stage_ == nullptr) {
    void* p = ::mmap(nullptr, kStageBlocks * kBlock, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    stage_ = static_cast<unsigned char*>(p);
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return false;
  // Only where a page is a block: with larger pages (64 KiB on some aarch64 and ppc64le kernels) the
  // buffered header blocks would share a page-cache page with direct event blocks, which every
  // append would then have to write back and drop.
  if (::sysconf(_SC_PAGESIZE) == static_cast<long>(kBlock))
    direct_fd_ = ::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);  // -1 where the file system refuses
  consumed_ = file_bytes_ = 0;
  written_ = lost_ = 0;
  failed_ = header_ = count_behind_ = stopped_ = false;
  read_file_size_limit();  // at MPI_Init: the limit the spool's writes are checked against (write_all)
  return true;
}

bool EventSpool::write_header(SpoolHeader header, const std::string& call_names) {
  constexpr std::size_t kCountAt = kDataOffset - sizeof(SpoolStreamCount);
  header.data_offset = kDataOffset;
  header.stream_count = 1;
  wall_start_ = header.wall_start;
  const bool fits = sizeof header + call_names.size() <= kCountAt;
  header.names_bytes = fits ? static_cast<std::int32_t>(call_names.size()) : 0;
  char block[kDataOffset] = {};
  std::memcpy(block, &header, sizeof header);
  // Counted by names_bytes, not a C string:
  // NOLINTNEXTLINE(bugprone-not-null-terminated-result)
  if (fits) std::memcpy(block + sizeof header, call_names.data(), call_names.size());
  SpoolStreamCount count;
  count.numbered = numbered();
  std::memcpy(block + kCountAt, &count, sizeof count);
  header_ = fd_ >= 0 && write_all(fd_, block, sizeof block, 0);
  return header_;
}

bool EventSpool::write_count() {
  SpoolStreamCount count;
  count.numbered = numbered();
  return fd_ >= 0 && header_ && write_all(fd_, &count, sizeof count, kDataOffset - static_cast<off_t>(sizeof count));
}

void EventSpool::close() {
  if (fd_ >= 0) write_count();  // its last chance: a spool kept at MPI_Finalize says what it lost
  if (direct_fd_ >= 0) ::close(direct_fd_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = direct_fd_ = -1;
}

bool EventSpool::put(const unsigned char* blocks, std::size_t bytes) {
  const auto at = static_cast<off_t>(kDataOffset + file_bytes_);
  bool ok = direct_fd_ >= 0 && write_all(direct_fd_, blocks, bytes, at);
  if (!ok && direct_fd_ >= 0) {
    ::close(direct_fd_);  // refused after all (EINVAL) or a real failure: buffered from here on, from the same place
    direct_fd_ = -1;
  }
  ok = ok || write_all(fd_, blocks, bytes, at);
  if (ok) file_bytes_ += bytes;
  return ok;
}

std::uint64_t EventSpool::drop(std::uint64_t head) {
  lost_ += static_cast<std::int64_t>(head - consumed_);
  consumed_ = head;
  count_behind_ = !write_count();  // a loss at the stream's end shows nowhere else
  return head;
}

std::uint64_t EventSpool::append(const Event* ring, std::uint64_t slots, std::uint64_t head) {
  if (head <= consumed_) return consumed_;
  if (fd_ < 0 || stopped_) return drop(head);  // after a failure it could not repair, everything is lost
  while (consumed_ < head) {
    std::size_t blocks = 0;
    std::uint64_t k = consumed_;
    for (; blocks < kStageBlocks && k < head; ++blocks)
      k += encoder_.encode(ring, slots - 1, k, head, k, stage_ + blocks * kBlock);
    if (!put(stage_, blocks * kBlock)) {
      // The rest of this append is lost (the blocks' numbers say where, the header's count how many
      // at the end); a block cut off mid-write goes too.
      failed_ = true;
      if (::ftruncate(fd_, static_cast<off_t>(kDataOffset + file_bytes_)) != 0) {  // cannot even cut back: stop
        if (direct_fd_ >= 0) ::close(direct_fd_);
        direct_fd_ = -1;
        stopped_ = true;  // fd_ stays open for the count
      }
      return drop(head);
    }
    written_ += static_cast<std::int64_t>(k - consumed_);
    consumed_ = k;
  }
  if (count_behind_) count_behind_ = !write_count();
  return consumed_;
}

}  // namespace ripple::trace::detail
