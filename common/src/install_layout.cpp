#include "ripple/common/install_layout.hpp"

#include <system_error>

namespace ripple {

std::filesystem::path installed_dir(InstallDir which) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  // Relative to the executable's directory (bin/), set in common/CMakeLists.txt.
  const char* relative = which == InstallDir::Lib      ? RIPPLE_INSTALL_BIN_TO_LIB
                         : which == InstallDir::Python ? RIPPLE_INSTALL_BIN_TO_PYTHON
                                                       : RIPPLE_INSTALL_BIN_TO_DATA;
  return (exe.parent_path() / relative).lexically_normal();
}

}  // namespace ripple
