#include "event_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ripple::trace::detail {

static_assert(sizeof(SpoolHeader) == 96, "the spool header's layout is documented (docs/trace-format.md)");
static_assert(1024 * sizeof(Event) % EventSpool::kBlock == 0,
              "a ring of 1024 (or any larger power of two) events is whole blocks");

bool EventSpool::open(const std::string& path) {
  close();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return false;
  // Only where a page is a block: with larger pages (64 KiB on some aarch64 and ppc64le kernels) the
  // buffered ends would share a page-cache page with direct blocks, which every append would then
  // have to write back and drop.
  if (::sysconf(_SC_PAGESIZE) == static_cast<long>(kBlock))
    direct_fd_ = ::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);  // -1 where the file system refuses
  consumed_ = file_bytes_ = 0;
  lost_ = 0;
  failed_ = false;
  return true;
}

bool EventSpool::write_header(SpoolHeader header, const std::string& call_names) {
  header.data_offset = kDataOffset;
  const bool fits = sizeof header + call_names.size() <= static_cast<std::size_t>(kDataOffset);
  header.names_bytes = fits ? static_cast<std::int32_t>(call_names.size()) : 0;
  char block[kDataOffset] = {};
  std::memcpy(block, &header, sizeof header);
  if (fits) std::memcpy(block + sizeof header, call_names.data(), call_names.size());
  return fd_ >= 0 && ::pwrite(fd_, block, sizeof block, 0) == static_cast<ssize_t>(sizeof block);
}

void EventSpool::close() {
  if (direct_fd_ >= 0) ::close(direct_fd_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = direct_fd_ = -1;
}

bool EventSpool::put(int fd, const char* ring, std::uint64_t ring_bytes, std::uint64_t from, std::uint64_t to) {
  while (from < to) {
    const std::uint64_t at = from % ring_bytes;
    const std::uint64_t n = std::min(to - from, ring_bytes - at);  // the ring wraps at most once
    const ssize_t w = ::pwrite(fd, ring + at, n, static_cast<off_t>(kDataOffset + file_bytes_));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    from += static_cast<std::uint64_t>(w);
    consumed_ += static_cast<std::uint64_t>(w);
    file_bytes_ += static_cast<std::uint64_t>(w);
  }
  return true;
}

std::uint64_t EventSpool::append(const Event* ring, std::uint64_t slots, std::uint64_t head) {
  constexpr std::uint64_t kEvent = sizeof(Event);
  const std::uint64_t end = head * kEvent;
  const char* bytes = reinterpret_cast<const char*>(ring);
  const std::uint64_t ring_bytes = slots * kEvent;  // a multiple of kBlock: 1024 * 88 = 22 blocks
  if (end <= consumed_) return consumed_ / kEvent;
  if (fd_ < 0) {  // closed after a failure it could not repair: everything from then on is lost
    lost_ += static_cast<std::int64_t>((end - consumed_) / kEvent);
    consumed_ = end;
    return head;
  }
  const std::uint64_t start = consumed_, before = file_bytes_;
  bool ok = true;
  // The ring's byte stream and the file's agree (nothing lost yet), so a block-aligned stretch of
  // the one is a block-aligned stretch of the other.
  const std::uint64_t first = (consumed_ + kBlock - 1) / kBlock * kBlock, last = end / kBlock * kBlock;
  if (direct_fd_ >= 0 && file_bytes_ == consumed_ && first < last) {
    ok = put(fd_, bytes, ring_bytes, consumed_, first);
    if (ok && !put(direct_fd_, bytes, ring_bytes, first, last)) {
      ::close(direct_fd_);  // refused after all (EINVAL) or a real failure: buffered from here on
      direct_fd_ = -1;
    }
  }
  ok = ok && put(fd_, bytes, ring_bytes, consumed_, end);
  if (!ok) {
    // The rest of this append is lost; a record cut off mid-write would misalign every later one.
    failed_ = true;
    if (direct_fd_ >= 0) ::close(direct_fd_);
    direct_fd_ = -1;  // the file no longer mirrors the ring's blocks
    file_bytes_ = file_bytes_ / kEvent * kEvent;
    if (::ftruncate(fd_, static_cast<off_t>(kDataOffset + file_bytes_)) != 0) {
      // Cannot even cut back: stop writing rather than leave a misaligned file to be appended to.
      close();
    }
    lost_ += static_cast<std::int64_t>(((end - start) - (file_bytes_ - before)) / kEvent);
    consumed_ = end;
  }
  return consumed_ / kEvent;
}

}  // namespace ripple::trace::detail
