#pragma once
// The command-line options every proxy app shares (docs/proxyapps.md).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ripple::proxy {

enum class WorkMode { Compute, Sleep };
enum class NoiseKind { None, Exponential, Uniform };

struct Delay {
  int rank = 0;
  int iteration = 0;
  double seconds = 0;
};

struct CommonOptions {
  int iterations = 100;
  int warmup = 10;
  std::vector<std::string> delay_specs;  // RANK:ITER:SECONDS
  std::vector<Delay> delays;
  std::string noise_spec = "none";  // exp:MEAN | uniform:MAX
  NoiseKind noise = NoiseKind::None;
  double noise_param = 0;
  std::uint64_t seed = 1;
  std::string work_spec = "compute";
  WorkMode work = WorkMode::Compute;
  double compute_time = 0;  // sleep mode: seconds per compute phase; 0 = measured in the warm-up
  std::string halo = "mpi";
  std::string json;
  std::string output;
  bool verbose = false;
};

// Registers the shared options on an app.
void add_common_options(CLI::App& app, CommonOptions& o);

// Parses the textual options (delays, noise, work) and checks ranges; `ranks` bounds --delay.
// Throws InputError naming the option.
void finish_common_options(CommonOptions& o, int ranks);

// Parses an "AxB" or "A" extent list, e.g. "2x2" or "256": `name` is the option for messages.
std::vector<int> parse_extents(const std::string& text, const std::string& name, std::size_t max_dims);

// Runs an app's main: parses argv with CLI11 (help and usage errors exit before MPI starts, with
// exit code 0 or 2), then initialises MPI and runs body with the agreed-error handling of
// run_mpi_main.
int run_proxy_app(int argc, char** argv, CLI::App& app, const std::function<int(MPI_Comm)>& body);

}  // namespace ripple::proxy
