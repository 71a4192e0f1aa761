#include "ripple/common/file_space.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace ripple {
namespace {

// The free space the file system reports for the directory of `path`: where it reports no size at
// all, or cannot be asked, there is room as far as can be told.
SpaceCheck compare_free_space(const std::string& path, std::int64_t bytes) {
  const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/') + 1);
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0 || fs.f_blocks == 0) return {};
  const double free = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  if (free >= static_cast<double>(bytes)) return {};
  return {false, false,
          fmt::format("it needs about {:.1f} MiB, its file system has {:.1f} MiB free", static_cast<double>(bytes) / 1048576.0,
                      free / 1048576.0)};
}

}  // namespace

std::string file_size_limit_refuses(std::int64_t bytes) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= static_cast<rlim_t>(std::max<std::int64_t>(bytes, 0)))
    return {};
  return fmt::format("may not write files beyond {:.0f} KiB (ulimit -f); it needs about {:.1f} MiB",
                     static_cast<double>(limit.rlim_cur) / 1024.0, static_cast<double>(bytes) / 1048576.0);
}

SpaceCheck reserve_file_space(const std::string& path, std::int64_t bytes, ExistingFile existing) {
  if (std::string limited = file_size_limit_refuses(bytes); !limited.empty()) return {false, false, std::move(limited)};
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
  if (fd < 0) return {};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // a device or a pipe: nothing to reserve, nothing to remove
    ::close(fd);
    return {};
  }
  int error = existing == ExistingFile::Replace && ::ftruncate(fd, 0) != 0 ? errno : 0;
  while (error == 0 && bytes > 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes)) != 0)
    error = errno == EINTR ? 0 : errno;  // interrupted: again
  ::close(fd);
  SpaceCheck check;
  if (error == 0)
    check.reserved = true;
  else if (error == EOPNOTSUPP || error == ENOSYS || error == EINVAL)  // cannot reserve here: ask instead
    check = compare_free_space(path, bytes);
  else
    check = {false, false,
             fmt::format("the file system refuses it the {:.1f} MiB it needs: {}", static_cast<double>(bytes) / 1048576.0,
                         std::strerror(error))};
  if (!check.room && existing == ExistingFile::Replace) remove_regular_file(path);  // emptied already: not left behind
  return check;
}

void release_unused_space(const std::string& path, std::int64_t at_least) {
  // Opened, not stat()ed by name: opening makes a network file system (NFS) fetch the size the
  // other writers left, where a cached one could be short. Truncating to its own size frees the
  // blocks past the end (tested on ext4 and tmpfs); never below what the writer knows it wrote.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= at_least) (void)::ftruncate(fd, st.st_size);
  ::close(fd);
}

std::string hdf5_output_refused(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a directory";
    if (!S_ISREG(st.st_mode)) return "it is not a regular file, as an HDF5 file must be";
    return "";
  }
  const std::string::size_type slash = path.find_last_of('/');
  const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(parent.c_str(), &st) != 0) return fmt::format("its directory '{}' does not exist", parent);
  if (!S_ISDIR(st.st_mode)) return fmt::format("'{}' is not a directory", parent);
  if (::access(parent.c_str(), W_OK | X_OK) != 0) return fmt::format("its directory '{}' is not writable", parent);
  return "";
}

void remove_regular_file(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
}

}  // namespace ripple
