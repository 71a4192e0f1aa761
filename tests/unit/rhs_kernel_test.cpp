// The right-hand-side kernel against a direct evaluation of the model equation.
#include "ripple/model/rhs_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "ripple/model/block_plan.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/local_graph.hpp"
#include "ripple/model/oscillators.hpp"
#include "ripple/model/potential.hpp"
#include "ripple/model/vector_math.hpp"

namespace ripple::model {
namespace {

SimConfig config(const std::string& potential, const std::string& topology, int n = 60,
                 const std::string& normalization = "degree", const std::string& noise = "uniform") {
  return parse_config("[model]\noscillators = " + std::to_string(n) + "\nt_comp = 1.0\nfrequency_spread = 0.1\npotential = \"" +
                          potential + "\"\nsigma = 1.0\nnormalization = \"" + normalization + "\"\nstrength = 3.0\n[topology]\n" +
                          topology + "\n[noise]\nkind = \"" + noise + "\"\namplitude = 0.2\n[solver]\nt_end = 1.0\n",
                      "kernel-test");
}

// dtheta_i/dt straight from the equation, one oscillator at a time with the scalar potentials.
std::vector<double> reference(const SimConfig& c, const Topology& topo, const std::vector<double>& x, double t) {
  std::vector<double> out;
  std::vector<std::int64_t> nb;
  const double vp = coupling_strength(c, topo);
  const auto k = static_cast<std::int64_t>(std::floor(t / c.noise_interval()));
  for (std::int64_t i = 0; i < c.model.oscillators; ++i) {
    topo.neighbours(i, nb);
    const double sum = with_potential(c.model.potential, c.model.sigma, [&](auto v) {
      double s = 0;
      for (const auto j : nb) s += v(x[static_cast<size_t>(i)] - x[static_cast<size_t>(j)]);
      return s;
    });
    const double omega = natural_frequency(c, i);
    out.push_back(omega + noise_value(c, i, omega, k) - vp / static_cast<double>(nb.size()) * sum);
  }
  return out;
}

void check(const std::string& potential, const std::string& topology) {
  const SimConfig c = config(potential, topology);
  const Topology topo = Topology::from_config(c.topology, c.model.oscillators);
  std::vector<double> x;
  for (int i = 0; i < 60; ++i) x.push_back(std::sin(1.3 * i) * 2.0);
  const double t = 2.5;
  const auto want = reference(c, topo, x, t);
  std::vector<std::int64_t> ids(60);
  std::iota(ids.begin(), ids.end(), 0);
  for (const bool symmetric : {false, true}) {
    if (symmetric && !topo.is_symmetric()) continue;
    const LocalGraph g = build_local_graph(
        topo, ids, [](std::int64_t) { return 0; }, symmetric);
    std::vector<double> omega;
    for (int i = 0; i < 60; ++i) omega.push_back(natural_frequency(c, i));
    RhsKernel kernel(c, g, omega, coupling_strength(c, topo));
    kernel.set_intervals(static_cast<std::int64_t>(std::floor(t / c.noise_interval())), 0);
    std::vector<double> got(60);
    kernel.evaluate(t, x.data(), nullptr, got.data());
    for (int i = 0; i < 60; ++i)
      EXPECT_NEAR(got[static_cast<size_t>(i)], want[static_cast<size_t>(i)], 1e-13)
          << potential << " " << topology << " i=" << i << (symmetric ? " symmetric" : " directed");
  }
}

TEST(RhsKernel, MatchesTheEquationForEveryPotentialAndForm) {
  for (const char* p : {"tanh", "kuramoto", "bottleneck"}) {
    check(p, "kind = \"chain\"\ndistances = [-1, 1]");
    check(p, "kind = \"ring\"\ndistances = [-1, 1, -2]");
    check(p, "kind = \"grid2d\"\ndims = [6, 10]\nperiodic = true");
  }
}

TEST(RhsKernel, MeanFieldEqualsTheDirectAllToAllSum) {
  const SimConfig c = config("kuramoto", "kind = \"all\"");
  const Topology topo = Topology::from_config(c.topology, 60);
  std::vector<double> x;
  for (int i = 0; i < 60; ++i) x.push_back(0.1 * i * i);
  const auto want = reference(c, topo, x, 0.5);
  std::vector<std::int64_t> ids(60);
  std::iota(ids.begin(), ids.end(), 0);
  const LocalGraph g = mean_field_graph(ids, 60);
  std::vector<double> omega;
  for (int i = 0; i < 60; ++i) omega.push_back(natural_frequency(c, i));
  RhsKernel kernel(c, g, omega, coupling_strength(c, topo));
  kernel.set_intervals(static_cast<std::int64_t>(std::floor(0.5 / c.noise_interval())), 0);
  std::vector<double> sin_x(60), cos_x(60);
  sin_cos(x.data(), sin_x.data(), cos_x.data(), x.size());
  double s = 0, co = 0;
  for (int i = 0; i < 60; ++i) {
    EXPECT_NEAR(sin_x[static_cast<size_t>(i)], std::sin(x[static_cast<size_t>(i)]), 1e-15);
    EXPECT_NEAR(cos_x[static_cast<size_t>(i)], std::cos(x[static_cast<size_t>(i)]), 1e-15);
    s += sin_x[static_cast<size_t>(i)];
    co += cos_x[static_cast<size_t>(i)];
  }
  std::vector<double> got(60);
  kernel.evaluate_mean_field(0.5, sin_x.data(), cos_x.data(), s, co, got.data());
  for (int i = 0; i < 60; ++i) EXPECT_NEAR(got[static_cast<size_t>(i)], want[static_cast<size_t>(i)], 1e-12);
}

// The blocked kernel against its frozen reference, bit for bit: large enough for many blocks, on
// the whole graph and on rank-like parts of it (contiguous blocks with ghosts, and a strided set of
// rows whose couplings are all irregular).
void check_blocked_equals_reference(const std::string& potential, const std::string& topology, int n,
                                    const std::string& normalization = "degree", const std::string& noise = "uniform") {
  const SimConfig c = config(potential, topology, n, normalization, noise);
  const Topology topo = Topology::from_config(c.topology, n);
  std::vector<double> phase(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) phase[static_cast<std::size_t>(i)] = std::sin(0.37 * i) * 2.5 + 1e-3 * i;
  const auto owner_of = [n](std::int64_t id) { return static_cast<int>(id * 3 / n); };
  std::vector<std::vector<std::int64_t>> parts(4);
  for (std::int64_t i = 0; i < n; ++i) {
    parts[0].push_back(i);
    parts[1 + static_cast<std::size_t>(owner_of(i))].push_back(i);
  }
  std::vector<std::int64_t> strided;
  for (std::int64_t i = 1; i < n; i += 3) strided.push_back(i);
  parts.push_back(strided);
  for (const bool symmetric : {false, true}) {
    if (symmetric && !topo.is_symmetric()) continue;
    for (const auto& ids : parts) {
      const LocalGraph g = build_local_graph(topo, ids, owner_of, symmetric);
      if (ids.size() == static_cast<std::size_t>(n)) {
        ASSERT_GT(make_block_plan(g).blocks.size(), 2u) << topology;  // the sweep really is blocked
      }
      std::vector<double> columns;
      for (std::size_t k = 0; k < g.n_columns(); ++k)
        columns.push_back(phase[static_cast<std::size_t>(g.column_id(static_cast<std::uint32_t>(k)))]);
      std::vector<double> omega;
      for (const auto i : g.local_ids) omega.push_back(natural_frequency(c, i));
      RhsKernel kernel(c, g, omega, coupling_strength(c, topo));
      kernel.set_intervals(3, 0);
      std::vector<double> got(g.n_local()), want(g.n_local());
      kernel.evaluate_ref(0.0, columns.data(), want.data());
      for (const bool interleave : {false, true}) {
        kernel.set_interleave(interleave);
        kernel.evaluate(0.0, columns.data(), columns.data() + g.n_local(), got.data());
        ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(double)))
            << potential << " " << topology << " rows=" << ids.size() << (symmetric ? " symmetric" : " directed")
            << (interleave ? " interleaved" : "");
      }
    }
  }
}

TEST(RhsKernel, BlockedSweepIsBitwiseTheReference) {
  for (const char* p : {"tanh", "kuramoto", "bottleneck"}) {
    check_blocked_equals_reference(p, "kind = \"chain\"\ndistances = [-1, 1]", 5000);
    check_blocked_equals_reference(p, "kind = \"ring\"\ndistances = [-1, 1, -2]", 4099);
    check_blocked_equals_reference(p, "kind = \"grid2d\"\ndims = [50, 90]\nperiodic = true", 4500);
    check_blocked_equals_reference(p, "kind = \"grid3d\"\ndims = [10, 20, 30]", 6000);
  }
  // Couplings further apart than a block can stretch (V computed in two windows).
  check_blocked_equals_reference("tanh", "kind = \"grid2d\"\ndims = [9000, 2]", 18000);
  // Blocks of one or two affine tasks take the path without a sums buffer: every normalization,
  // with and without noise, open and periodic.
  for (const char* norm : {"degree", "N", "none"})
    for (const char* noise : {"uniform", "none"})
      for (const char* topo :
           {"kind = \"chain\"\ndistances = [-1, 1]", "kind = \"ring\"\ndistances = [-1, 1]", "kind = \"chain\"\ndistances = [1]"})
        check_blocked_equals_reference("tanh", topo, 5003, norm, noise);
}

TEST(RhsKernel, BlockPlanCoversEveryTermOnce) {
  const SimConfig c = config("tanh", "kind = \"grid2d\"\ndims = [40, 75]\nperiodic = true", 3000);
  const Topology topo = Topology::from_config(c.topology, 3000);
  std::vector<std::int64_t> ids(3000);
  std::iota(ids.begin(), ids.end(), 0);
  const LocalGraph g = build_local_graph(
      topo, ids, [](std::int64_t) { return 0; }, true);
  const BlockPlan plan = make_block_plan(g, 256);
  ASSERT_GT(plan.blocks.size(), 3u);
  std::vector<int> a_terms(g.edges(), 0), b_terms(g.edges(), 0);
  for (const auto& blk : plan.blocks) {
    for (std::uint32_t t = blk.task_begin; t < blk.task_end; ++t) {
      const auto& task = plan.tasks[t];
      for (std::uint32_t k = task.begin; k < task.end; ++k) {
        const std::uint32_t e = task.list ? plan.list[k] : k;
        const std::uint32_t row = task.b_side ? g.edge_b[e] : g.edge_a[e];
        EXPECT_GE(row, blk.row_begin);
        EXPECT_LT(row, blk.row_end);
        ++(task.b_side ? b_terms : a_terms)[e];
      }
    }
  }
  for (std::size_t e = 0; e < g.edges(); ++e) {
    EXPECT_EQ(a_terms[e], 1) << e;
    EXPECT_EQ(b_terms[e], 1) << e;
  }
}

}  // namespace
}  // namespace ripple::model
