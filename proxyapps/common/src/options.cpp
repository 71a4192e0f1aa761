#include "ripple/proxy/options.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <sstream>

#include "ripple/common/command_line.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::proxy {
namespace {

double parse_number(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !std::isfinite(v))
    throw InputError(fmt::format("{}: '{}' is not a number", what, text));
  return v;
}

int parse_int(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  long v = 0;
  try {
    v = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < INT32_MIN || v > INT32_MAX)
    throw InputError(fmt::format("{}: '{}' is not an integer", what, text));
  return static_cast<int>(v);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

}  // namespace

void add_common_options(CLI::App& app, CommonOptions& o) {
  app.add_option("--iterations", o.iterations, "timed iterations")->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed iterations before them")->capture_default_str();
  app.add_option("--delay", o.delay_specs,
                 "RANK:ITER:SECONDS: that rank does that much extra work in that iteration (repeatable)");
  app.add_option("--noise", o.noise_spec, "per-iteration random extra work: exp:MEAN or uniform:MAX (seconds)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the noise")->capture_default_str();
  app.add_option("--work", o.work_spec, "compute, or sleep: each compute phase lasts --compute-time (the kernel still runs)")
      ->capture_default_str();
  app.add_option("--compute-time", o.compute_time, "sleep mode: seconds per compute phase (default: measured in the warm-up)");
  app.add_option("--json", o.json, "write the JSON summary with per-rank, per-iteration timings here");
  app.add_option("--output", o.output, "write the final global result to this HDF5 file");
  app.add_flag("--verbose", o.verbose, "print per-iteration details");
}

void finish_common_options(CommonOptions& o, int ranks) {
  if (o.iterations < 1) throw InputError(fmt::format("--iterations {}: must be at least 1", o.iterations));
  if (o.warmup < 0) throw InputError(fmt::format("--warmup {}: must not be negative", o.warmup));
  o.delays.clear();
  for (const auto& spec : o.delay_specs) {
    const auto parts = split(spec, ':');
    if (parts.size() != 3) throw InputError(fmt::format("--delay '{}': expected RANK:ITER:SECONDS, e.g. 3:10:0.02", spec));
    Delay d;
    d.rank = parse_int(parts[0], "--delay " + spec + " rank");
    d.iteration = parse_int(parts[1], "--delay " + spec + " iteration");
    d.seconds = parse_number(parts[2], "--delay " + spec + " seconds");
    if (d.rank < 0 || d.rank >= ranks)
      throw InputError(fmt::format("--delay '{}': rank {} is not in [0, {})", spec, d.rank, ranks));
    if (d.iteration < 0 || d.iteration >= o.iterations)
      throw InputError(fmt::format("--delay '{}': iteration {} is not in [0, {})", spec, d.iteration, o.iterations));
    if (d.seconds < 0) throw InputError(fmt::format("--delay '{}': seconds must not be negative", spec));
    o.delays.push_back(d);
  }
  if (o.noise_spec == "none") {
    o.noise = NoiseKind::None;
  } else {
    const auto parts = split(o.noise_spec, ':');
    if (parts.size() != 2 || (parts[0] != "exp" && parts[0] != "uniform"))
      throw InputError(fmt::format("--noise '{}': expected exp:MEAN or uniform:MAX (seconds)", o.noise_spec));
    o.noise = parts[0] == "exp" ? NoiseKind::Exponential : NoiseKind::Uniform;
    o.noise_param = parse_number(parts[1], "--noise " + o.noise_spec);
    if (o.noise_param < 0) throw InputError(fmt::format("--noise '{}': must not be negative", o.noise_spec));
  }
  if (o.work_spec == "compute")
    o.work = WorkMode::Compute;
  else if (o.work_spec == "sleep")
    o.work = WorkMode::Sleep;
  else
    throw InputError(fmt::format("--work '{}': use compute or sleep", o.work_spec));
  if (o.compute_time < 0) throw InputError("--compute-time must not be negative");
  if (o.work == WorkMode::Sleep && o.compute_time == 0 && o.warmup == 0)
    throw InputError("--work sleep needs --compute-time or at least one --warmup iteration to measure it");
}

std::vector<int> parse_extents(const std::string& text, const std::string& name, std::size_t max_dims) {
  const auto parts = split(text, 'x');
  if (parts.empty() || parts.size() > max_dims)
    throw InputError(fmt::format("{} {}: expected {}", name, text, max_dims == 2 ? "N or NXxNY" : "N, NXxNY or NXxNYxNZ"));
  std::vector<int> out;
  for (const auto& p : parts) {
    const int v = parse_int(p, name + " " + text);
    if (v <= 0) throw InputError(fmt::format("{} {}: extents must be positive", name, text));
    out.push_back(v);
  }
  return out;
}

int run_proxy_app(int argc, char** argv, CLI::App& app, const std::function<int(MPI_Comm)>& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return finish_standard_output(report_command_line(app, e, app.get_name() + " --help"));
  }
  return finish_standard_output(run_mpi_main(argc, argv, body));
}

}  // namespace ripple::proxy
