#pragma once
// The HPCG 3.1 reference problem: a 27-point stencil on a (npx nx) x (npy ny) x (npz nz) grid, its
// halo structure and the 4-level multigrid hierarchy, built exactly as HPCG's GenerateProblem_ref,
// SetupHalo_ref and GenerateCoarseProblem do.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace ripple::hpcg {

struct Geometry {
  int nx = 0, ny = 0, nz = 0;     // local grid
  int npx = 1, npy = 1, npz = 1;  // process grid
  int ipx = 0, ipy = 0, ipz = 0;  // this rank's place: rank = ipz npx npy + ipy npx + ipx
  std::int64_t gnx = 0, gny = 0, gnz = 0;
  [[nodiscard]] int rank_of(std::int64_t gx, std::int64_t gy, std::int64_t gz) const {
    return static_cast<int>(gz / nz) * npx * npy + static_cast<int>(gy / ny) * npx + static_cast<int>(gx / nx);
  }
};

// Up to 27 nonzeros per row, stored row by row in fixed slots (HPCG's layout).
struct SparseMatrix {
  Geometry geom;
  std::int64_t rows = 0;     // local rows
  std::int64_t columns = 0;  // local rows + external (halo) values
  std::int64_t total_rows = 0, total_nonzeros = 0, local_nonzeros = 0;
  std::vector<std::uint8_t> nonzeros_in_row;
  std::vector<std::array<double, 27>> values;
  std::vector<std::array<std::int32_t, 27>> local_columns;  // into [rows | externals]
  std::vector<std::int64_t> global_row;
  std::vector<double> diagonal;
  std::vector<std::uint8_t> diagonal_slot;
  // Halo: neighbours in ascending rank; what each receives (contiguous after the local rows, by
  // neighbour rank then global index) and which local rows each is sent.
  std::vector<int> neighbours;
  std::vector<int> receive_length, send_length;
  std::vector<std::int32_t> elements_to_send;
  // Multigrid: the next coarser level and the fine index of each coarse point.
  std::unique_ptr<SparseMatrix> coarse;
  std::vector<std::int64_t> f2c;
};

// HPCG 3.1's factorisation of the rank count into npx x npy x npz (ComputeOptimalShapeXYZ: special
// cases for few prime factors, otherwise the split of the prime factors with the least surface).
void process_grid(int ranks, int& npx, int& npy, int& npz);
Geometry make_geometry(MPI_Comm comm, int nx, int ny, int nz);
// Generates A with its halo and, for levels > 1, its coarser levels. Collective (sizes).
std::unique_ptr<SparseMatrix> generate(MPI_Comm comm, const Geometry& g, int levels);
// b_i = 26 - (nnz_i - 1), so that the exact solution is all ones.
std::vector<double> right_hand_side(const SparseMatrix& a);

}  // namespace ripple::hpcg
