#pragma once
// Runs Ripple's Python packages (figures: ripple_plots; campaigns and the report: ripple_jobs) with
// Debian's python3, wherever the installation or the source tree keeps them.
#include <string>
#include <vector>

namespace ripple::analysis {

// The directory holding the ripple_plots package: $RIPPLE_PLOTS_DIR, else the installation's
// (beside this bin/, wherever the prefix was moved), else the source tree's.
std::string ripple_plots_dir();

// Runs `python3 -m MODULE ARGS` ($RIPPLE_PYTHON, default /usr/bin/python3) with `path` and the
// figures' directory on PYTHONPATH and $RIPPLE set to this executable unless already set; returns
// its exit code.
int run_python_module(const std::string& module, const std::vector<std::string>& path, const std::vector<std::string>& args);

}  // namespace ripple::analysis
