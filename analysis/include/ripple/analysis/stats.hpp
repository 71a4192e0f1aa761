#pragma once
// Robust statistics and least-squares fits for the analyses. NaN entries are left out everywhere.
#include <span>
#include <vector>

namespace ripple::analysis {

// Median of the finite values (NaN if none).
double median(std::span<const double> values);

// Mean of the finite values (NaN if none).
double mean(std::span<const double> values);

// Median absolute deviation from the median, unscaled (NaN if no finite value).
double mad(std::span<const double> values);

// y = slope * x + intercept by least squares over the pairs where both are finite, with the
// coefficient of determination r2 (1 for a perfect line; NaN with fewer than two distinct x, or
// where every y is equal and the line fits them exactly, r2 is 1).
struct LineFit {
  double slope = 0;
  double intercept = 0;
  double r2 = 0;
  int points = 0;
};
LineFit fit_line(std::span<const double> x, std::span<const double> y);

}  // namespace ripple::analysis
