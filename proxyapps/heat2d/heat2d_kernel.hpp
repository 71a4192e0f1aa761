#pragma once
// The 5-point Jacobi sweep of heat2d on one tile with a one-cell halo, row-major with stride nx + 2:
//   unew(i, j) = 0.25 * ((u(i-1, j) + u(i+1, j)) + (u(i, j-1) + u(i, j+1)))   for interior points.
// jacobi_ref is the frozen, obviously correct version; jacobi is the tuned one. Both must agree
// bit for bit (tests/unit/heat2d_kernel_test.cpp).
namespace ripple::heat2d {

void jacobi_ref(const double* u, double* unew, int nx, int ny);
void jacobi(const double* __restrict u, double* __restrict unew, int nx, int ny);

}  // namespace ripple::heat2d
