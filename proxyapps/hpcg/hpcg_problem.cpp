#include "hpcg_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"

namespace ripple::hpcg {

void process_grid(int ranks, int& npx, int& npy, int& npz) {
  // Prime factors p_i with multiplicities m_i, ascending.
  std::vector<int> prime, mult;
  int n = ranks;
  for (int d = 2; static_cast<long>(d) * d <= n; d += d == 2 ? 1 : 2) {
    if (n % d != 0) continue;
    prime.push_back(d);
    mult.push_back(0);
    while (n % d == 0) {
      n /= d;
      ++mult.back();
    }
  }
  if (n > 1 || prime.empty()) {
    prime.push_back(n);
    mult.push_back(1);
  }
  const auto power = [](int base, int e) {
    int v = 1;
    while (e-- > 0) v *= base;
    return v;
  };
  const std::size_t k = prime.size();
  if (k == 1) {  // p^m: as even a split of the exponent as possible, the larger shares first
    const int m = mult[0];
    npz = power(prime[0], m / 3);
    npy = power(prime[0], m / 3 + (m % 3 >= 2 ? 1 : 0));
    npx = power(prime[0], m / 3 + (m % 3 >= 1 ? 1 : 0));
  } else if (k == 2 && mult[0] == 1 && mult[1] == 1) {
    npx = prime[0], npy = prime[1], npz = 1;
  } else if (k == 2 && mult[0] + mult[1] == 3) {
    npx = prime[0], npy = prime[1], npz = mult[0] == 2 ? prime[0] : prime[1];
  } else if (k == 3 && mult[0] == 1 && mult[1] == 1 && mult[2] == 1) {
    npx = prime[0], npy = prime[1], npz = prime[2];
  } else {
    // Every split of the factors into (x, y, z) with x and y non-trivial, enumerated as HPCG's
    // mixed-base counters do (the smallest prime's exponent counts fastest); the first split with
    // the least surface x y + y z + x z wins.
    const auto next = [&](std::vector<int>& digits, const std::vector<int>& max) {
      for (std::size_t i = 0; i < digits.size(); ++i) {
        if (++digits[i] <= max[i]) return;
        digits[i] = 0;
      }
    };
    const auto zero = [](const std::vector<int>& d) { return std::all_of(d.begin(), d.end(), [](int v) { return v == 0; }); };
    const auto product = [&](const std::vector<int>& d) {
      int v = 1;
      for (std::size_t i = 0; i < k; ++i) v *= power(prime[i], d[i]);
      return v;
    };
    double best = 2.0 * ranks + 1.0;
    std::vector<int> e1(k, 0);
    for (next(e1, mult); !zero(e1); next(e1, mult)) {
      std::vector<int> rest(k), e2(k, 0);
      for (std::size_t i = 0; i < k; ++i) rest[i] = mult[i] - e1[i];
      for (next(e2, rest); !zero(e2); next(e2, rest)) {
        const int x = product(e1), y = product(e2), z = ranks / x / y;
        const double area = x * static_cast<double>(y) + y * static_cast<double>(z) + x * static_cast<double>(z);
        if (area < best) {
          best = area;
          npx = x, npy = y, npz = z;
        }
      }
    }
  }
}

Geometry make_geometry(MPI_Comm comm, int nx, int ny, int nz) {
  Geometry g;
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  process_grid(comm_size(comm), g.npx, g.npy, g.npz);
  const int rank = comm_rank(comm);
  g.ipz = rank / (g.npx * g.npy);
  g.ipy = (rank - g.ipz * g.npx * g.npy) / g.npx;
  g.ipx = rank % g.npx;
  g.gnx = static_cast<std::int64_t>(g.npx) * nx;
  g.gny = static_cast<std::int64_t>(g.npy) * ny;
  g.gnz = static_cast<std::int64_t>(g.npz) * nz;
  return g;
}

namespace {

std::unique_ptr<SparseMatrix> generate_level(MPI_Comm comm, const Geometry& g) {
  auto a = std::make_unique<SparseMatrix>();
  a->geom = g;
  const std::int64_t n = static_cast<std::int64_t>(g.nx) * g.ny * g.nz;
  a->rows = n;
  a->nonzeros_in_row.resize(static_cast<std::size_t>(n));
  a->values.resize(static_cast<std::size_t>(n));
  a->local_columns.resize(static_cast<std::size_t>(n));
  a->global_row.resize(static_cast<std::size_t>(n));
  a->diagonal.resize(static_cast<std::size_t>(n));
  a->diagonal_slot.resize(static_cast<std::size_t>(n));
  const int me = comm_rank(comm);
  std::vector<std::array<std::int64_t, 27>> global_columns(static_cast<std::size_t>(n));
  std::int64_t local_nnz = 0;
  for (int iz = 0; iz < g.nz; ++iz)
    for (int iy = 0; iy < g.ny; ++iy)
      for (int ix = 0; ix < g.nx; ++ix) {
        const std::int64_t gix = static_cast<std::int64_t>(g.ipx) * g.nx + ix;
        const std::int64_t giy = static_cast<std::int64_t>(g.ipy) * g.ny + iy;
        const std::int64_t giz = static_cast<std::int64_t>(g.ipz) * g.nz + iz;
        const std::int64_t row = (static_cast<std::int64_t>(iz) * g.ny + iy) * g.nx + ix;
        const std::int64_t grow = giz * g.gnx * g.gny + giy * g.gnx + gix;
        a->global_row[static_cast<std::size_t>(row)] = grow;
        int k = 0;
        for (int sz = -1; sz <= 1; ++sz) {
          if (giz + sz < 0 || giz + sz >= g.gnz) continue;
          for (int sy = -1; sy <= 1; ++sy) {
            if (giy + sy < 0 || giy + sy >= g.gny) continue;
            for (int sx = -1; sx <= 1; ++sx) {
              if (gix + sx < 0 || gix + sx >= g.gnx) continue;
              const std::int64_t gcol = grow + sz * g.gnx * g.gny + sy * g.gnx + sx;
              if (gcol == grow) {
                a->diagonal[static_cast<std::size_t>(row)] = 26.0;
                a->diagonal_slot[static_cast<std::size_t>(row)] = static_cast<std::uint8_t>(k);
                a->values[static_cast<std::size_t>(row)][static_cast<std::size_t>(k)] = 26.0;
              } else {
                a->values[static_cast<std::size_t>(row)][static_cast<std::size_t>(k)] = -1.0;
              }
              global_columns[static_cast<std::size_t>(row)][static_cast<std::size_t>(k)] = gcol;
              ++k;
            }
          }
        }
        a->nonzeros_in_row[static_cast<std::size_t>(row)] = static_cast<std::uint8_t>(k);
        local_nnz += k;
      }
  a->local_nonzeros = local_nnz;
  std::int64_t totals[2] = {n, local_nnz};
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_INT64_T, MPI_SUM, comm));
  a->total_rows = totals[0];
  a->total_nonzeros = totals[1];

  // SetupHalo_ref: externals ordered by neighbour rank, then global index.
  std::map<int, std::set<std::int64_t>> receive, send;
  const auto owner = [&](std::int64_t gcol) {
    const std::int64_t gz = gcol / (g.gnx * g.gny);
    const std::int64_t gy = (gcol - gz * g.gnx * g.gny) / g.gnx;
    return g.rank_of(gcol % g.gnx, gy, gz);
  };
  const auto local_of = [&](std::int64_t gcol) {
    const std::int64_t gz = gcol / (g.gnx * g.gny);
    const std::int64_t gy = (gcol - gz * g.gnx * g.gny) / g.gnx;
    const std::int64_t gx = gcol % g.gnx;
    return ((gz - static_cast<std::int64_t>(g.ipz) * g.nz) * g.ny + (gy - static_cast<std::int64_t>(g.ipy) * g.ny)) * g.nx +
           (gx - static_cast<std::int64_t>(g.ipx) * g.nx);
  };
  for (std::int64_t row = 0; row < n; ++row)
    for (int k = 0; k < a->nonzeros_in_row[static_cast<std::size_t>(row)]; ++k) {
      const std::int64_t gcol = global_columns[static_cast<std::size_t>(row)][static_cast<std::size_t>(k)];
      const int r = owner(gcol);
      if (r != me) {
        receive[r].insert(gcol);
        send[r].insert(a->global_row[static_cast<std::size_t>(row)]);
      }
    }
  std::map<std::int64_t, std::int32_t> external;
  std::int64_t next = n;
  for (const auto& [r, cols] : receive) {
    a->neighbours.push_back(r);
    a->receive_length.push_back(static_cast<int>(cols.size()));
    for (const std::int64_t c : cols) external[c] = static_cast<std::int32_t>(next++);
    a->send_length.push_back(static_cast<int>(send[r].size()));
    for (const std::int64_t grow : send[r]) a->elements_to_send.push_back(static_cast<std::int32_t>(local_of(grow)));
  }
  a->columns = next;
  for (std::int64_t row = 0; row < n; ++row)
    for (int k = 0; k < a->nonzeros_in_row[static_cast<std::size_t>(row)]; ++k) {
      const std::int64_t gcol = global_columns[static_cast<std::size_t>(row)][static_cast<std::size_t>(k)];
      a->local_columns[static_cast<std::size_t>(row)][static_cast<std::size_t>(k)] =
          owner(gcol) == me ? static_cast<std::int32_t>(local_of(gcol)) : external.at(gcol);
    }
  return a;
}

}  // namespace

std::unique_ptr<SparseMatrix> generate(MPI_Comm comm, const Geometry& g, int levels) {
  auto a = generate_level(comm, g);
  if (levels > 1) {
    if (g.nx % 2 || g.ny % 2 || g.nz % 2)
      throw InputError(fmt::format("--nx/--ny/--nz {}x{}x{}: multigrid level needs even extents", g.nx, g.ny, g.nz));
    Geometry c = g;
    c.nx /= 2;
    c.ny /= 2;
    c.nz /= 2;
    c.gnx /= 2;
    c.gny /= 2;
    c.gnz /= 2;
    a->coarse = generate(comm, c, levels - 1);
    // f2c: coarse point (i, j, k) is fine point (2i, 2j, 2k).
    for (int iz = 0; iz < c.nz; ++iz)
      for (int iy = 0; iy < c.ny; ++iy)
        for (int ix = 0; ix < c.nx; ++ix) a->f2c.push_back((static_cast<std::int64_t>(2 * iz) * g.ny + 2 * iy) * g.nx + 2 * ix);
  }
  return a;
}

std::vector<double> right_hand_side(const SparseMatrix& a) {
  std::vector<double> b(static_cast<std::size_t>(a.rows));
  for (std::int64_t i = 0; i < a.rows; ++i)
    b[static_cast<std::size_t>(i)] = 26.0 - (a.nonzeros_in_row[static_cast<std::size_t>(i)] - 1);
  return b;
}

}  // namespace ripple::hpcg
