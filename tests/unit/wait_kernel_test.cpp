// The `wait` kernel against the equation written out one oscillator at a time (partners from the
// topology by global id, their delayed phases from the history), and its tuned
// evaluation against its frozen reference, bit for bit, on rank-like parts of several topologies.
#include "ripple/model/wait_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <numeric>

#include "ripple/model/config.hpp"
#include "ripple/model/delay_history.hpp"
#include "ripple/model/local_graph.hpp"
#include "ripple/model/oscillators.hpp"
#include "ripple/model/rhs_kernel.hpp"
#include "ripple/model/topology.hpp"

namespace ripple::model {
namespace {

constexpr double kT = 2.0;  // evaluation time; tau = 1.25 +- 0.2 looks up between the history's entries

SimConfig config(const std::string& topology, int n, const std::string& noise, double jitter) {
  return parse_config("[model]\noscillators = " + std::to_string(n) +
                          "\nt_comp = 1.0\nt_comm = 0.25\nfrequency_spread = 0.1\npotential = \"wait\"\nstrength = 20.0\n"
                          "[topology]\n" +
                          topology + "\n[noise]\nkind = \"" + noise + "\"\namplitude = 0.2\n[delay]\nmean = 1.25\njitter = " +
                          std::to_string(jitter) + "\n[solver]\nt_end = 10.0\n",
                      "wait-test");
}

// A made-up but smooth past: theta_j(s) = omega_j s + 0.2 sin(0.9 j + s), sampled at three times.
double past(const SimConfig& c, std::int64_t j, double s) {
  return natural_frequency(c, j) * s + 0.2 * std::sin(0.9 * static_cast<double>(j) + s);
}
double past_rate(const SimConfig& c, std::int64_t j, double s) {
  return natural_frequency(c, j) + 0.2 * std::cos(0.9 * static_cast<double>(j) + s);
}

// The history of the given columns (global ids).
DelayHistory history_of(const SimConfig& c, const std::vector<std::int64_t>& columns) {
  std::vector<double> omega;
  for (const auto j : columns) omega.push_back(natural_frequency(c, j));
  DelayHistory h(omega);
  for (const double s : {0.0, 0.7, 1.3}) {
    std::vector<double> v, d;
    for (const auto j : columns) {
      v.push_back(past(c, j, s));
      d.push_back(past_rate(c, j, s));
    }
    h.push(s, v, d);
  }
  return h;
}

// The equation's B_i: the end of the iteration a process may not pass while its partner's delayed
// phase is phi, and where its hold starts, written out on their own.
double barrier(const SimConfig& c, std::int64_t i, double phi) {
  const double post = 2 * std::numbers::pi * c.t_comp(i) / (c.t_comp(i) + c.t_comm(i));
  return 2 * std::numbers::pi * (std::floor((phi - post) / (2 * std::numbers::pi)) + 2);
}
double hold_start(const SimConfig& c, std::int64_t i, double phi, double vp) {
  return barrier(c, i, phi) - (1 + kWaitStopBefore) * natural_frequency(c, i) / vp;
}

// Phases whose excess over the hold's start spans free running, the ramp and a full stop.
double phase(const SimConfig& c, std::int64_t i, double vp) {
  return hold_start(c, i, natural_frequency(c, i) * (kT - c.delay.mean), vp) + 0.35 * std::sin(1.7 * static_cast<double>(i));
}

std::int64_t noise_interval(const SimConfig& c) { return static_cast<std::int64_t>(std::floor(kT / c.noise_interval())); }

TEST(WaitKernel, MatchesTheEquationOneOscillatorAtATime) {
  for (const double jitter : {0.0, 0.2}) {
    const int n = 300;
    const SimConfig c = config("kind = \"ring\"\ndistances = [-1, 1, -2]", n, "uniform", jitter);
    const Topology topo = Topology::from_config(c.topology, n);
    std::vector<std::int64_t> ids(n);
    std::iota(ids.begin(), ids.end(), 0);
    const LocalGraph g = build_local_graph(
        topo, ids, [](std::int64_t) { return 0; }, false);
    const DelayHistory history = history_of(c, ids);
    const double vp = coupling_strength(c, topo);
    std::vector<double> omega, x, zeta;
    for (const auto i : ids) {
      omega.push_back(natural_frequency(c, i));
      x.push_back(phase(c, i, vp));
      zeta.push_back(noise_value(c, i, omega.back(), noise_interval(c)));
    }
    WaitKernel kernel(c, g, omega, vp);
    std::vector<double> got(n);
    kernel.evaluate(kT, x.data(), history, zeta.data(), 5, got.data());
    int free = 0, ramp = 0, stopped = 0;
    std::vector<std::int64_t> nb;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto l = static_cast<std::size_t>(i);
      topo.neighbours(i, nb);
      double excess = 0;  // max_j T_ij relu(theta_i(t) - hold start(theta_j(t - tau_ij)))
      for (const auto j : nb) {
        const double tau = edge_delay(c, i, j, 5);
        excess = std::max(excess, x[l] - hold_start(c, i, history.value(static_cast<std::size_t>(j), kT - tau), vp));
      }
      const double hold = std::min(1.0, vp / omega[l] * excess);
      EXPECT_NEAR(got[l], (omega[l] + zeta[l]) * (1.0 - hold), 1e-12) << "oscillator " << i;
      EXPECT_GE(got[l], 0.0) << "a held process never runs backwards";
      free += hold == 0 ? 1 : 0;
      ramp += hold > 0 && hold < 1 ? 1 : 0;
      stopped += hold == 1 ? 1 : 0;
      if (hold == 1) {
        EXPECT_EQ(got[l], 0.0) << "a full stop, whatever the noise";
      }
    }
    EXPECT_GT(free, 20);
    EXPECT_GT(ramp, 20);
    EXPECT_GT(stopped, 20);
  }
}

// Rank-like parts: the whole graph, three contiguous blocks with ghosts, and a strided set of rows
// whose couplings are all irregular. evaluate must be bitwise evaluate_ref, and RhsKernel must hand
// its delayed evaluations to the same code.
void check_tuned_equals_reference(const std::string& topology, int n, const std::string& noise, double jitter) {
  const SimConfig c = config(topology, n, noise, jitter);
  const Topology topo = Topology::from_config(c.topology, n);
  const auto owner_of = [n](std::int64_t id) { return static_cast<int>(id * 3 / n); };
  std::vector<std::vector<std::int64_t>> parts(4);
  for (std::int64_t i = 0; i < n; ++i) {
    parts[0].push_back(i);
    parts[1 + static_cast<std::size_t>(owner_of(i))].push_back(i);
  }
  std::vector<std::int64_t> strided;
  for (std::int64_t i = 1; i < n; i += 3) strided.push_back(i);
  parts.push_back(strided);
  for (const auto& ids : parts) {
    const LocalGraph g = build_local_graph(topo, ids, owner_of, false);
    std::vector<std::int64_t> columns;
    for (std::size_t k = 0; k < g.n_columns(); ++k) columns.push_back(g.column_id(static_cast<std::uint32_t>(k)));
    const DelayHistory history = history_of(c, columns);
    std::vector<double> omega, x, zeta;
    for (const auto i : g.local_ids) {
      omega.push_back(natural_frequency(c, i));
      x.push_back(phase(c, i, coupling_strength(c, topo)));
      zeta.push_back(noise_value(c, i, omega.back(), noise_interval(c)));
    }
    const double* z = noise == "none" ? nullptr : zeta.data();
    WaitKernel kernel(c, g, omega, coupling_strength(c, topo));
    std::vector<double> got(g.n_local()), want(g.n_local()), via_rhs(g.n_local());
    kernel.evaluate_ref(kT, x.data(), history, z, 3, want.data());
    kernel.evaluate(kT, x.data(), history, z, 3, got.data());
    const std::string what =
        topology + " rows=" + std::to_string(ids.size()) + " noise=" + noise + " jitter=" + std::to_string(jitter);
    ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(double))) << what;
    RhsKernel rhs(c, g, omega, coupling_strength(c, topo));
    rhs.set_intervals(noise_interval(c), 3);
    rhs.evaluate_delayed(kT, x.data(), history, via_rhs.data());
    ASSERT_EQ(0, std::memcmp(via_rhs.data(), want.data(), got.size() * sizeof(double))) << what << " (RhsKernel)";
  }
}

TEST(WaitKernel, TunedIsBitwiseTheReference) {
  const std::string edges = ::testing::TempDir() + "ripple_wait_edges.txt";
  std::FILE* f = std::fopen(edges.c_str(), "w");
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 500; ++i) std::fprintf(f, "%d %d\n%d %d\n", i, (i * 37 + 11) % 500, i, (i + 1) % 500);
  std::fclose(f);
  for (const char* noise : {"uniform", "none"})
    for (const double jitter : {0.0, 0.2}) {
      check_tuned_equals_reference("kind = \"chain\"\ndistances = [-1, 1]", 3001, noise, jitter);
      check_tuned_equals_reference("kind = \"ring\"\ndistances = [-1, 1, -2]", 2003, noise, jitter);
      check_tuned_equals_reference("kind = \"grid2d\"\ndims = [40, 50]\nperiodic = true", 2000, noise, jitter);
      check_tuned_equals_reference("kind = \"grid3d\"\ndims = [10, 12, 9]", 1080, noise, jitter);
      check_tuned_equals_reference("kind = \"file\"\nfile = \"" + edges + "\"", 500, noise, jitter);
    }
}

}  // namespace
}  // namespace ripple::model
