#include "spool_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace ripple::trace::detail {

namespace {

// The run's hold on `dir`: its lock file, locked, or -1 and errno (EBUSY: another live run holds
// it). A file system without locks leaves the directory unguarded, as before locks (lock_fd -1, 0).
int lock_spool_dir(const std::string& dir, int& lock_fd) {
  lock_fd = -1;
  const std::string path = dir + kSpoolLockName;
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) return EBUSY;
      ::unlink(path.c_str());  // no run can lock it here: it would only keep the directory from going
      return 0;
    }
    // Still the file at that path: a run that finished meanwhile unlinks it before letting go, and
    // a lock on the unlinked file would guard nothing.
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      lock_fd = fd;
      return 0;
    }
    ::close(fd);
  }
}

}  // namespace

int make_spool_dir(const std::string& dir, const char* mark, std::string& moved, int& lock_fd) {
  lock_fd = -1;
  for (;;) {
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return errno;
    // Before anything in it is looked at: a live run's directory is neither cleaned nor moved.
    if (const int err = lock_spool_dir(dir, lock_fd); err != 0) return err;
    bool earlier_run = false;
    std::vector<std::string> leftovers;
    if (DIR* d = ::opendir(dir.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.starts_with("rank-") && name.ends_with(".bin")) earlier_run = true;
        if (name.starts_with(".run-") ||
            (name.starts_with("rank-") && (name.ends_with(".counters") || name.ends_with(".samples") ||
                                           name.ends_with(".clock") || name.ends_with(".placement"))))
          leftovers.push_back(name);
      }
      ::closedir(d);
    }
    if (!earlier_run) {
      for (const std::string& name : leftovers) ::unlink((dir + "/" + name).c_str());  // a directory there stays
      break;
    }
    for (int n = 1;; ++n) {
      const std::string aside = dir + "." + std::to_string(n);
      if (::rename(dir.c_str(), aside.c_str()) == 0) {
        moved = aside;
        // Its lock goes with it; a fresh directory in its place is locked anew.
        if (lock_fd >= 0) ::unlink((aside + kSpoolLockName).c_str());
        break;
      }
      // Taken: by an earlier run's directory (ENOTEMPTY, EEXIST), or by something that is no directory
      // (ENOTDIR: `dir` is one, opendir said so).
      if (errno != ENOTEMPTY && errno != EEXIST && errno != ENOTDIR) {
        const int err = errno;
        if (lock_fd >= 0) ::close(lock_fd);
        lock_fd = -1;
        return err;
      }
    }
    if (lock_fd >= 0) ::close(lock_fd);
    lock_fd = -1;
  }
  const int fd = ::open((dir + mark).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    release_spool_dir(dir, lock_fd, true);
    return err;
  }
  ::close(fd);
  return 0;
}

void release_spool_dir(const std::string& dir, int& lock_fd, bool remove) {
  if (lock_fd < 0) return;
  if (remove) ::unlink((dir + kSpoolLockName).c_str());  // before letting go: see lock_spool_dir
  ::close(lock_fd);
  lock_fd = -1;
}

}  // namespace ripple::trace::detail
