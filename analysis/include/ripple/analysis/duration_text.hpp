#pragma once
// Durations in the analyses' text reports: three significant digits, in ms below a second (where
// idle waves of a few ms live), in s from a second on ("1 s", not "1e+03 ms"); "-" for unknown.
#include <fmt/format.h>

#include <cmath>
#include <string>

namespace ripple::analysis {

inline std::string duration_text(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  return std::abs(seconds) >= 1 ? fmt::format("{:.3g} s", seconds) : fmt::format("{:.3g} ms", 1e3 * seconds);
}

}  // namespace ripple::analysis
