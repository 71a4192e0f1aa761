// `ripple compare`: a traced run against the max-plus timeline model and the oscillator model. MPI
// runs the oscillator model (in one process, or spread over the ranks of mpirun/srun); the rest is
// the same on every rank, and rank 0 reports.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "ripple/analysis/commands.hpp"
#include "ripple/analysis/compare.hpp"
#include "ripple/analysis/compare_report.hpp"
#include "ripple/analysis/mpi/compare_h5.hpp"
#include "ripple/analysis/mpi/pom_runner.hpp"
#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::analysis {

int compare_main(int argc, char** argv) {
  CLI::App app{
      "A traced run against models of it (docs/compare.md): the max-plus timeline model replaying the\n"
      "trace's own compute times (replay) and predicting from typical ones, the injected delays and\n"
      "fitted noise (predict); the Physical Oscillator Model fitted to the trace, with the paper's\n"
      "coupling and (--fit-coupling) the one that fits best; their end-time and lag errors, wave\n"
      "speeds, decay and resynchronisation. Run it under mpirun to spread the oscillator model.",
      "ripple compare"};
  std::string input, json_path, output, model = "both", noise = "on";
  CompareOptions o;
  app.add_option("trace", input, "a trace (ripple trace) of a run with iteration markers")->required();
  app.add_option("--model", model, "maxplus, pom or both")
      ->capture_default_str()
      ->check(CLI::IsMember({"maxplus", "pom", "both"}));
  app.add_option("--potential", o.potentials,
                 "the oscillator model's potentials (tanh, kuramoto, bottleneck; wait: a late rank's partners wait for "
                 "it), repeatable")
      ->capture_default_str()
      ->check(CLI::IsMember({"tanh", "kuramoto", "bottleneck", "wait"}));
  app.add_flag("--fit-coupling", o.fit_coupling, "also the coupling strength v_p that fits the trace's lags best");
  app.add_option("-o,--output", output, "write the result as HDF5 (schema ripple-compare; `ripple plot compare` draws it)");
  app.add_option("--json", json_path, "write the result as JSON (schema ripple-compare) to this file");
  app.add_option("--eager-limit", o.eager_limit, "bytes up to which messages go eagerly (default: the trace's record)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--predict-noise", noise, "predict with noise drawn from the trace's compute residuals")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--seed", o.seed, "seed of the predicted noise")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_command_line(app, e, "ripple compare --help");
  }
  o.maxplus = model != "pom";
  o.pom = model != "maxplus";
  o.predict_noise = noise == "on";
  return run_mpi_main(argc, argv, [&](MPI_Comm comm) {
    CompareResult r;
    run_collectively(comm, [&] { r = compare_run(input, o); });
    const std::string dir = std::filesystem::path(input).parent_path().string();
    if (o.pom) add_pom_runs(r, o, make_pom_runner(comm, dir.empty() ? "." : dir));
    run_collectively(comm, [&] {
      if (comm_rank(comm) != 0) return;
      std::fputs(compare_text(r).c_str(), stdout);
      if (!json_path.empty()) write_text_file(json_path, compare_json(r), "--json");
    });
    if (!output.empty()) write_compare_h5(comm, output, r, argc, argv);
    return 0;
  });
}

}  // namespace ripple::analysis
