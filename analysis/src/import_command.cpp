// `ripple import mitos DIR -o trace.h5`: seed 003's toolchain output (mitoshooks, or the simulator
// variant) as a Ripple trace that `ripple trace info` and `ripple cxl` read (docs/cxl.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "ripple/analysis/commands.hpp"
#include "ripple/analysis/mitos_import.hpp"
#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"

namespace ripple::analysis {

int import_main(int argc, char** argv) {
  CLI::App app{
      "Converts another tool's output into a Ripple trace (docs/cxl.md):\n"
      "  mitos DIR: Mitos with mitoshooks, its merged result directory (data/samples.csv,\n"
      "             data/mpi_traces.csv, optionally data/papi_measurements_RANK.csv), or the simulator\n"
      "             variant (samples.csv, mpi_trace.csv, counters.csv; in DIR or DIR/data).\n"
      "Malformed rows are left out, counted and said; the rest is imported and the exit code is 2\n"
      "(0 with --allow-malformed).",
      "ripple import"};
  app.require_subcommand(1);
  std::string dir, output, variant = "auto";
  bool allow_malformed = false;
  CLI::App* mitos = app.add_subcommand("mitos", "Mitos / mitoshooks output, or its simulator variant");
  mitos->add_option("dir", dir, "the output directory")->required();
  mitos->add_option("-o,--output", output, "the trace file to write")->required();
  mitos->add_option("--variant", variant, "auto, mitoshooks or simulator")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "mitoshooks", "simulator"}));
  mitos->add_flag("--allow-malformed", allow_malformed, "exit 0 even if rows were left out");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_command_line(app, e, "ripple import --help");
  }
  try {
    if (variant == "auto") variant = detect_mitos_variant(dir);
    const MitosRecords r = variant == "simulator" ? read_mitos_simulator(dir) : read_mitoshooks(dir);
    std::string command = "ripple import mitos " + dir + " -o " + output;
    const trace::TraceContent c = build_mitos_trace(r, command);
    trace::write_trace_file(output, c);
    std::int64_t receives = 0;
    for (const trace::Event& e : c.events)
      if (std::string(trace::call_name(e.call)).find("recv") != std::string::npos) ++receives;
    std::printf("%s: Mitos %s, %d ranks: %zu events (%lld receives), %zu load samples, %zu counters%s\n", output.c_str(),
                r.variant.c_str(), c.ranks, c.events.size(), static_cast<long long>(receives), c.samples.size(),
                c.counter_events.size(),
                r.variant == "simulator" ? "; ripple cxl uses the published tool's conventions on it" : "");
    for (const std::string& note : r.notes) std::printf("  note: %s\n", note.c_str());
    if (r.malformed_rows > 0) {
      std::fprintf(stderr, "ripple: error: %s: %lld malformed rows left out, the rest imported into %s\n", dir.c_str(),
                   static_cast<long long>(r.malformed_rows), output.c_str());
      return allow_malformed ? 0 : 2;
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "ripple: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ripple: error: %s: %s\n", dir.c_str(), e.what());
    return 1;
  }
}

}  // namespace ripple::analysis
