#include "spool_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ripple::trace::detail {

bool SpoolRecords::open(const std::string& path, std::int64_t data_offset, std::size_t record_bytes) {
  close();
  record_ = record_bytes > 0 ? record_bytes : 1;
  cut_off_ = failed_ = false;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return false;
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || ::lseek(fd_, data_offset, SEEK_SET) != data_offset) {
    close();
    return false;
  }
  const std::int64_t bytes = st.st_size > data_offset ? st.st_size - data_offset : 0;
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
      if (got % record_ != 0) cut_off_ = true;
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  return got / record_;
}

void SpoolRecords::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  records_ = 0;
}

}  // namespace ripple::trace::detail
