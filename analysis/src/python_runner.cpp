#include "ripple/analysis/python_runner.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "ripple/common/error.hpp"
#include "ripple/common/install_layout.hpp"

namespace ripple::analysis {

namespace fs = std::filesystem;

std::string ripple_plots_dir() {
  if (const char* env = std::getenv("RIPPLE_PLOTS_DIR"); env != nullptr && *env != '\0') return env;
  if (const fs::path dir = installed_dir(InstallDir::Python); !dir.empty()) {
    std::error_code ec;
    if (fs::exists(dir / "ripple_plots" / "__main__.py", ec)) return dir.string();
  }
  return RIPPLE_PLOTS_SOURCE_DIR;
}

int run_python_module(const std::string& module, const std::vector<std::string>& path, const std::vector<std::string>& args) {
  const char* env = std::getenv("RIPPLE_PYTHON");
  const std::string python = env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
  std::string pythonpath;
  for (const std::string& dir : path) pythonpath += dir + ":";
  const std::string plots = ripple_plots_dir();
  if (!fs::exists(fs::path(plots) / "ripple_plots" / "__main__.py"))
    throw Error(fmt::format("the figures' Python package is not at {} (set RIPPLE_PLOTS_DIR)", plots));
  pythonpath += plots;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<std::string> argv_s = {python, "-m", module};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv_c;
  for (auto& a : argv_s) argv_c.push_back(a.data());
  argv_c.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw Error("cannot start python3 (fork failed)");
  if (pid == 0) {
    const char* old = std::getenv("PYTHONPATH");
    if (old != nullptr && *old != '\0') pythonpath += std::string(":") + old;
    setenv("PYTHONPATH", pythonpath.c_str(), 1);
    // The Python side runs ripple's other commands (and the batch templates do): this binary.
    if (!ec) setenv("RIPPLE", self.c_str(), 0);
    execv(argv_c[0], argv_c.data());
    std::fprintf(stderr,
                 "ripple: error: cannot run %s (%s): install python3-matplotlib and python3-h5py, or set "
                 "RIPPLE_PYTHON\n",
                 argv_c[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace ripple::analysis
