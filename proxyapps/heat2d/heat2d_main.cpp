// ripple-heat2d: 2D 5-point Jacobi heat equation with halo exchange through MPI messages or, for
// neighbours on the same node, through shared memory (the message-free reference of seed 003 V-C1).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numbers>

#include "heat2d_kernel.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/numa.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/proxy/iteration_loop.hpp"
#include "ripple/proxy/options.hpp"
#include "ripple/proxy/report.hpp"
#include "ripple/proxy/shm_channels.hpp"

namespace ripple::heat2d {
namespace {

using proxy::CommonOptions;
enum Dir { kNorth = 0, kSouth = 1, kWest = 2, kEast = 3 };
constexpr Dir kOpposite[4] = {kSouth, kNorth, kEast, kWest};
constexpr const char* kDirName[4] = {"north", "south", "west", "east"};

struct Options {
  CommonOptions common;
  std::string tile = "256";
  std::string grid;
  std::string problem = "eigenmode";
  std::string kernel = "tuned";
  int shm_numa = -1;
};

// The process grid and this rank's tile: rank = px + PX * py, y grows southwards.
struct Layout {
  int px_count = 1, py_count = 1, px = 0, py = 0;
  int nx = 0, ny = 0;   // tile interior
  long gx = 0, gy = 0;  // global interior
  std::array<int, 4> neighbour{-1, -1, -1, -1};
  std::array<bool, 4> shm{false, false, false, false};
};

Layout make_layout(const Options& o, MPI_Comm comm) {
  const int ranks = comm_size(comm);
  const int rank = comm_rank(comm);
  Layout l;
  const auto tile = proxy::parse_extents(o.tile, "--tile", 2);
  l.nx = tile[0];
  l.ny = tile.size() > 1 ? tile[1] : tile[0];
  if (l.nx < 32 || l.ny < 32 || l.nx > 8192 || l.ny > 8192)
    throw InputError(fmt::format("--tile {}: each extent must lie in [32, 8192]", o.tile));
  if (o.grid.empty()) {
    int dims[2] = {0, 0};
    RIPPLE_MPI_CHECK(MPI_Dims_create(ranks, 2, dims));
    l.px_count = dims[0];
    l.py_count = dims[1];
  } else {
    const auto g = proxy::parse_extents(o.grid, "--grid", 2);
    if (g.size() != 2) throw InputError(fmt::format("--grid {}: expected PXxPY, e.g. 2x2", o.grid));
    l.px_count = g[0];
    l.py_count = g[1];
    if (static_cast<long>(l.px_count) * l.py_count != ranks)
      throw InputError(fmt::format("--grid {}: {} x {} = {} processes, but the run has {} ranks", o.grid, l.px_count, l.py_count,
                                   static_cast<long>(l.px_count) * l.py_count, ranks));
  }
  l.px = rank % l.px_count;
  l.py = rank / l.px_count;
  l.gx = static_cast<long>(l.nx) * l.px_count;
  l.gy = static_cast<long>(l.ny) * l.py_count;
  const auto at = [&](int x, int y) { return (x < 0 || y < 0 || x >= l.px_count || y >= l.py_count) ? -1 : x + l.px_count * y; };
  l.neighbour = {at(l.px, l.py - 1), at(l.px, l.py + 1), at(l.px - 1, l.py), at(l.px + 1, l.py)};
  const std::string& h = o.common.halo;
  if (h != "mpi" && h != "shm:ns" && h != "shm:we" && h != "shm:all")
    throw InputError(fmt::format("--halo {}: use mpi, shm:ns, shm:we or shm:all", h));
  return l;
}

// Halo exchange of one tile: MPI messages, or shared-memory channels for same-node neighbours in
// the chosen directions.
class Halo {
public:
  Halo(MPI_Comm comm, Layout& l, const std::string& mode, int numa_node) : comm_(comm), l_(l), node_(comm) {
    const std::size_t row = static_cast<std::size_t>(l.nx) * sizeof(double);
    const std::size_t col = static_cast<std::size_t>(l.ny) * sizeof(double);
    std::vector<proxy::ShmChannels::Spec> sends, receives;
    for (int d = 0; d < 4; ++d) {
      const bool axis = mode == "shm:all" || (mode == "shm:ns" && d <= kSouth) || (mode == "shm:we" && d >= kWest);
      l.shm[d] = axis && node_.node_rank(l.neighbour[d]) >= 0;
      if (!l.shm[d]) continue;
      channel_[d] = sends.size();
      sends.push_back({l.neighbour[d], d, d <= kSouth ? row : col});
      receives.push_back({l.neighbour[d], kOpposite[d], d <= kSouth ? row : col});
    }
    shm_ = std::make_unique<proxy::ShmChannels>(comm, node_, sends, receives, numa_node);
    for (auto& b : col_out_) b.resize(static_cast<std::size_t>(l.ny));
    for (auto& b : col_in_) b.resize(static_cast<std::size_t>(l.ny));
  }

  void exchange(double* u, std::int64_t seq) {
    const int s = l_.nx + 2;
    const auto row_out = [&](int d) { return u + (d == kNorth ? 1 : l_.ny) * s + 1; };
    const auto row_in = [&](int d) { return u + (d == kNorth ? 0 : l_.ny + 1) * s + 1; };
    int n = 0;
    for (int d = 0; d < 4; ++d) {
      if (l_.neighbour[d] < 0 || l_.shm[d]) continue;
      double* into = d <= kSouth ? row_in(d) : col_in_[d - kWest].data();
      RIPPLE_MPI_CHECK(
          MPI_Irecv(into, d <= kSouth ? l_.nx : l_.ny, MPI_DOUBLE, l_.neighbour[d], kOpposite[d], comm_, &req_[n++]));
    }
    for (int d = kWest; d <= kEast; ++d) {  // pack the west and east columns
      if (l_.neighbour[d] < 0) continue;
      const int i = d == kWest ? 1 : l_.nx;
      for (int j = 0; j < l_.ny; ++j) col_out_[d - kWest][static_cast<std::size_t>(j)] = u[(j + 1) * s + i];
    }
    for (int d = 0; d < 4; ++d) {  // shared memory: write into the memory the neighbour reads
      if (!l_.shm[d]) continue;
      const double* from = d <= kSouth ? row_out(d) : col_out_[d - kWest].data();
      const std::size_t bytes = static_cast<std::size_t>(d <= kSouth ? l_.nx : l_.ny) * sizeof(double);
      std::memcpy(shm_->send_buffer(channel_[d], seq), from, bytes);
      shm_->publish(channel_[d], seq);
    }
    for (int d = 0; d < 4; ++d) {
      if (l_.neighbour[d] < 0 || l_.shm[d]) continue;
      const double* from = d <= kSouth ? row_out(d) : col_out_[d - kWest].data();
      RIPPLE_MPI_CHECK(MPI_Isend(from, d <= kSouth ? l_.nx : l_.ny, MPI_DOUBLE, l_.neighbour[d], d, comm_, &req_[n++]));
    }
    for (int d = 0; d < 4; ++d) {  // shared memory: read the neighbour's halo directly
      if (!l_.shm[d]) continue;
      const auto* from = static_cast<const double*>(shm_->receive(channel_[d], seq));
      if (d <= kSouth) {
        std::memcpy(row_in(d), from, static_cast<std::size_t>(l_.nx) * sizeof(double));
      } else {
        const int i = d == kWest ? 0 : l_.nx + 1;
        for (int j = 0; j < l_.ny; ++j) u[(j + 1) * s + i] = from[j];
      }
      shm_->consumed(channel_[d], seq);
    }
    RIPPLE_MPI_CHECK(MPI_Waitall(n, req_.data(), MPI_STATUSES_IGNORE));
    for (int d = kWest; d <= kEast; ++d) {
      if (l_.neighbour[d] < 0 || l_.shm[d]) continue;
      const int i = d == kWest ? 0 : l_.nx + 1;
      for (int j = 0; j < l_.ny; ++j) u[(j + 1) * s + i] = col_in_[d - kWest][static_cast<std::size_t>(j)];
    }
  }

private:
  MPI_Comm comm_;
  Layout& l_;
  proxy::NodeInfo node_;
  std::unique_ptr<proxy::ShmChannels> shm_;
  std::array<std::size_t, 4> channel_{};
  std::array<std::vector<double>, 2> col_out_, col_in_;
  std::array<MPI_Request, 8> req_{};
};

double eigenmode(const Layout& l, long x, long y) {
  return std::sin(std::numbers::pi * static_cast<double>(x + 1) / static_cast<double>(l.gx + 1)) *
         std::sin(std::numbers::pi * static_cast<double>(y + 1) / static_cast<double>(l.gy + 1));
}

int run(MPI_Comm comm, Options& o, int argc, char** argv) {
  Layout l;
  run_collectively(comm, [&] {
    proxy::finish_common_options(o.common, comm_size(comm));
    l = make_layout(o, comm);
    if (o.problem != "eigenmode" && o.problem != "hot")
      throw InputError(fmt::format("--problem {}: use eigenmode or hot", o.problem));
    if (o.kernel != "tuned" && o.kernel != "ref") throw InputError(fmt::format("--kernel {}: use tuned or ref", o.kernel));
    if (o.problem == "eigenmode") {
      const double lambda = 0.5 * (std::cos(std::numbers::pi / static_cast<double>(l.gx + 1)) +
                                   std::cos(std::numbers::pi / static_cast<double>(l.gy + 1)));
      if (std::log10(lambda) * (o.common.warmup + o.common.iterations) < -250)
        throw InputError(
            fmt::format("--iterations {}: the eigenmode would decay below 1e-250 (underflow); use fewer "
                        "iterations, a larger tile or --problem hot",
                        o.common.iterations));
    }
    if (o.shm_numa >= 0) check_numa_node(o.shm_numa, "--shm-numa");
  });
  const int s = l.nx + 2;
  const std::size_t cells = static_cast<std::size_t>(s) * static_cast<std::size_t>(l.ny + 2);
  std::vector<double> u(cells, 0.0), unew(cells, 0.0);
  const long x0 = static_cast<long>(l.px) * l.nx, y0 = static_cast<long>(l.py) * l.ny;
  if (o.problem == "eigenmode") {
    for (int j = 0; j < l.ny; ++j)
      for (int i = 0; i < l.nx; ++i) u[static_cast<std::size_t>((j + 1) * s + i + 1)] = eigenmode(l, x0 + i, y0 + j);
  } else if (l.neighbour[kNorth] < 0) {  // hot: the northern boundary is held at 1
    for (int i = 0; i < s; ++i) u[static_cast<std::size_t>(i)] = unew[static_cast<std::size_t>(i)] = 1.0;
  }

  Halo halo(comm, l, o.common.halo, o.shm_numa);
  proxy::IterationLoop loop(comm, o.common);
  const auto sweep = o.kernel == "ref" ? &jacobi_ref : &jacobi;
  // Compute, then communicate: the first sweep needs its halos before the loop starts.
  halo.exchange(u.data(), 1);
  loop.run(
      [&](int) {
        sweep(u.data(), unew.data(), l.nx, l.ny);
        std::swap(u, unew);
      },
      [&](int it) { halo.exchange(u.data(), it + o.common.warmup + 2); });

  // Verification against the analytic answer.
  const int total = o.common.warmup + o.common.iterations;
  double worst = 0;
  bool ok = true;
  proxy::Checksum checksum;
  const double lambda = 0.5 * (std::cos(std::numbers::pi / static_cast<double>(l.gx + 1)) +
                               std::cos(std::numbers::pi / static_cast<double>(l.gy + 1)));
  const double decay = std::pow(lambda, total);
  for (int j = 0; j < l.ny; ++j)
    for (int i = 0; i < l.nx; ++i) {
      const double v = u[static_cast<std::size_t>((j + 1) * s + i + 1)];
      checksum.add(static_cast<std::uint64_t>((y0 + j) * l.gx + x0 + i), v);
      if (o.problem == "eigenmode")
        worst = std::max(worst, std::abs(v - decay * eigenmode(l, x0 + i, y0 + j)) / decay);
      else if (!(v >= 0.0 && v <= 1.0))
        ok = false;  // maximum principle
    }
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, comm));
  // Rounding error grows with the sweeps: 0.24 epsilon per sweep measured (2x2 ranks, tiles of 32
  // and 256, 10^3 to 10^5 sweeps), so a fixed 1e-12 failed correct runs beyond about 19000 sweeps.
  const double tolerance = std::max(1e-12, 2 * std::numeric_limits<double>::epsilon() * total);
  int good = ok && worst <= tolerance ? 1 : 0;
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, comm));
  const std::uint64_t sum = checksum.global(comm);

  if (!o.common.output.empty()) {
    const double bytes = 8.0 * static_cast<double>(l.gx) * static_cast<double>(l.gy);
    proxy::write_result_file(comm, o.common.output, "ripple-heat2d", argc, argv, bytes, [&](const ParallelH5File& f) {
      write_attribute(f.id(), "iterations", std::int64_t{total});
      H5Id ds = create_dataset(f.id(), "/u", {static_cast<hsize_t>(l.gy), static_cast<hsize_t>(l.gx)});
      std::vector<double> interior;
      for (int j = 0; j < l.ny; ++j)
        interior.insert(interior.end(), u.begin() + (j + 1) * s + 1, u.begin() + (j + 1) * s + 1 + l.nx);
      write_block(f, ds.get(), {static_cast<hsize_t>(y0), static_cast<hsize_t>(x0)},
                  {static_cast<hsize_t>(l.ny), static_cast<hsize_t>(l.nx)}, interior.data());
    });
  }

  const double lups = static_cast<double>(l.gx) * static_cast<double>(l.gy) * o.common.iterations / loop.timed_seconds();
  constexpr double kBytesPerUpdate = 24;  // read u (neighbours from cache), write unew plus its write-allocate
  std::string shm_dirs;
  for (int d = 0; d < 4; ++d)
    if (l.shm[d]) shm_dirs += std::string(shm_dirs.empty() ? "" : ",") + kDirName[d];
  proxy::write_summary(comm, o.common.json,
                       {{"app", proxy::json_string("heat2d")},
                        {"ranks", std::to_string(comm_size(comm))},
                        {"grid", proxy::json_string(fmt::format("{}x{}", l.px_count, l.py_count))},
                        {"tile", proxy::json_string(fmt::format("{}x{}", l.nx, l.ny))},
                        {"global", proxy::json_string(fmt::format("{}x{}", l.gx, l.gy))},
                        {"problem", proxy::json_string(o.problem)},
                        {"kernel", proxy::json_string(o.kernel)},
                        {"halo", proxy::json_string(o.common.halo)},
                        {"work", proxy::json_string(o.common.work_spec)},
                        {"compute_time", proxy::sleep_phase_json(o.common, loop.compute_time())},
                        {"sleep_overruns", std::to_string(loop.sleep_overruns())},
                        {"iterations", std::to_string(o.common.iterations)},
                        {"iterations_requested", std::to_string(o.common.iterations)},
                        {"warmup", std::to_string(o.common.warmup)},
                        {"seconds", proxy::json_number(loop.timed_seconds())},
                        {"lups", proxy::json_number(lups)},
                        {"bytes_per_update", proxy::json_number(kBytesPerUpdate)},
                        {"max_relative_error", proxy::json_number(o.problem == "eigenmode" ? worst : 0.0)},
                        {"verification", good ? "true" : "false"},
                        {"checksum", proxy::json_string(proxy::hex(sum))}},
                       loop.times());
  if (comm_rank(comm) == 0) {
    std::printf("heat2d: %dx%d ranks, tile %dx%d, %d iterations (+%d warm-up), halo %s%s\n", l.px_count, l.py_count, l.nx, l.ny,
                o.common.iterations, o.common.warmup, o.common.halo.c_str(),
                shm_dirs.empty() ? "" : (" (shm " + shm_dirs + " on rank 0)").c_str());
    std::printf("  %.1f MLUP/s, %.2f GB/s at %.0f B per lattice update; checksum %s\n", lups / 1e6, lups * kBytesPerUpdate / 1e9,
                kBytesPerUpdate, proxy::hex(sum).c_str());
    if (o.problem == "eigenmode")
      std::printf("  verification %s: eigenmode decays by %.17g per iteration, max relative error %.3g (tolerance %.3g)\n",
                  good ? "PASSED" : "FAILED", lambda, worst, tolerance);
    else
      std::printf("  verification %s: maximum principle 0 <= u <= 1\n", good ? "PASSED" : "FAILED");
  }
  return good ? 0 : 1;
}

}  // namespace
}  // namespace ripple::heat2d

int main(int argc, char** argv) {
  using namespace ripple::heat2d;
  CLI::App app{"2D 5-point Jacobi heat equation with halo exchange (MPI or shared memory)", "ripple-heat2d"};
  Options o;
  ripple::proxy::add_common_options(app, o.common);
  app.add_option("--halo", o.common.halo, "mpi, or shm:ns / shm:we / shm:all: those halos through shared memory on a node")
      ->capture_default_str();
  app.add_option("--tile", o.tile, "interior points per rank: NX or NXxNY (32 to 8192)")->capture_default_str();
  app.add_option("--grid", o.grid, "process grid PXxPY (default: MPI_Dims_create)");
  app.add_option("--problem", o.problem, "eigenmode (zero boundary, analytic decay) or hot (north edge at 1)")
      ->capture_default_str();
  app.add_option("--kernel", o.kernel, "tuned or ref (the frozen reference sweep)")->capture_default_str();
  app.add_option("--shm-numa", o.shm_numa, "place the shared-memory halo windows on this NUMA node (emulates far memory)");
  return ripple::proxy::run_proxy_app(argc, argv, app, [&](MPI_Comm comm) { return run(comm, o, argc, argv); });
}
