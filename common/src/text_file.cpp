#include "ripple/common/text_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"

namespace ripple {

namespace {

// Writes all of `text` to `fd` and closes it: 0, or the errno of what failed.
int write_and_close(int fd, std::string_view text) {
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
  return failure;
}

}  // namespace

void write_text_file(const std::string& path, std::string_view text, std::string_view what) {
  const auto message = [&](int why) { return fmt::format("{}: cannot write '{}': {}", what, path, std::strerror(why)); };
  // A new file, or a regular file of ours that we may write and that has no other name, is replaced
  // whole: the text goes to a new file beside it, renamed over it once all is written, so that a
  // failed write leaves the earlier file as it was; its permissions carry over. Anything else (a
  // link, a device, a FIFO, a file of another owner or with hard links, whose owner, links or
  // write protection a rename would not keep) is written through, in place, as is a file whose
  // directory takes no new file.
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  const bool replaceable =
      !exists || (S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && st.st_nlink == 1 && ::access(path.c_str(), W_OK) == 0);
  if (replaceable) {
    const std::string temporary = fmt::format("{}.tmp-{}", path, ::getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // less the umask
    const int refused = fd < 0 ? errno : 0;
    // A full disk, a quota, an I/O error: said, the earlier file untouched. Otherwise the directory
    // takes no new file, or the path is wrong, and the open in place below says which.
    if (refused == ENOSPC || refused == EDQUOT || refused == EIO || refused == EMFILE || refused == ENFILE || refused == ENOMEM)
      throw Error(message(refused));
    if (fd >= 0) {
      int failure = exists && ::fchmod(fd, st.st_mode & 07777) != 0 ? errno : 0;
      if (failure != 0)
        ::close(fd);
      else
        failure = write_and_close(fd, text);
      if (failure == 0 && ::rename(temporary.c_str(), path.c_str()) == 0) return;
      if (failure == 0) failure = errno;
      ::unlink(temporary.c_str());
      if (failure != EACCES && failure != EPERM) throw Error(message(failure));
      // A directory whose sticky bit or rules refuse the rename: written in place, as before.
    }
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int why = errno;
    // The path given is wrong; else the system refused (a full disk or an inode quota where the
    // file would be created, too many open files, an I/O error), as a failed write would.
    const bool bad_path = why == ENOENT || why == ENOTDIR || why == EACCES || why == EPERM || why == EISDIR || why == EROFS ||
                          why == ELOOP || why == ENAMETOOLONG || why == ENXIO;
    if (bad_path) throw InputError(message(why));
    throw Error(message(why));
  }
  const int failure = write_and_close(fd, text);
  if (failure == 0) return;
  remove_regular_file(path);  // written in place: only what this call created or emptied
  throw Error(message(failure));
}

int finish_standard_output(int exit_code) {
  // std::cout (CLI11's help) is synchronised with stdio: its text is in stdout's buffer already.
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int reason = errno;
  if (flushed && std::ferror(stdout) == 0) return exit_code;
  // A write that failed before this flush (the buffer filled mid-run) has left no errno to name.
  std::fprintf(stderr, "ripple: error: cannot write the standard output: %s\n",
               !flushed && reason != 0 ? std::strerror(reason) : "a write to it failed");
  return exit_code == 0 ? 1 : exit_code;
}

}  // namespace ripple
