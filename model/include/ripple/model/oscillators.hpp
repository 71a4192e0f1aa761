#pragma once
// Per-oscillator parameters: natural frequencies, initial phases, local noise and coupling strength.
#include <cstdint>
#include <span>
#include <vector>

#include "ripple/model/config.hpp"
#include "ripple/model/topology.hpp"

namespace ripple::model {

// omega_i = 2 pi / (t_comp,i + t_comm,i) * (1 + frequency_spread * g_i), g_i from the distribution.
double natural_frequency(const SimConfig& c, std::int64_t i);

// Initial phase of oscillator i; `from_file` holds the file's phases for kind = file (else empty).
double initial_phase(const SimConfig& c, std::int64_t i, std::span<const double> from_file);

// Reads N phases (radians, one per line, '#' comments) for [initial] kind = "file".
std::vector<double> read_phase_file(const std::string& path, std::int64_t n);

// v_p of the model equation: `strength` if given, else beta * kappa / mean period; for `wait`, whose
// v_p is the steepness of its hold, kWaitStrengthPerPeriod / mean period.
double coupling_strength(const SimConfig& c, const Topology& t);

// `wait`'s default steepness in units of 1 / mean period: the hold goes from nothing to a full stop
// over the last 1/100 of a mean period before the iteration's end. Why so steep: a process held
// at the ramp's start slows down before its partner's message is due, and each hop of an idle wave
// may end up to 1/v_p later than with an instant stop (docs/model.md); 100 / T keeps that within
// 1 % of a period per hop.
inline constexpr double kWaitStrengthPerPeriod = 100.0;

// Where `wait`'s full stop lies: this fraction of the ramp's width before the iteration's end.
// Phases are integrated with an error of up to rtol |theta|, and a held process that crept across
// the end would record its iteration's end at the start of its wait instead of at its end; 1/8 of
// the ramp (2 pi / 800 rad by default) is far above that error and costs T / 800 per hold.
inline constexpr double kWaitStopBefore = 0.125;

// The `wait` potential's post point of oscillator i: the phase within an iteration (radians) at
// which its compute part ends and it posts its messages, 2 pi t_comp,i / (t_comp,i + t_comm,i).
double wait_post_phase(const SimConfig& c, std::int64_t i);

// Local noise zeta_i(t): constant on each noise interval k. An oscillator that needs X * amplitude
// periods of extra time runs at omega / (1 + amplitude X), X >= 0 with mean 1, so
// zeta = -omega * amplitude X / (1 + amplitude X).
double noise_value(const SimConfig& c, std::int64_t i, double omega, std::int64_t interval);

// Caches zeta for the local oscillators on the two most recent noise intervals (adaptive steps go
// back and forth across an interval boundary).
class NoiseField {
public:
  NoiseField(const SimConfig& c, std::span<const std::int64_t> global_ids, std::span<const double> omega);
  [[nodiscard]] bool active() const { return active_; }
  // zeta for every local oscillator on noise interval k.
  const double* at(std::int64_t k);

private:
  const SimConfig* cfg_;
  std::vector<std::int64_t> ids_;
  std::vector<double> omega_;
  bool active_;
  std::int64_t key_[2] = {-1, -1};
  std::vector<double> values_[2];
  int next_ = 0;
};

// Communication delay of edge (i <- j) on delay interval k.
double edge_delay(const SimConfig& c, std::int64_t i, std::int64_t j, std::int64_t interval);

}  // namespace ripple::model
