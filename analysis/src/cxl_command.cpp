// `ripple cxl TRACE.h5 --machine machine.toml`: seed 003's prediction of message-free communication
// through CXL.mem for a traced run (docs/cxl.md).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "ripple/analysis/commands.hpp"
#include "ripple/analysis/cxl_report.hpp"
#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::analysis {

int cxl_main(int argc, char** argv) {
  CLI::App app{
      "Seed 003's model (docs/cxl.md): per receive call site and tag, what moving the receive buffer to a\n"
      "shared CXL.mem pool would cost or save (transfer: Hockney vs two atomic round trips; access: the\n"
      "load samples that touch the buffer, re-costed by data source), the whole run's speed-up, and the\n"
      "buffers worth moving under a capacity.",
      "ripple cxl"};
  std::string input, machine_path, json_path, match = "address", conventions = "auto";
  std::vector<std::string> sets;
  std::vector<double> weights;
  CxlOptions o;
  app.add_option("trace", input, "a trace (ripple trace, or ripple import mitos)")->required();
  app.add_option("--machine", machine_path, "the machine file (ripple calibrate)")->required();
  app.add_option("--set", sets, "KEY=VALUE: override a machine value (repeatable)");
  app.add_option("--capacity", o.capacity, "bytes of CXL memory: the best set of buffers within them")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", json_path, "write the result as JSON (schema ripple-cxl; `ripple plot cxl` draws it)");
  app.add_option("--match", match,
                 "which matching of samples drives the totals: address (the whole run, as the "
                 "published tool) or window (after a completion, before the next receive)")
      ->capture_default_str()
      ->check(CLI::IsMember({"address", "window"}));
  app.add_option("--conventions", conventions,
                 "published: the published tool's (rate 1, MLAT = 64 L3_LDM/LD_INS, no first-access split); "
                 "auto: published for imports of the Mitos simulator")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "ripple", "published"}));
  app.add_option("--weights", weights, "MBW,MLAT,CBW,CLAT,COMPUTE: category weights instead of the counters")
      ->delimiter(',')
      ->expected(5);
  app.add_option("--unpack", o.unpack, "fraction of each sampled load that reads CXL (an unpack copy); 1: all")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_command_line(app, e, "ripple cxl --help");
  }
  try {
    Machine m = load_machine(machine_path);
    for (const std::string& s : sets) m.set_from_text(s);
    if (!weights.empty()) o.weights = Weights{weights[0], weights[1], weights[2], weights[3], weights[4]};
    o.matching = match == "window" ? Matching::Window : Matching::Address;
    o.conventions = conventions == "published" ? Conventions::Published
                    : conventions == "ripple"  ? Conventions::Ripple
                                               : Conventions::Auto;
    const CxlResult r = predict_cxl(read_cxl_run(input), m, o);
    std::fputs(cxl_text(r).c_str(), stdout);
    if (!json_path.empty()) write_text_file(json_path, cxl_json(r), "--json");
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "ripple: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ripple: error: %s: %s\n", input.c_str(), e.what());
    return 1;
  }
}

}  // namespace ripple::analysis
