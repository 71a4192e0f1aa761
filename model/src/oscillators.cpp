#include "ripple/model/oscillators.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "ripple/common/error.hpp"
#include "ripple/common/random.hpp"

namespace ripple::model {

double natural_frequency(const SimConfig& c, std::int64_t i) {
  const double base = 2.0 * std::numbers::pi / (c.t_comp(i) + c.t_comm(i));
  const double spread = c.model.frequency_spread;
  if (spread == 0.0) return base;
  const std::int64_t n = c.model.oscillators;
  const std::uint64_t seed = c.model.frequency_seed;
  const auto id = static_cast<std::uint64_t>(i);
  double g = 0.0;
  switch (c.model.frequency_distribution) {
    case FrequencyDistribution::Grid:
      g = n > 1 ? -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1) : 0.0;
      break;
    case FrequencyDistribution::Uniform:
      g = 2.0 * uniform01(seed, Stream::Frequency, id, 0) - 1.0;
      break;
    case FrequencyDistribution::Normal:
      g = standard_normal(seed, Stream::Frequency, id, 0);
      break;
    case FrequencyDistribution::Lorentzian:
      g = std::tan(std::numbers::pi * (uniform01(seed, Stream::Frequency, id, 0) - 0.5));
      break;
  }
  return base * (1.0 + spread * g);
}

double initial_phase(const SimConfig& c, std::int64_t i, std::span<const double> from_file) {
  switch (c.initial.kind) {
    case InitialKind::Sync:
      return 0.0;
    case InitialKind::Random:
      return c.initial.spread * (2.0 * uniform01(c.initial.seed, Stream::Initial, static_cast<std::uint64_t>(i), 0) - 1.0);
    case InitialKind::File:
      return from_file[static_cast<size_t>(i)];
  }
  return 0.0;
}

std::vector<double> read_phase_file(const std::string& path, std::int64_t n) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("[initial] file: cannot read '{}': check the path", path));
  std::vector<double> phases;
  std::string line;
  for (std::int64_t lineno = 1; std::getline(in, line); ++lineno) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream ls(line);
    double v = 0;
    while (ls >> v) {
      if (!std::isfinite(v)) throw InputError(fmt::format("{}:{}: phase is not finite", path, lineno));
      phases.push_back(v);
    }
    if (!ls.eof()) throw InputError(fmt::format("{}:{}: expected numbers (phases in radians), got '{}'", path, lineno, line));
  }
  if (static_cast<std::int64_t>(phases.size()) != n)
    throw InputError(fmt::format("[initial] file '{}' holds {} phases; oscillators = {}", path, phases.size(), n));
  return phases;
}

double coupling_strength(const SimConfig& c, const Topology& t) {
  if (c.model.strength) return *c.model.strength;
  if (c.model.potential == Potential::Wait) return kWaitStrengthPerPeriod / c.mean_period();
  return c.model.beta * t.kappa(c.model.kappa_mode, c.model.kappa_value) / c.mean_period();
}

double wait_post_phase(const SimConfig& c, std::int64_t i) {
  return 2.0 * std::numbers::pi * c.t_comp(i) / (c.t_comp(i) + c.t_comm(i));
}

double noise_value(const SimConfig& c, std::int64_t i, double omega, std::int64_t interval) {
  const auto id = static_cast<std::uint64_t>(i);
  const auto k = static_cast<std::uint64_t>(interval);
  double x = 0.0;  // extra time in units of amplitude periods, mean 1
  switch (c.noise.kind) {
    case NoiseKind::None:
      return 0.0;
    case NoiseKind::Exponential:
      x = -std::log(uniform01(c.noise.seed, Stream::Noise, id, k));
      break;
    case NoiseKind::Uniform:
      x = 2.0 * uniform01(c.noise.seed, Stream::Noise, id, k);
      break;
    case NoiseKind::Normal:  // half-normal scaled to mean 1
      x = std::abs(standard_normal(c.noise.seed, Stream::Noise, id, k)) * std::sqrt(std::numbers::pi / 2.0);
      break;
  }
  const double extra = c.noise.amplitude * x;
  return -omega * extra / (1.0 + extra);
}

NoiseField::NoiseField(const SimConfig& c, std::span<const std::int64_t> global_ids, std::span<const double> omega)
    : cfg_(&c), active_(c.noise.kind != NoiseKind::None && c.noise.amplitude > 0) {
  if (!active_) return;  // no copies of N-sized data when there is no noise
  ids_.assign(global_ids.begin(), global_ids.end());
  omega_.assign(omega.begin(), omega.end());
}

const double* NoiseField::at(std::int64_t k) {
  for (int s = 0; s < 2; ++s)
    if (key_[s] == k) return values_[s].data();
  const int s = next_;
  next_ = 1 - next_;
  key_[s] = k;
  values_[s].resize(ids_.size());
  for (size_t l = 0; l < ids_.size(); ++l) values_[s][l] = noise_value(*cfg_, ids_[l], omega_[l], k);
  return values_[s].data();
}

double edge_delay(const SimConfig& c, std::int64_t i, std::int64_t j, std::int64_t interval) {
  if (c.delay.jitter == 0.0) return c.delay.mean;
  const auto edge =
      static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(c.model.oscillators) + static_cast<std::uint64_t>(j);
  const double u = uniform01(c.delay.seed, Stream::Delay, edge, static_cast<std::uint64_t>(interval));
  return c.delay.mean + c.delay.jitter * (2.0 * u - 1.0);
}

}  // namespace ripple::model
