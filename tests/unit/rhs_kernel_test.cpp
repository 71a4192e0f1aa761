// The right-hand-side kernel against a direct evaluation of the model equation.
#include "ripple/model/rhs_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "ripple/model/config.hpp"
#include "ripple/model/local_graph.hpp"
#include "ripple/model/oscillators.hpp"
#include "ripple/model/potential.hpp"

namespace ripple::model {
namespace {

SimConfig config(const std::string& potential, const std::string& topology) {
  return parse_config("[model]\noscillators = 60\nt_comp = 1.0\nfrequency_spread = 0.1\npotential = \"" + potential +
                          "\"\nsigma = 1.0\nnormalization = \"degree\"\nstrength = 3.0\n[topology]\n" + topology +
                          "\n[noise]\nkind = \"uniform\"\namplitude = 0.2\n[solver]\nt_end = 1.0\n",
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
    kernel.evaluate(t, x.data(), got.data());
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
  double s = 0, co = 0;
  for (const double v : x) {
    s += std::sin(v);
    co += std::cos(v);
  }
  std::vector<double> got(60);
  kernel.evaluate_mean_field(0.5, x.data(), s, co, got.data());
  for (int i = 0; i < 60; ++i) EXPECT_NEAR(got[static_cast<size_t>(i)], want[static_cast<size_t>(i)], 1e-12);
}

}  // namespace
}  // namespace ripple::model
