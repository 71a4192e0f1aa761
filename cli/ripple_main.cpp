// The `ripple` command: dispatches to the subcommands, which live with their modules.
#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "ripple/analysis/commands.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/common/text_file.hpp"
#include "ripple/jobs/commands.hpp"
#include "ripple/model/mpi/sim_command.hpp"
#include "ripple/trace/trace_command.hpp"

namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  int (*main)(int, char**);
};

constexpr Subcommand kSubcommands[] = {
    {"sim", "solve the Physical Oscillator Model (MPI-parallel)", &ripple::model::sim_main},
    {"trace", "run an MPI program under the PMPI tracer; `trace info FILE` summarises a trace", &ripple::trace::trace_main},
    {"waves", "idle waves in a trace, a simulation or a proxy app's timings: table, sources, speed, decay",
     &ripple::analysis::waves_main},
    {"compare", "a traced run against the max-plus timeline model and the oscillator model", &ripple::analysis::compare_main},
    {"cxl", "seed 003's model: what moving receive buffers to a CXL.mem pool would gain, per call site and tag",
     &ripple::analysis::cxl_main},
    {"calibrate", "measure this node for `ripple cxl`: MPI, memory, atomics, bandwidths; writes machine.toml",
     &ripple::analysis::calibrate_main},
    {"import", "`import mitos DIR -o trace.h5`: seed 003's Mitos/mitoshooks output as a Ripple trace",
     &ripple::analysis::import_main},
    {"plot", "figures: `plot waves` (idle-time heatmap, arrival per hop), `plot sim` (lag, circle, potential, r), `plot cxl`",
     &ripple::analysis::plot_main},
    {"campaign", "a parameter grid over a batch template, run locally or as one Slurm job array; one table",
     &ripple::jobs::campaign_main},
    {"report", "one self-contained HTML page of a campaign: models against traces, CXL, machine, provenance",
     &ripple::jobs::report_main},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: ripple <command> [options]   (ripple <command> --help for details)\n\ncommands:\n");
  for (const auto& s : kSubcommands) std::fprintf(out, "  %-10s %s\n", s.name, s.summary);
  std::fprintf(out, "  %-10s %s\n", "info", "print version and build information");
}

}  // namespace

int main(int argc, char** argv) {
  // No HDF5 cleanup at exit: every file is closed, and its close checked, before main returns, and
  // HDF5 1.10's cleanup crashes on a file whose close failed (it stays half torn down), which would
  // turn a clear "disk full" into a segfault. (MPI runs clean HDF5 up in MPI_Finalize regardless.)
  H5dont_atexit();
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string_view cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    usage(stdout);
    return ripple::finish_standard_output(0);
  }
  if (cmd == "--version" || cmd == "info") {
    std::printf("ripple %s (git %s)\n", ripple::ripple_version(), ripple::ripple_git_revision());
    return ripple::finish_standard_output(0);
  }
  for (const auto& s : kSubcommands)
    if (cmd == s.name) return ripple::finish_standard_output(s.main(argc - 1, argv + 1));
  std::fprintf(stderr, "ripple: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
