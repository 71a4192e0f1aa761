#pragma once
// Counter-based random numbers (Random123 Philox): a value depends only on (seed, stream, a, b), so
// results never depend on how oscillators are spread over ranks or in which order they are drawn.
#include <Random123/philox.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <utility>

namespace ripple {

// Independent streams of random numbers, one per purpose.
enum class Stream : std::uint32_t { Frequency = 1, Noise = 2, Delay = 3, Initial = 4, ProxyNoise = 5 };

// Two independent uniform numbers in the open interval (0, 1).
inline std::pair<double, double> uniform_pair(std::uint64_t seed, Stream stream, std::uint64_t a, std::uint64_t b) {
  using G = r123::Philox4x32;
  const G::key_type key = {
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32) ^ static_cast<std::uint32_t>(stream)}};
  const G::ctr_type ctr = {{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(a >> 32), static_cast<std::uint32_t>(b),
                            static_cast<std::uint32_t>(b >> 32)}};
  const G::ctr_type r = G()(ctr, key);
  const auto to_unit = [](std::uint32_t hi, std::uint32_t lo) {
    const std::uint64_t bits = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11;  // 53 bits
    return (static_cast<double>(bits) + 0.5) * 0x1.0p-53;
  };
  return {to_unit(r[0], r[1]), to_unit(r[2], r[3])};
}

inline double uniform01(std::uint64_t seed, Stream stream, std::uint64_t a, std::uint64_t b) {
  return uniform_pair(seed, stream, a, b).first;
}

// Standard normal variate by Box-Muller.
inline double standard_normal(std::uint64_t seed, Stream stream, std::uint64_t a, std::uint64_t b) {
  const auto [u1, u2] = uniform_pair(seed, stream, a, b);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace ripple
