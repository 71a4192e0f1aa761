// The distribution layer against serial truths: partitions cover every oscillator once, ghosts hold
// their owners' values, and global sums do not depend on the number of ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ripple/model/config.hpp"
#include "ripple/model/mpi/error_checker.hpp"
#include "ripple/model/mpi/exact_sum.hpp"
#include "ripple/model/mpi/ghost_exchange.hpp"
#include "ripple/model/mpi/mpi_algebra.hpp"
#include "ripple/model/mpi/partition.hpp"

namespace ripple::model {
namespace {

int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void check_topology(const TopologyConfig& cfg, std::int64_t n) {
  const Topology topo = Topology::from_config(cfg, n);
  const Partition part = make_partition(MPI_COMM_WORLD, topo);
  // Every oscillator is owned exactly once, and owner_of agrees with the owners.
  std::vector<int> count(static_cast<size_t>(n), 0);
  for (auto i : part.owned) {
    ++count[static_cast<size_t>(i)];
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    EXPECT_EQ(part.owner_of(i), me);
  }
  MPI_Allreduce(MPI_IN_PLACE, count.data(), static_cast<int>(n), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (auto c : count) ASSERT_EQ(c, 1);

  for (const bool symmetric : {false, true}) {
    if (symmetric && !topo.is_symmetric()) continue;
    LocalGraph graph = build_local_graph(topo, part.owned, part.owner_of, symmetric);
    // Ghost exchange of a known field: value(i) = 3 i + 1.
    GhostExchange ex(MPI_COMM_WORLD, graph);
    std::vector<double> local, ghost(graph.n_ghost());
    for (auto i : graph.local_ids) local.push_back(3.0 * static_cast<double>(i) + 1.0);
    ex.exchange(local.data(), ghost.data());
    for (size_t g = 0; g < graph.n_ghost(); ++g) EXPECT_EQ(ghost[g], 3.0 * static_cast<double>(graph.ghost_ids[g]) + 1.0);
    // Walking the edges in order hands every local row its serial neighbour list, in ascending order:
    // the fixed summation order that makes results independent of the decomposition.
    // (Symmetric form: the partners above the row, then those below, as in the kernel's two passes.)
    std::vector<std::vector<std::int64_t>> above(graph.n_local()), below(graph.n_local());
    for (size_t k = 0; k < graph.edges(); ++k) {
      const std::uint32_t a = graph.edge_a[k], b = graph.edge_b[k];
      ASSERT_TRUE(symmetric || a < graph.n_local());
      if (a < graph.n_local()) above[a].push_back(graph.column_id(b));
    }
    for (size_t k = 0; symmetric && k < graph.edges(); ++k)
      if (graph.edge_b[k] < graph.n_local()) below[graph.edge_b[k]].push_back(graph.column_id(graph.edge_a[k]));
    std::vector<std::int64_t> nb;
    for (size_t l = 0; l < graph.n_local(); ++l) {
      topo.neighbours(graph.local_ids[l], nb);
      std::vector<std::int64_t> want = nb;
      if (symmetric) {  // nb is ascending: the partners above the row first, then those below from the nearest
        const auto split = std::upper_bound(nb.begin(), nb.end(), graph.local_ids[l]);
        want.assign(split, nb.end());
        want.insert(want.end(), std::make_reverse_iterator(split), nb.rend());
      }
      std::vector<std::int64_t> seen = above[l];
      seen.insert(seen.end(), below[l].begin(), below[l].end());
      EXPECT_EQ(seen, want) << "row " << graph.local_ids[l] << (symmetric ? " (symmetric)" : " (directed)");
      EXPECT_EQ(graph.degree[l], nb.size());
    }
  }
}

TEST(Distribution, ChainWithLongDistances) {
  TopologyConfig c;
  c.distances = {-1, 1, -2};
  check_topology(c, 37);
}

TEST(Distribution, PeriodicGrid2D) {
  TopologyConfig c;
  c.kind = TopologyKind::Grid2D;
  c.dims = {7, 5};
  c.periodic = true;
  check_topology(c, 35);
}

TEST(Distribution, Grid3D) {
  TopologyConfig c;
  c.kind = TopologyKind::Grid3D;
  c.dims = {4, 3, 5};
  check_topology(c, 60);
}

TEST(Distribution, MoreRanksThanOscillators) {
  TopologyConfig c;
  c.kind = TopologyKind::Ring;
  check_topology(c, 3);
}

TEST(Distribution, EdgeFileThroughMetis) {
  const std::string path = ::testing::TempDir() + "ripple_edges_" + std::to_string(world_size()) + ".txt";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    for (int i = 0; i < 40; ++i) std::fprintf(f, "%d %d\n%d %d\n", i, (i * 7 + 3) % 40, (i * 7 + 3) % 40, i);
    std::fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  TopologyConfig c;
  c.kind = TopologyKind::File;
  c.file = path;
  check_topology(c, 40);
}

TEST(ExactSum, IndependentOfRanksAndOrder) {
  // The same 10007 values summed over any rank count and in reverse order give one bit pattern.
  const std::int64_t n = 10007;
  const int ranks = world_size();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto [b, e] = block_range(n, ranks, rank);
  ExactSum exact;
  ExactSum::Accumulator acc[1] = {0};
  for (std::int64_t i = e - 1; i >= b; --i) ExactSum::add(acc[0], std::sin(0.37 * static_cast<double>(i)));
  exact.allreduce(MPI_COMM_WORLD, acc);
  ExactSum::Accumulator serial = 0;
  for (std::int64_t i = 0; i < n; ++i) ExactSum::add(serial, std::sin(0.37 * static_cast<double>(i)));
  EXPECT_TRUE(acc[0] == serial);
  // And it is the true sum to within n * 2^-53.
  long double ref = 0;
  for (std::int64_t i = 0; i < n; ++i) ref += std::sin(0.37L * static_cast<long double>(i));
  EXPECT_NEAR(ExactSum::value(serial), static_cast<double>(ref), 1e-11);
}

// Ripple's algebra hands odeint's stage combinations and error ratios to its vectorised passes; a
// whole dense-output dopri5 run (and rk4) must give bitwise the states of odeint's own range_algebra.
namespace odeint = boost::numeric::odeint;
using Vec = std::vector<double>;
using Ops = odeint::default_operations;
static_assert(algebra_detail::kVectorised<Ops::scale_sum2<double, double>, Vec, const Vec, const Vec>);
static_assert(algebra_detail::kVectorised<Ops::scale_sum6<double, double, double, double, double, double>, Vec, const Vec,
                                          const Vec, Vec, Vec, Vec, Vec>);
static_assert(!algebra_detail::kVectorised<Ops::scale_sum2<double, double>, Vec, const Vec>);  // wrong arity

template <class Algebra, bool Dense>
Vec integrate_pendulum_chain(Algebra algebra) {
  const std::size_t n = 1003;  // a vector tail at every width
  Vec x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(0.37 * static_cast<double>(i));
  const auto rhs = [n](const Vec& s, Vec& d, double t) {
    for (std::size_t i = 0; i < n; ++i)
      d[i] = 1.0 + 0.1 * std::cos(t) - std::sin(s[i]) + (i + 1 < n ? 0.5 * std::sin(s[i + 1] - s[i]) : 0.0);
  };
  if constexpr (Dense) {
    // Ripple's algebra with Ripple's error checker (max norm), odeint's with odeint's.
    using Dopri = odeint::runge_kutta_dopri5<Vec, double, Vec, double, Algebra>;
    using Checker = std::conditional_t<std::is_same_v<Algebra, MpiAlgebra>, DistributedErrorChecker,
                                       odeint::default_error_checker<double, Algebra, Ops>>;
    using Controlled = odeint::controlled_runge_kutta<Dopri, Checker>;
    const auto checker = [] {
      if constexpr (std::is_same_v<Algebra, MpiAlgebra>)
        return Checker(1e-9, 1e-9, MPI_COMM_SELF, nullptr, 1);
      else
        return Checker(1e-9, 1e-9);
    }();
    odeint::dense_output_runge_kutta<Controlled> stepper(Controlled(checker, {}, Dopri(algebra)));
    stepper.initialize(x, 0.0, 1e-3);
    Vec at(n);
    while (stepper.current_time() < 3.0) stepper.do_step(rhs);
    stepper.calc_state(2.5, at);  // dense output: scale_sum7 through for_each8
    for (std::size_t i = 0; i < n; ++i) at[i] += stepper.current_state()[i];
    return at;
  } else {
    odeint::runge_kutta4<Vec, double, Vec, double, Algebra> rk4(algebra);
    for (int s = 0; s < 200; ++s) rk4.do_step(rhs, x, 0.01 * s, 0.01);
    return x;
  }
}

TEST(MpiAlgebra, BitwiseRangeAlgebraOnDopri5AndRk4) {
  static_assert(std::is_same_v<odeint::controlled_runge_kutta<odeint::runge_kutta_dopri5<Vec, double, Vec, double, MpiAlgebra>,
                                                              DistributedErrorChecker>::error_checker_type,
                               DistributedErrorChecker>);
  const Vec dense_ripple = integrate_pendulum_chain<MpiAlgebra, true>(MpiAlgebra{});
  const Vec dense_odeint = integrate_pendulum_chain<odeint::range_algebra, true>(odeint::range_algebra{});
  ASSERT_EQ(dense_ripple.size(), dense_odeint.size());
  EXPECT_EQ(0, std::memcmp(dense_ripple.data(), dense_odeint.data(), dense_ripple.size() * sizeof(double)));
  const Vec rk4_ripple = integrate_pendulum_chain<MpiAlgebra, false>(MpiAlgebra{});
  const Vec rk4_odeint = integrate_pendulum_chain<odeint::range_algebra, false>(odeint::range_algebra{});
  EXPECT_EQ(0, std::memcmp(rk4_ripple.data(), rk4_odeint.data(), rk4_ripple.size() * sizeof(double)));
}

// The root-mean-square error norm of a vector spread over the ranks is bitwise the one rank 0
// computes alone over the whole vector, and agrees with a long-double reference.
TEST(DistributedErrorChecker, RmsNormIsIndependentOfRanksAndCorrect) {
  const std::size_t n = 10007;
  Vec err(n), x(n), dxdt(n);
  for (std::size_t i = 0; i < n; ++i) {
    err[i] = 1e-8 * std::sin(0.1 * static_cast<double>(i));
    x[i] = 3.0 * std::cos(0.01 * static_cast<double>(i));
    dxdt[i] = 6283.0 + static_cast<double>(i % 7);
  }
  const double dt = 2e-5;
  long double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double r = std::abs(err[i]) / (1e-8 + 1e-8 * (std::abs(x[i]) + dt * std::abs(dxdt[i])));
    sum += r * r;
  }
  const double want = static_cast<double>(std::sqrt(sum / n));
  const ExactSum exact;
  MpiAlgebra algebra;
  const DistributedErrorChecker serial(1e-8, 1e-8, MPI_COMM_SELF, &exact, static_cast<std::int64_t>(n));
  const double whole = serial.error(algebra, x, dxdt, err, dt);
  EXPECT_NEAR(whole, want, 1e-14 * want);
  // This rank's slice.
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::size_t lo = n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(world_size());
  const std::size_t hi = n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(world_size());
  const auto slice = [&](const Vec& v) {
    return Vec(v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(hi));
  };
  Vec e = slice(err);
  const DistributedErrorChecker spread(1e-8, 1e-8, MPI_COMM_WORLD, &exact, static_cast<std::int64_t>(n));
  EXPECT_EQ(spread.error(algebra, slice(x), slice(dxdt), e, dt), whole);
  // The max norm likewise, and a NaN on any rank rejects the step on every rank.
  const DistributedErrorChecker max_serial(1e-8, 1e-8, MPI_COMM_SELF, nullptr, static_cast<std::int64_t>(n));
  const DistributedErrorChecker max_spread(1e-8, 1e-8, MPI_COMM_WORLD, nullptr, static_cast<std::int64_t>(n));
  EXPECT_EQ(max_spread.error(algebra, slice(x), slice(dxdt), e, dt), max_serial.error(algebra, x, dxdt, err, dt));
  if (rank == world_size() - 1 && !e.empty()) e.back() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(max_spread.error(algebra, slice(x), slice(dxdt), e, dt), HUGE_VAL);
  EXPECT_GT(spread.error(algebra, slice(x), slice(dxdt), e, dt), 1e4);  // sqrt(2^40 / N): rejected
}

}  // namespace
}  // namespace ripple::model
