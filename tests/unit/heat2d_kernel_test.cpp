// heat2d's Jacobi sweep against the analytic eigenmode decay, and the tuned sweep against the frozen
// reference, bit for bit.
#include "heat2d_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace ripple::heat2d {
namespace {

std::vector<double> eigenmode(int nx, int ny) {
  std::vector<double> u(static_cast<size_t>((nx + 2) * (ny + 2)), 0.0);
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i)
      u[static_cast<size_t>(j * (nx + 2) + i)] =
          std::sin(std::numbers::pi * i / (nx + 1)) * std::sin(std::numbers::pi * j / (ny + 1));
  return u;
}

TEST(Heat2dKernel, EigenmodeDecaysByTheAnalyticFactor) {
  const int nx = 37, ny = 23;
  const double lambda = 0.5 * (std::cos(std::numbers::pi / (nx + 1)) + std::cos(std::numbers::pi / (ny + 1)));
  std::vector<double> u = eigenmode(nx, ny), next(u.size(), 0.0);
  const std::vector<double> u0 = u;
  for (int it = 1; it <= 200; ++it) {
    jacobi(u.data(), next.data(), nx, ny);
    std::swap(u, next);
    const double scale = std::pow(lambda, it);
    for (size_t c = 0; c < u.size(); ++c) ASSERT_NEAR(u[c] / scale, u0[c], 1e-12) << "iteration " << it << " cell " << c;
  }
}

TEST(Heat2dKernel, TunedSweepEqualsTheReferenceBitForBit) {
  const int nx = 61, ny = 45;
  std::vector<double> u(static_cast<size_t>((nx + 2) * (ny + 2)));
  for (size_t c = 0; c < u.size(); ++c) u[c] = std::sin(0.37 * static_cast<double>(c)) + 0.1 * static_cast<double>(c % 13);
  std::vector<double> a(u.size(), 0.0), b(u.size(), 0.0);
  jacobi_ref(u.data(), a.data(), nx, ny);
  jacobi(u.data(), b.data(), nx, ny);
  for (size_t c = 0; c < u.size(); ++c) ASSERT_EQ(a[c], b[c]) << c;
}

}  // namespace
}  // namespace ripple::heat2d
