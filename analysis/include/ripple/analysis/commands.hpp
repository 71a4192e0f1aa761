#pragma once
// The analysis subcommands of `ripple` (dispatched by cli/ripple_main.cpp).
namespace ripple::analysis {

// `ripple waves INPUT [--json F] [--csv DIR] [--iteration-call NAME] [...]`
int waves_main(int argc, char** argv);
// `ripple compare TRACE.h5 [--model maxplus|pom|both] [--json F] [...]`
int compare_main(int argc, char** argv);
// `ripple plot waves|sim INPUT -o FILE.png|svg|pdf [--view ...]`
int plot_main(int argc, char** argv);
// `ripple cxl TRACE.h5 --machine machine.toml [--capacity BYTES] [--json F]`
int cxl_main(int argc, char** argv);
// `ripple calibrate [-o machine.toml] [--set KEY=VALUE]` (analysis/mpi: it runs the MPI ping-pong)
int calibrate_main(int argc, char** argv);
// `ripple import mitos DIR -o trace.h5`
int import_main(int argc, char** argv);

}  // namespace ripple::analysis
