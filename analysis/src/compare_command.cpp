// `ripple compare`: a traced run against the max-plus timeline model (and the oscillator model).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "ripple/analysis/commands.hpp"
#include "ripple/analysis/compare.hpp"
#include "ripple/analysis/compare_report.hpp"
#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::analysis {

int compare_main(int argc, char** argv) {
  CLI::App app{
      "A traced run against models of it (docs/compare.md): the max-plus timeline model replaying the\n"
      "trace's own compute times (replay) and predicting from typical ones, the injected delays and\n"
      "fitted noise (predict); their end-time and lag errors, wave speeds, decay and resynchronisation.",
      "ripple compare"};
  std::string input, json_path, model = "maxplus";
  CompareOptions o;
  std::string noise = "on";
  app.add_option("trace", input, "a trace (ripple trace) of a run with iteration markers")->required();
  app.add_option("--model", model, "maxplus (the oscillator model's side is being built)")
      ->capture_default_str()
      ->check(CLI::IsMember({"maxplus"}));
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
  try {
    o.maxplus = model != "pom";
    o.pom = model != "maxplus";
    o.predict_noise = noise == "on";
    const CompareResult r = compare_run(input, o);
    std::fputs(compare_text(r).c_str(), stdout);
    if (!json_path.empty()) write_text_file(json_path, compare_json(r), "--json");
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
