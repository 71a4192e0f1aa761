// `ripple waves`: the iteration table of a trace, a proxy app's timings or a simulation, the idle
// waves in it, as text, JSON and CSV.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "ripple/analysis/commands.hpp"
#include "ripple/analysis/iteration_table.hpp"
#include "ripple/analysis/waves.hpp"
#include "ripple/analysis/waves_report.hpp"
#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::analysis {

// Options shared with `ripple plot waves`.
void add_waves_options(CLI::App& app, WavesOptions& o, std::string& iteration_call) {
  app.add_option("--iteration-call", iteration_call,
                 "traces without iteration markers: the MPI call that ends each iteration (e.g. MPI_Waitall)");
  app.add_option("--k", o.k, "MADs above a rank's median that count as out of the noise")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--floor", o.floor,
                 "seconds of idle or extra compute always needed on top (default: a tenth of the median compute phase)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--fraction", o.fraction, "of a source's delay: the least idle time that counts as its wave")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--max-hop-iterations", o.max_hop_iterations, "a wave slower than this many iterations per hop has died out")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--max-sources", o.max_sources, "analyse at most this many (the largest) delay sources")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
}

int waves_main(int argc, char** argv) {
  CLI::App app{
      "Idle waves in a run: what every rank did in every iteration, where delays came from, how their waves\n"
      "travelled (arrival per hop, speed, decay), resynchronisation and desynchronisation (docs/waves.md).\n"
      "INPUT: a trace (ripple trace), a simulation with iteration crossings ([output] iterations = true),\n"
      "or a proxy app's JSON summary (--json).",
      "ripple waves"};
  std::string input, json_path, csv_dir, iteration_call;
  WavesOptions o;
  app.add_option("input", input, "trace or simulation (HDF5), or proxy-app JSON summary")->required();
  app.add_option("--json", json_path, "write the result as JSON (schema ripple-waves) to this file ('-': standard output)");
  app.add_option("--csv", csv_dir, "write table.csv, sources.csv, arrivals.csv and desync.csv into this directory");
  add_waves_options(app, o, iteration_call);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_command_line(app, e, "ripple waves --help");
  }
  try {
    const IterationTable table = load_table(input, iteration_call);
    const WavesResult result = analyze_waves(table, o);
    if (json_path == "-") {
      std::fputs(waves_json(table, result, o).c_str(), stdout);
    } else {
      std::fputs(waves_text(table, result, o).c_str(), stdout);
      if (!json_path.empty()) write_text_file(json_path, waves_json(table, result, o), "--json");
    }
    if (!csv_dir.empty()) write_waves_csv(csv_dir, table, result);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "ripple: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ripple: error: %s: out of memory (the table takes up to 170 bytes per rank and iteration)\n",
                 input.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ripple: error: %s: %s\n", input.c_str(), e.what());
    return 1;
  }
}

}  // namespace ripple::analysis
