// ripple-ring: the POM paper's micro-benchmarks. Each iteration is a compute phase (compute-bound
// pi, memory-bound triad, or slowtriad) followed by messages to and from the ranks at the given
// distances: MPI_Irecv from each, MPI_Send to each, MPI_Waitall.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <sstream>

#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/proxy/iteration_loop.hpp"
#include "ripple/proxy/options.hpp"
#include "ripple/proxy/report.hpp"

namespace ripple::ring {
namespace {

struct Options {
  proxy::CommonOptions common;
  std::string kernel = "pi";
  std::string distances = "-1,1";
  bool periodic = false;
  long bytes = 16;
  long elements = 1'000'000;  // triad: doubles per array per rank
  long slices = 1'000'000;    // pi: midpoint slices per rank per iteration
};

std::vector<int> parse_distances(const std::string& text, int ranks) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t used = 0;
    int d = 0;
    try {
      d = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || d == 0)
      throw InputError(fmt::format("--distances {}: expected nonzero integers separated by commas, e.g. -1,1,-2", text));
    if (std::abs(d) >= std::max(ranks, 2))
      throw InputError(fmt::format("--distances {}: |{}| must be below the {} ranks", text, d, ranks));
    out.push_back(d);
  }
  if (out.empty()) throw InputError("--distances: give at least one distance");
  return out;
}

// The peer at distance d, or -1 outside an open chain.
int peer(int rank, int d, int ranks, bool periodic) {
  const int p = rank + d;
  if (periodic) return ((p % ranks) + ranks) % ranks;
  return p < 0 || p >= ranks ? -1 : p;
}

int run(MPI_Comm comm, Options& o, int argc, char** argv) {
  const int ranks = comm_size(comm);
  const int rank = comm_rank(comm);
  std::vector<int> distances;
  run_collectively(comm, [&] {
    proxy::finish_common_options(o.common, ranks);
    distances = parse_distances(o.distances, ranks);
    if (o.kernel != "pi" && o.kernel != "triad" && o.kernel != "slowtriad")
      throw InputError(fmt::format("--kernel {}: use pi, triad or slowtriad", o.kernel));
    if (o.bytes < 16 || o.bytes > (1L << 30))
      throw InputError(fmt::format("--bytes {}: between 16 (each message carries its sender and iteration) and 2^30", o.bytes));
    if (o.elements < 1 || o.elements > (1L << 30) || o.slices < 1)
      throw InputError("--elements must lie in [1, 2^30] and --slices must be positive");
    if (o.common.halo != "mpi")
      throw InputError(fmt::format("--halo {}: ring exchanges MPI messages only (use mpi)", o.common.halo));
  });

  // Compute phase data.
  const auto n = static_cast<std::size_t>(o.elements);
  std::vector<double> a, b, c, d;
  if (o.kernel != "pi") {
    a.assign(n, 0.0);
    b.resize(n);
    c.resize(n);
    d.assign(n, 3.0);
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = 1.0 + static_cast<double>(i % 7);
      c[i] = 0.5 * static_cast<double>(i % 11);
    }
  }
  const double scalar = 3.0;
  double pi_part = 0;
  const auto compute = [&](int) {
    if (o.kernel == "pi") {
      // Midpoint rule for the integral of 4 / (1 + x^2) over this rank's share of [0, 1].
      const double h = 1.0 / (static_cast<double>(o.slices) * ranks);
      const double x0 = static_cast<double>(rank) / ranks;
      double sum = 0;
      for (long k = 0; k < o.slices; ++k) {
        const double x = x0 + (static_cast<double>(k) + 0.5) * h;
        sum += 4.0 / (1.0 + x * x);
      }
      pi_part = sum * h;
    } else if (o.kernel == "triad") {
      for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
    } else {
      for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + std::cos(c[i] / d[i]);
    }
  };

  // Messages: to rank + d and from rank - d for each distance d, tag = index of d.
  const auto words = static_cast<std::size_t>((o.bytes + 7) / 8);
  std::vector<std::vector<std::int64_t>> out(distances.size(), std::vector<std::int64_t>(words, 0)),
      in(distances.size(), std::vector<std::int64_t>(words, 0));
  std::vector<MPI_Request> requests(distances.size());
  long bad_messages = 0;
  const auto communicate = [&](int it) {
    int n_req = 0;
    std::vector<int> from(distances.size(), -1);
    for (std::size_t k = 0; k < distances.size(); ++k) {
      from[k] = peer(rank, -distances[k], ranks, o.periodic);
      if (from[k] >= 0)
        RIPPLE_MPI_CHECK(MPI_Irecv(in[k].data(), static_cast<int>(o.bytes), MPI_BYTE, from[k], static_cast<int>(k), comm,
                                   &requests[static_cast<std::size_t>(n_req++)]));
    }
    for (std::size_t k = 0; k < distances.size(); ++k) {
      const int to = peer(rank, distances[k], ranks, o.periodic);
      if (to < 0) continue;
      out[k][0] = rank;
      out[k][1] = it;
      RIPPLE_MPI_CHECK(MPI_Send(out[k].data(), static_cast<int>(o.bytes), MPI_BYTE, to, static_cast<int>(k), comm));
    }
    RIPPLE_MPI_CHECK(MPI_Waitall(n_req, requests.data(), MPI_STATUSES_IGNORE));
    for (std::size_t k = 0; k < distances.size(); ++k)
      if (from[k] >= 0 && (in[k][0] != from[k] || in[k][1] != it)) ++bad_messages;
  };

  proxy::IterationLoop loop(comm, o.common);
  loop.run(compute, communicate);

  // Verification: the kernel's analytic result, and every message from the right sender and iteration.
  bool ok = bad_messages == 0;
  proxy::Checksum checksum;
  double pi = 0;
  if (o.kernel == "pi") {
    RIPPLE_MPI_CHECK(MPI_Allreduce(&pi_part, &pi, 1, MPI_DOUBLE, MPI_SUM, comm));
    const double h = 1.0 / (static_cast<double>(o.slices) * ranks);
    ok = ok && std::abs(pi - std::numbers::pi) < h * h + 1e-12;  // midpoint error is h^2 / 6 * max|f''| / 4
    checksum.add(static_cast<std::uint64_t>(rank), pi_part);
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const double want = o.kernel == "triad" ? b[i] + scalar * c[i] : b[i] + std::cos(c[i] / d[i]);
      ok = ok && a[i] == want;
      checksum.add(static_cast<std::uint64_t>(rank) * n + i, a[i]);
    }
  }
  int good = ok ? 1 : 0;
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &good, 1, MPI_INT, MPI_MIN, comm));
  long bad_total = 0;
  RIPPLE_MPI_CHECK(MPI_Allreduce(&bad_messages, &bad_total, 1, MPI_LONG, MPI_SUM, comm));
  const std::uint64_t sum = checksum.global(comm);
  if (!o.common.output.empty()) {
    // The global result: every rank's pi share, or every rank's array a, in rank order.
    const std::size_t per_rank = o.kernel == "pi" ? 1 : n;
    const double bytes = 8.0 * static_cast<double>(ranks) * static_cast<double>(per_rank);
    proxy::write_result_file(comm, o.common.output, "ripple-ring", argc, argv, bytes, [&](const ParallelH5File& f) {
      write_attribute(f.id(), "kernel", o.kernel);
      H5Id ds = create_dataset(f.id(), "/result", {static_cast<hsize_t>(ranks), static_cast<hsize_t>(per_rank)});
      write_block(f, ds.get(), {static_cast<hsize_t>(rank), 0}, {1, static_cast<hsize_t>(per_rank)},
                  o.kernel == "pi" ? &pi_part : a.data());
    });
  }
  proxy::write_summary(comm, o.common.json,
                       {{"app", proxy::json_string("ring")},
                        {"ranks", std::to_string(ranks)},
                        {"kernel", proxy::json_string(o.kernel)},
                        {"halo", proxy::json_string(o.common.halo)},
                        {"distances", proxy::json_string(o.distances)},
                        {"periodic", o.periodic ? "true" : "false"},
                        {"bytes", std::to_string(o.bytes)},
                        {"elements", std::to_string(o.elements)},
                        {"slices", std::to_string(o.slices)},
                        {"result", o.kernel == "pi" ? proxy::json_number(pi) : "null"},
                        {"work", proxy::json_string(o.common.work_spec)},
                        {"compute_time", proxy::sleep_phase_json(o.common, loop.compute_time())},
                        {"sleep_overruns", std::to_string(loop.sleep_overruns())},
                        {"iterations", std::to_string(o.common.iterations)},
                        {"iterations_requested", std::to_string(o.common.iterations)},
                        {"warmup", std::to_string(o.common.warmup)},
                        {"seconds", proxy::json_number(loop.timed_seconds())},
                        {"bad_messages", std::to_string(bad_total)},
                        {"verification", good ? "true" : "false"},
                        {"checksum", proxy::json_string(proxy::hex(sum))}},
                       loop.times());
  if (rank == 0) {
    std::printf("ring: %d ranks, kernel %s, distances %s (%s), %ld-byte messages, %d iterations: %.3f s\n", ranks,
                o.kernel.c_str(), o.distances.c_str(), o.periodic ? "periodic" : "open", o.bytes, o.common.iterations,
                loop.timed_seconds());
    std::printf("  verification %s (%ld misdelivered messages%s)\n", good ? "PASSED" : "FAILED", bad_total,
                o.kernel == "pi" ? fmt::format(", pi = {:.15f}", pi).c_str() : "");
  }
  return good ? 0 : 1;
}

}  // namespace
}  // namespace ripple::ring

int main(int argc, char** argv) {
  using namespace ripple::ring;
  CLI::App app{"Ring micro-benchmarks of the oscillator-model paper: compute phase, then messages at fixed distances",
               "ripple-ring"};
  Options o;
  ripple::proxy::add_common_options(app, o.common);
  app.add_option("--halo", o.common.halo, "message transport (mpi)")->capture_default_str();
  app.add_option("--kernel", o.kernel, "pi (compute-bound), triad (memory-bound) or slowtriad")->capture_default_str();
  app.add_option("--distances", o.distances, "send to rank+d and receive from rank-d for each d, e.g. -1,1,-2")
      ->capture_default_str();
  app.add_flag("--periodic", o.periodic, "wrap around (a ring) instead of an open chain");
  app.add_option("--bytes", o.bytes, "bytes per message (small: eager, large: rendezvous)")->capture_default_str();
  app.add_option("--elements", o.elements, "triad: array length per rank")->capture_default_str();
  app.add_option("--slices", o.slices, "pi: midpoint slices per rank and iteration")->capture_default_str();
  return ripple::proxy::run_proxy_app(argc, argv, app, [&](MPI_Comm comm) { return run(comm, o, argc, argv); });
}
