#include "ripple/model/mpi/sim_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/text_file.hpp"
#include "ripple/model/mpi/run_control.hpp"
#include "ripple/model/mpi/simulator.hpp"

namespace ripple::model {

int sim_main(int argc, char** argv) {
  CLI::App app{
      "Solve the Physical Oscillator Model of an MPI program (docs/model.md).\n"
      "Run it under mpirun/srun to spread the oscillators over ranks; results are bitwise\n"
      "identical for any number of ranks.",
      "ripple sim"};
  std::string config_path;
  std::vector<std::string> overrides;
  std::string summary_path;
  bool force = false;
  bool quiet = false;
  bool resume = false;
  bool check = false;
  double progress_seconds = 2.0;
  std::string test_pause;
  app.add_option("config", config_path, "TOML configuration file")->required();
  app.add_option("--set", overrides, "override a key: section.key=value (TOML value), repeatable");
  app.add_option("--summary", summary_path, "write a JSON summary of the run to this file");
  app.add_flag("--force", force, "overwrite an existing output file");
  app.add_flag("--quiet", quiet, "no progress and no human summary");
  app.add_option("--progress-seconds", progress_seconds, "seconds between progress lines on stderr")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--resume", resume,
               "go on from the checkpoint beside the output (OUTPUT.checkpoint), into the same output; on any number "
               "of ranks")
      ->excludes("--force");
  app.add_flag("--check", check, "only read and check the configuration and the --set overrides (no MPI, no output)");
  app.add_option("--test-pause", test_pause, "STEP:FILE: pause at step STEP for a test's signals (run_control.hpp)")->group("");
  install_stop_handlers();  // before MPI and the set-up: a signal then stops the run at its first step
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_command_line(app, e, "ripple sim --help");
  }
  if (check) {  // e.g. `ripple campaign`, before it submits a grid of runs
    try {
      (void)load_config(config_path, overrides);
    } catch (const Error& e) {
      std::fprintf(stderr, "ripple: error: %s\n", e.what());
      return e.exit_code();
    }
    return 0;
  }

  return run_mpi_main(argc, argv, [&](MPI_Comm comm) {
    SimConfig cfg;
    run_collectively(comm, [&] { cfg = load_config(config_path, overrides); });
    SimOptions options;
    options.force = force;
    options.resume = resume;
    if (!test_pause.empty()) {
      const auto colon = test_pause.find(':');
      options.test_pause = {std::stoll(test_pause.substr(0, colon)), test_pause.substr(colon + 1)};
    }
    options.progress = !quiet;
    options.progress_every = progress_seconds;
    const SimStats stats = simulate(comm, cfg, collect_provenance(comm, argc, argv), options);
    const std::string json = summary_json(stats);
    run_collectively(comm, [&] {
      if (comm_rank(comm) != 0 || summary_path.empty()) return;
      write_text_file(summary_path, json + '\n', "--summary");
    });
    if (stats.stopped) {
      if (comm_rank(comm) == 0)
        std::printf("ripple sim: stopped by a signal at t = %.17g s after a checkpoint; to go on: ripple sim %s --resume\n",
                    stats.final_time, config_path.c_str());
      return kResumableExitCode;
    }
    if (comm_rank(comm) == 0 && !quiet) {
      std::printf("ripple sim: %lld oscillators on %d rank(s) (%s), t = 0 .. %g s\n", static_cast<long long>(stats.oscillators),
                  stats.ranks, stats.partition.c_str(), stats.final_time);
      std::printf("  %lld steps, %lld RHS evaluations, %.3f s wall, %.1f ns per oscillator-step\n",
                  static_cast<long long>(stats.steps), static_cast<long long>(stats.rhs_evaluations), stats.wall_seconds,
                  stats.wall_seconds * 1e9 /
                      (static_cast<double>(stats.oscillators) * static_cast<double>(std::max<std::int64_t>(stats.steps, 1))));
      std::printf("  final order parameter r = %.6f, phase spread = %.6g rad (%.6g s of lag)\n", stats.final_order_parameter,
                  stats.final_phase_spread, stats.final_lag_seconds);
      std::printf("  wrote %s (%lld stored states", stats.output_file.c_str(), static_cast<long long>(stats.output_times));
      if (stats.iterations >= 0) std::printf("; /iteration_end: %lld iterations", static_cast<long long>(stats.iterations));
      std::printf(")\n");
    }
    return 0;
  });
}

}  // namespace ripple::model
