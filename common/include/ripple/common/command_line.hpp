#pragma once
// What every Ripple program does with a command line CLI11 refused, or a request for help. Both come
// before MPI starts, so the launcher's rank variables say who prints: one line per job, not one per
// rank. Header-only: the programs link CLI11, the common library does not need to.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "ripple/common/launcher.hpp"

namespace ripple {

// Prints the help (`e` asks for it) or "ripple: error: <what> (see <help_command>)"; returns the
// exit code: 0 for help, 2 for a usage error.
inline int report_command_line(CLI::App& app, const CLI::ParseError& e, const std::string& help_command) {
  const bool help = e.get_exit_code() == 0;
  if (launcher_rank() == 0) {
    if (help)
      app.exit(e);
    else
      std::fprintf(stderr, "ripple: error: %s (see %s)\n", e.what(), help_command.c_str());
  }
  return after_rank_zero_spoke(help ? 0 : 2);
}

}  // namespace ripple
