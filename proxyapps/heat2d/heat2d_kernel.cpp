#include "heat2d_kernel.hpp"

#include <cstddef>

namespace ripple::heat2d {

void jacobi_ref(const double* u, double* unew, int nx, int ny) {
  const int s = nx + 2;
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const int c = j * s + i;
      unew[c] = 0.25 * ((u[c - 1] + u[c + 1]) + (u[c - s] + u[c + s]));
    }
}

void jacobi(const double* __restrict u, double* __restrict unew, int nx, int ny) {
  const std::ptrdiff_t s = nx + 2;
  for (std::ptrdiff_t j = 1; j <= ny; ++j) {
    const double* __restrict row = u + j * s;
    const double* __restrict up = row - s;
    const double* __restrict down = row + s;
    double* __restrict out = unew + j * s;
    for (std::ptrdiff_t i = 1; i <= nx; ++i) out[i] = 0.25 * ((row[i - 1] + row[i + 1]) + (up[i] + down[i]));
  }
}

}  // namespace ripple::heat2d
