// `ripple campaign` and `ripple report`: the Python package ripple_jobs, given the batch templates'
// folder (RIPPLE_JOBS) of this installation or source tree.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "ripple/analysis/python_runner.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/install_layout.hpp"
#include "ripple/jobs/commands.hpp"

namespace ripple::jobs {

namespace {

namespace fs = std::filesystem;

// An installation keeps the templates in share/ripple/jobs and the package with ripple_plots; the
// source tree keeps both in jobs/.
int run(const char* command, int argc, char** argv) {
  std::vector<std::string> args = {command};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::error_code ec;
  fs::path templates = RIPPLE_JOBS_SOURCE_DIR;
  std::vector<std::string> path = {RIPPLE_JOBS_SOURCE_DIR};
  if (const fs::path data = installed_dir(InstallDir::Data); !data.empty() && fs::exists(data / "jobs" / "lib.sh", ec)) {
    templates = data / "jobs";
    path.clear();  // the package is installed beside ripple_plots
  }
  setenv("RIPPLE_JOBS", templates.c_str(), 0);
  try {
    return analysis::run_python_module("ripple_jobs", path, args);
  } catch (const Error& e) {
    std::fprintf(stderr, "ripple: error: %s\n", e.what());
    return e.exit_code();
  }
}

}  // namespace

int campaign_main(int argc, char** argv) { return run("campaign", argc, argv); }
int report_main(int argc, char** argv) { return run("report", argc, argv); }

}  // namespace ripple::jobs
