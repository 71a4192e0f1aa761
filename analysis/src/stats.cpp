#include "ripple/analysis/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ripple::analysis {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> finite(std::span<const double> values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (const double v : values)
    if (std::isfinite(v)) out.push_back(v);
  return out;
}

double median_in_place(std::vector<double>& v) {
  if (v.empty()) return kNaN;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(v.begin(), mid);
  return 0.5 * (lower + upper);
}
}  // namespace

double median(std::span<const double> values) {
  std::vector<double> v = finite(values);
  return median_in_place(v);
}

double mean(std::span<const double> values) {
  double sum = 0;
  std::size_t n = 0;
  for (const double x : values)
    if (std::isfinite(x)) sum += x, ++n;
  return n > 0 ? sum / static_cast<double>(n) : kNaN;
}

double mad(std::span<const double> values) {
  std::vector<double> v = finite(values);
  const double m = median_in_place(v);
  for (double& x : v) x = std::abs(x - m);
  return median_in_place(v);
}

LineFit fit_line(std::span<const double> x, std::span<const double> y) {
  LineFit fit;
  double sx = 0, sy = 0;
  const std::size_t n = std::min(x.size(), y.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
    sx += x[i];
    sy += y[i];
    ++fit.points;
  }
  if (fit.points < 2) return {kNaN, kNaN, kNaN, fit.points};
  const double mx = sx / fit.points, my = sy / fit.points;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) return {kNaN, kNaN, kNaN, fit.points};
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  double residual = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
    const double r = y[i] - (fit.slope * x[i] + fit.intercept);
    residual += r * r;
  }
  fit.r2 = syy > 0 ? 1.0 - residual / syy : 1.0;
  return fit;
}

}  // namespace ripple::analysis
