#include "spool_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace ripple::trace::detail {

int make_spool_dir(const std::string& dir, const char* mark, std::string& moved) {
  bool earlier_run = false;
  if (DIR* d = ::opendir(dir.c_str())) {
    std::vector<std::string> leftovers;
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.starts_with("rank-") && name.ends_with(".bin")) earlier_run = true;
      if (name.starts_with(".run-") || (name.starts_with("rank-") && (name.ends_with(".counters") || name.ends_with(".samples") ||
                                                                      name.ends_with(".clock") || name.ends_with(".placement"))))
        leftovers.push_back(name);
    }
    ::closedir(d);
    if (!earlier_run)
      for (const std::string& name : leftovers) ::unlink((dir + "/" + name).c_str());  // a directory there stays
  }
  for (int n = 1; earlier_run; ++n) {
    const std::string aside = dir + "." + std::to_string(n);
    if (::rename(dir.c_str(), aside.c_str()) == 0) {
      moved = aside;
      break;
    }
    // Taken: by an earlier run's directory (ENOTEMPTY, EEXIST), or by something that is no directory
    // (ENOTDIR: `dir` is one, opendir said so).
    if (errno != ENOTEMPTY && errno != EEXIST && errno != ENOTDIR) return errno;
  }
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return errno;
  const int fd = ::open((dir + mark).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  ::close(fd);
  return 0;
}

}  // namespace ripple::trace::detail
