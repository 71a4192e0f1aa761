// `ripple plot`: every figure comes from the Python package in analysis/plots (matplotlib, h5py);
// this command finds it and Debian's python3, and for `waves` first computes the waves result (the
// iteration table and its analysis) with the same code as `ripple waves`.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "ripple/analysis/commands.hpp"
#include "ripple/analysis/iteration_table.hpp"
#include "ripple/analysis/python_runner.hpp"
#include "ripple/analysis/waves.hpp"
#include "ripple/analysis/waves_report.hpp"
#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::analysis {

void add_waves_options(CLI::App& app, WavesOptions& o, std::string& iteration_call);  // waves_command.cpp

namespace {

namespace fs = std::filesystem;

// Runs python3 -m ripple_plots ARGS; returns its exit code.
int run_python(const std::vector<std::string>& args) { return run_python_module("ripple_plots", {}, args); }

// A temporary file that is removed when it goes.
struct TempFile {
  std::string path;
  TempFile() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ripple-waves-XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw Error(fmt::format("cannot make a temporary file like {}", pattern));
    close(fd);
    path = pattern;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { std::remove(path.c_str()); }
};

// Whether the file is a `ripple waves --json` result (its JSON names the schema near its start).
bool is_waves_json(const std::string& path) {
  std::ifstream in(path);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return head.find(std::string("\"") + kWavesSchema + "\"") != std::string::npos;
}

}  // namespace

int plot_main(int argc, char** argv) {
  CLI::App app{
      "Figures of a run (matplotlib; docs/waves.md):\n"
      "  waves INPUT: the rank x iteration heatmap of idle time and the arrival of each wave per hop with\n"
      "               its speed fit (INPUT: a trace, a simulation with crossings, a proxy-app JSON summary,\n"
      "               or the JSON of `ripple waves --json`);\n"
      "  sim INPUT:   the lag timeline (phases against the slowest oscillator), the circle diagram, the\n"
      "               potential timeline and the order parameter r(t) of a `ripple sim` file;\n"
      "  cxl R.json...: per tag, MPI vs CXL transfer + load, and the predicted speed-up (docs/cxl.md).",
      "ripple plot"};
  app.require_subcommand(1);
  std::string input, output, view = "all", iteration_call, labels;
  std::vector<std::string> cxl_inputs;
  WavesOptions o;
  CLI::App* waves = app.add_subcommand("waves", "idle-wave heatmap and arrival-per-hop figure");
  waves->add_option("input", input, "trace, simulation, proxy-app JSON, or waves JSON")->required();
  waves->add_option("-o,--output", output, "figure file: .png, .svg or .pdf")->required();
  waves->add_option("--view", view, "all, heatmap or arrivals")
      ->capture_default_str()
      ->check(CLI::IsMember({"all", "heatmap", "arrivals"}));
  add_waves_options(*waves, o, iteration_call);
  CLI::App* sim = app.add_subcommand("sim", "lag timeline, circle diagram, potential timeline and r(t)");
  sim->add_option("input", input, "a ripple sim output file")->required();
  sim->add_option("-o,--output", output, "figure file: .png, .svg or .pdf")->required();
  sim->add_option("--view", view, "all, lag, circle, potential or order")
      ->capture_default_str()
      ->check(CLI::IsMember({"all", "lag", "circle", "potential", "order"}));
  CLI::App* cmp =
      app.add_subcommand("compare", "a ripple compare result: idle-time heatmaps side by side, lag timelines overlaid");
  cmp->add_option("input", input, "a `ripple compare -o` result (HDF5)")->required();
  cmp->add_option("-o,--output", output, "figure file: .png, .svg or .pdf")->required();
  cmp->add_option("--view", view, "all, heatmaps or lags")
      ->capture_default_str()
      ->check(CLI::IsMember({"all", "heatmaps", "lags"}));
  CLI::App* cxl = app.add_subcommand(
      "cxl", "ripple cxl --json results: per tag, MPI vs CXL transfer + load bars; the predicted speed-up per result");
  cxl->add_option("input", cxl_inputs, "one or more `ripple cxl --json` results (e.g. one per tile size)")->required();
  cxl->add_option("-o,--output", output, "figure file: .png, .svg or .pdf")->required();
  cxl->add_option("--view", view, "all, costs or speedup")
      ->capture_default_str()
      ->check(CLI::IsMember({"all", "costs", "speedup"}));
  cxl->add_option("--labels", labels, "comma-separated, one per result (default: the file names)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_command_line(app, e, "ripple plot --help");
  }
  try {
    const std::string ext = fs::path(output).extension().string();
    if (ext != ".png" && ext != ".svg" && ext != ".pdf")
      throw InputError(fmt::format("-o {}: name a .png, .svg or .pdf file", output));
    if (cxl->parsed()) {
      std::vector<std::string> args = {"cxl"};
      for (const std::string& in : cxl_inputs) {
        require_regular_file(in);
        args.push_back(in);
      }
      args.insert(args.end(), {"-o", output, "--view", view, "--labels", labels});
      return run_python(args);
    }
    require_regular_file(input);
    if (sim->parsed()) return run_python({"sim", input, "-o", output, "--view", view});
    if (cmp->parsed()) return run_python({"compare", input, "-o", output, "--view", view});
    if (is_waves_json(input)) return run_python({"waves", input, "-o", output, "--view", view});
    const IterationTable table = load_table(input, iteration_call);
    const WavesResult result = analyze_waves(table, o);
    const TempFile json;
    write_text_file(json.path, waves_json(table, result, o), "the waves result");
    return run_python({"waves", json.path, "-o", output, "--view", view});
  } catch (const Error& e) {
    std::fprintf(stderr, "ripple: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ripple: error: %s: out of memory\n", input.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ripple: error: %s: %s\n", input.c_str(), e.what());
    return 1;
  }
}

}  // namespace ripple::analysis
