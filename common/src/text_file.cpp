#include "ripple/common/text_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"

namespace ripple {

void write_text_file(const std::string& path, std::string_view text, std::string_view what) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(fmt::format("{}: cannot write '{}': {}", what, path, std::strerror(errno)));
  int failure = 0;
  for (std::size_t done = 0; done < text.size() && failure == 0;) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n > 0)
      done += static_cast<std::size_t>(n);
    else if (n < 0 && errno != EINTR)
      failure = errno;
    else if (n == 0)
      failure = EIO;  // a regular file never takes nothing
  }
  if (::close(fd) != 0 && failure == 0 && errno != EINTR) failure = errno;  // NFS reports a full disk here
  if (failure == 0) return;
  remove_regular_file(path);
  throw Error(fmt::format("{}: cannot write '{}': {}", what, path, std::strerror(failure)));
}

}  // namespace ripple
