#pragma once
// The simulator's configuration: the user-facing TOML contract of `ripple sim` (see docs/model.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ripple::model {

enum class Potential { Kuramoto, Tanh, Bottleneck, Wait };
enum class Normalization { N, Degree, None };
enum class TopologyKind { Chain, Ring, Grid2D, Grid3D, All, File };
enum class NoiseKind { None, Exponential, Uniform, Normal };
enum class FrequencyDistribution { Grid, Uniform, Normal, Lorentzian };
enum class InitialKind { Sync, Random, File };
enum class Method { Dopri5, Rk4 };
enum class ErrorNorm { Max, Rms };
enum class KappaMode { Sum, Max, Value };

struct ModelConfig {
  std::int64_t oscillators = 0;
  std::vector<double> t_comp;  // one value, or one per oscillator
  std::vector<double> t_comm;
  double frequency_spread = 0.0;
  FrequencyDistribution frequency_distribution = FrequencyDistribution::Grid;
  std::uint64_t frequency_seed = 1;
  Potential potential = Potential::Tanh;
  double sigma = 3.141592653589793;
  int beta = 1;  // 1 eager, 2 rendezvous
  KappaMode kappa_mode = KappaMode::Sum;
  double kappa_value = 0.0;
  std::optional<double> strength;  // v_p in 1/s, overrides beta and kappa
  Normalization normalization = Normalization::N;
};

struct TopologyConfig {
  TopologyKind kind = TopologyKind::Chain;
  std::vector<std::int64_t> distances{-1, 1};
  std::vector<std::int64_t> dims;
  bool periodic = false;
  std::string file;
};

struct NoiseConfig {
  NoiseKind kind = NoiseKind::None;
  double amplitude = 0.0;  // mean extra time per period, relative to the period
  std::uint64_t seed = 1;
  double interval = 0.0;  // seconds the noise stays constant; 0 = one mean period
};

struct DelayConfig {
  double mean = 0.0;  // communication delay tau, seconds
  double jitter = 0.0;
  std::uint64_t seed = 1;
  double interval = 0.0;  // seconds a jittered delay stays constant; 0 = one mean period
};

struct Kick {
  std::int64_t oscillator = 0;
  double time = 0.0;
  double delay = 0.0;  // seconds the oscillator falls behind
};

struct InitialConfig {
  InitialKind kind = InitialKind::Sync;
  double spread = 0.0;  // radians: random phases are uniform in [-spread, spread]
  std::uint64_t seed = 1;
  std::string file;
};

struct SolverConfig {
  Method method = Method::Dopri5;
  double rtol = 1e-8;
  double atol = 1e-8;
  ErrorNorm norm = ErrorNorm::Max;  // of the error ratios over all oscillators
  double t_end = 0.0;
  double dt = 0.0;  // rk4 step, dopri5 first step guess; 0 = a hundredth of the mean period
};

struct OutputConfig {
  std::string file = "sim.h5";
  double interval = 0.0;        // seconds between stored states; 0 = t_end / 100
  bool iterations = false;      // write /iteration_end: when each oscillator reaches each 2π(k+1)
  double flush_seconds = 60.0;  // wall seconds between flushes of the output, each with a checkpoint
};

struct SimConfig {
  ModelConfig model;
  TopologyConfig topology;
  NoiseConfig noise;
  DelayConfig delay;
  std::vector<Kick> kicks;
  InitialConfig initial;
  SolverConfig solver;
  OutputConfig output;
  std::string resolved_toml;  // the full configuration with defaults filled in
  std::string source;         // file it came from

private:
  mutable double mean_period_ = -1;  // computed on first use: O(N) for per-oscillator times

public:
  [[nodiscard]] double t_comp(std::int64_t i) const {
    return model.t_comp.size() == 1 ? model.t_comp[0] : model.t_comp[static_cast<size_t>(i)];
  }
  [[nodiscard]] double t_comm(std::int64_t i) const {
    return model.t_comm.size() == 1 ? model.t_comm[0] : model.t_comm[static_cast<size_t>(i)];
  }
  [[nodiscard]] double mean_period() const;  // of t_comp + t_comm over all oscillators (cached)
  [[nodiscard]] double noise_interval() const { return noise.interval > 0 ? noise.interval : mean_period(); }
  [[nodiscard]] double delay_interval() const { return delay.interval > 0 ? delay.interval : mean_period(); }
};

// Parses TOML text (`source` names it in messages), applies `overrides` ("section.key=value", the value
// in TOML syntax or a bare string) and validates everything. Throws ripple::InputError naming the key.
SimConfig parse_config(const std::string& toml_text, const std::string& source, const std::vector<std::string>& overrides = {});
SimConfig load_config(const std::string& path, const std::vector<std::string>& overrides = {});

// The first key ("section.key", "kick[2].time") whose value differs between two resolved
// configurations, ignoring `ignore` ("output.flush_seconds"); empty if none does.
std::string first_changed_key(const std::string& toml_a, const std::string& toml_b, const std::string& ignore = {});

}  // namespace ripple::model
