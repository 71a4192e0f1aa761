// The model against analytic results (acceptance points 1-6 of the simulator).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "sim_fixture.hpp"

namespace ripple::test {
namespace {

using std::numbers::pi;

// Two oscillators coupled both ways; omega_0 = 2 pi + dw, omega_1 = 2 pi (t_comp = 2 pi / omega).
std::string pair_config(double dw, double k, const std::string& potential, double t_end, double interval) {
  return "[model]\noscillators = 2\nt_comp = [" + std::to_string(2 * pi / (2 * pi + dw)) + ", 1.0]\n" + "potential = \"" +
         potential + "\"\nnormalization = \"none\"\nstrength = " + std::to_string(k) +
         "\n[solver]\nrtol = 1e-11\natol = 1e-11\nt_end = " + std::to_string(t_end) +
         "\n[output]\ninterval = " + std::to_string(interval) + "\n";
}

// Adler: phi = theta_0 - theta_1 obeys phi' = dw - 2K sin(phi).
TEST(Adler, LocksAtArcsin) {
  const double k = 1.0, dw = 1.0;
  const SimRun r = run_sim(pair_config(dw, k, "kuramoto", 40.0, 0.5));
  const std::int64_t last = r.out->times() - 1;
  // t_comp printed with 6 digits: use the stored omegas for the exact frequency difference.
  const auto omega = r.out->omega();
  EXPECT_NEAR(r.phase(last, 0) - r.phase(last, 1), std::asin((omega[0] - omega[1]) / (2 * k)), 1e-6);
}

TEST(Adler, SlipsWithThePredictedPeriod) {
  const double k = 1.0, dw = 3.0;
  const SimRun r = run_sim(pair_config(dw, k, "kuramoto", 30.0, 1e-3));
  const auto omega = r.out->omega();
  const double d = omega[0] - omega[1];
  const double expected = 2 * pi / std::sqrt(d * d - 4 * k * k);
  const auto t = r.out->time();
  // Times at which phi crosses multiples of 2 pi (phi grows monotonically when dw > 2K).
  std::vector<double> crossings;
  for (std::int64_t s = 1; s < r.out->times(); ++s) {
    const double a = r.phase(s - 1, 0) - r.phase(s - 1, 1);
    const double b = r.phase(s, 0) - r.phase(s, 1);
    const double level = 2 * pi * std::ceil(a / (2 * pi));
    if (a < level && b >= level)
      crossings.push_back(t[static_cast<size_t>(s - 1)] +
                          (level - a) / (b - a) * (t[static_cast<size_t>(s)] - t[static_cast<size_t>(s - 1)]));
  }
  ASSERT_GE(crossings.size(), 5u);
  const double period = (crossings.back() - crossings[1]) / static_cast<double>(crossings.size() - 2);
  EXPECT_NEAR(period / expected, 1.0, 0.005);
}

TEST(Adler, TanhLocksAtArtanh) {
  const double k = 1.0, dw = 1.0;
  const SimRun r = run_sim(pair_config(dw, k, "tanh", 40.0, 0.5));
  const auto omega = r.out->omega();
  const std::int64_t last = r.out->times() - 1;
  EXPECT_NEAR(r.phase(last, 0) - r.phase(last, 1), std::atanh((omega[0] - omega[1]) / (2 * k)), 1e-6);
}

// Open Kuramoto chain (Strogatz and Mirollo 1988): full locking iff K >= K_L.
struct ChainCase {
  std::vector<double> omega;
  double mean = 0;
  double k_lock = 0;
  std::string config(double k) const {
    std::string t = "[";
    for (size_t i = 0; i < omega.size(); ++i) t += (i ? ", " : "") + fmt_double(2 * pi / omega[i]);
    return "[model]\noscillators = " + std::to_string(omega.size()) + "\nt_comp = " + t + "]\npotential = \"kuramoto\"\n" +
           "normalization = \"none\"\nstrength = " + fmt_double(k) + "\n[solver]\nrtol = 1e-13\natol = 1e-11\nt_end = 1500\n" +
           "[output]\ninterval = 10.0\n";
  }
  static std::string fmt_double(double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
  }
};

ChainCase make_chain() {
  ChainCase c;
  const double base = 3.0;  // every omega stays positive
  for (const double d : {0.3, -0.5, 0.1, 0.6, -0.2, -0.4, 0.35, -0.1}) c.omega.push_back(base + 4.0 * d);
  return c;
}

// K_L from the frequencies the simulator actually used (they pass through t_comp).
double locking_threshold(const std::vector<double>& omega, double& mean) {
  mean = std::accumulate(omega.begin(), omega.end(), 0.0) / static_cast<double>(omega.size());
  double partial = 0, k_lock = 0;
  for (size_t i = 0; i + 1 < omega.size(); ++i) {
    partial += omega[i] - mean;
    k_lock = std::max(k_lock, std::abs(partial));
  }
  return k_lock;
}

TEST(KuramotoChain, LocksAboveThresholdWithTheAnalyticPhaseDifferences) {
  ChainCase c = make_chain();
  c.k_lock = locking_threshold(c.omega, c.mean);
  const SimRun r = run_sim(c.config(1.02 * c.k_lock));
  const auto omega = r.out->omega();
  double mean = 0;
  const double k_lock = locking_threshold(omega, mean);
  const double k = 1.02 * c.k_lock;
  ASSERT_NEAR(k_lock, c.k_lock, 1e-12);
  const std::int64_t last = r.out->times() - 1;
  double partial = 0;
  for (std::int64_t i = 0; i + 1 < r.n; ++i) {
    partial += mean - omega[static_cast<size_t>(i)];
    EXPECT_NEAR(std::sin(r.phase(last, i + 1) - r.phase(last, i)), partial / k, 1e-6) << "edge " << i;
  }
}

TEST(KuramotoChain, DriftsBelowThreshold) {
  ChainCase c = make_chain();
  c.k_lock = locking_threshold(c.omega, c.mean);
  const SimRun r = run_sim(c.config(0.98 * c.k_lock));
  const std::int64_t last = r.out->times() - 1;
  const std::int64_t half = last / 2;
  // Some pair of neighbours keeps slipping: its phase difference grows without bound.
  double slip = 0;
  for (std::int64_t i = 0; i + 1 < r.n; ++i) {
    const double late = r.phase(last, i + 1) - r.phase(last, i);
    const double mid = r.phase(half, i + 1) - r.phase(half, i);
    slip = std::max(slip, std::abs(late - mid));
  }
  EXPECT_GT(slip, 2 * pi);
}

// All-to-all Kuramoto with evenly spaced frequencies on [-gamma, gamma] (normalization N).
std::string all_to_all(double k, double t_end) {
  const double gamma = 1.0;  // base omega = 2 pi, spread gamma / (2 pi)
  return "[model]\noscillators = 2000\nt_comp = 1.0\nfrequency_spread = " + ChainCase::fmt_double(gamma / (2 * pi)) +
         "\nfrequency_distribution = \"grid\"\npotential = \"kuramoto\"\nnormalization = \"N\"\nstrength = " +
         ChainCase::fmt_double(k) +
         "\n[topology]\nkind = \"all\"\n[solver]\nrtol = 1e-8\natol = 1e-8\nt_end = " + ChainCase::fmt_double(t_end) +
         "\n[output]\ninterval = 0.5\n";
}

TEST(KuramotoAllToAll, LockedBranchOrderParameter) {
  // u = 0.5: r = (sqrt(1 - u^2) + asin(u) / u) / 2 at K = gamma / (u r).
  const double u = 0.5;
  const double r_expected = 0.5 * (std::sqrt(1 - u * u) + std::asin(u) / u);
  const SimRun r = run_sim(all_to_all(1.0 / (u * r_expected), 60.0));
  EXPECT_NEAR(r_expected, 0.9566, 1e-4);
  EXPECT_NEAR(r.stats.final_order_parameter / r_expected, 1.0, 0.01);
}

TEST(KuramotoAllToAll, IncoherentBelowCriticalCoupling) {
  const SimRun r = run_sim(all_to_all(1.1, 200.0));
  const auto t = r.out->time();
  const auto order = r.out->order_parameter();
  double sum = 0;
  int count = 0;
  for (size_t s = 0; s < t.size(); ++s)
    if (t[s] >= 100.0) {
      sum += order[s];
      ++count;
    }
  EXPECT_LT(sum / count, 0.2);
}

// Two identical delayed oscillators lock in phase at Omega = omega - K sin(Omega tau).
TEST(Delay, InPhaseLockedFrequency) {
  const double k = 1.0, tau = 0.1, omega = 2 * pi;
  const SimRun r = run_sim(
      "[model]\noscillators = 2\nt_comp = 1.0\npotential = \"kuramoto\"\nnormalization = \"none\"\n"
      "strength = 1.0\n[delay]\nmean = 0.1\n[solver]\nrtol = 1e-11\natol = 1e-11\nt_end = 40\n"
      "[output]\ninterval = 0.5\n");
  double big = omega;  // Newton for Omega
  for (int it = 0; it < 50; ++it) big -= (big - omega + k * std::sin(big * tau)) / (1 + k * tau * std::cos(big * tau));
  const auto t = r.out->time();
  const std::int64_t last = r.out->times() - 1;
  const double slope =
      (r.phase(last, 0) - r.phase(last - 10, 0)) / (t[static_cast<size_t>(last)] - t[static_cast<size_t>(last - 10)]);
  EXPECT_NEAR(slope, big, 1e-6);
  EXPECT_NEAR(r.phase(last, 0), r.phase(last, 1), 1e-9);
}

std::string kicked_pair(const std::string& potential) {
  // A small gap from a kick at t = 0: oscillator 1 falls behind by 0.01 s (0.0628 rad).
  return "[model]\noscillators = 2\nt_comp = 1.0\npotential = \"" + potential +
         "\"\nsigma = 1.5707963267948966\nnormalization = \"none\"\nstrength = 1.0\n[[kick]]\noscillator = 1\ntime = 0.0\n"
         "delay = 0.01\n[solver]\nrtol = 1e-11\natol = 1e-11\nt_end = 40\n[output]\ninterval = 1.0\n";
}

TEST(Bottleneck, PairSettlesAtPiOverAlpha) {
  const SimRun r = run_sim(kicked_pair("bottleneck"));
  const double alpha = 3 * pi / (2 * (pi / 2));
  const std::int64_t last = r.out->times() - 1;
  EXPECT_NEAR(r.phase(0, 0) - r.phase(0, 1), 0.02 * pi, 1e-12);
  EXPECT_NEAR(r.phase(last, 0) - r.phase(last, 1), pi / alpha, 1e-6);
}

TEST(Bottleneck, TanhPairClosesTheGap) {
  const SimRun r = run_sim(kicked_pair("tanh"));
  const std::int64_t last = r.out->times() - 1;
  EXPECT_NEAR(r.phase(last, 0) - r.phase(last, 1), 0.0, 1e-6);
}

// Chain of 64, one kick: an idle wave. Scalable (tanh) codes resynchronise; bottlenecked ones form
// a computational wavefront.
std::string kicked_chain(const std::string& potential) {
  return "[model]\noscillators = 64\nt_comp = 9e-4\nt_comm = 1e-4\npotential = \"" + potential +
         "\"\nsigma = 1.5707963267948966\nnormalization = \"none\"\n[[kick]]\noscillator = 16\ntime = 0.01\ndelay = 0.003\n"
         "[solver]\nt_end = 3.0\n[output]\ninterval = 1e-3\n";
}

TEST(IdleWave, TanhChainResynchronises) {
  const SimRun r = run_sim(kicked_chain("tanh"));
  const auto t = r.out->time();
  const double kick_phase = 2 * pi * 3.0;  // 3 periods
  // Soon after the kick the neighbours lag behind a distant oscillator: the wave spreads.
  bool spread_seen = false;
  for (std::int64_t s = 0; s < r.out->times(); ++s)
    if (t[static_cast<size_t>(s)] > 0.01 && t[static_cast<size_t>(s)] < 0.05 &&
        r.phase(s, 63) - r.phase(s, 17) > 0.1 * kick_phase)
      spread_seen = true;
  EXPECT_TRUE(spread_seen);
  EXPECT_LT(r.stats.final_phase_spread, 1e-3);  // and decays completely
}

TEST(IdleWave, BottleneckChainFormsAWavefront) {
  const SimRun r = run_sim(kicked_chain("bottleneck"));
  const std::int64_t last = r.out->times() - 1;
  const auto spread_at = [&](std::int64_t s) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (std::int64_t i = 0; i < r.n; ++i) {
      lo = std::min(lo, r.phase(s, i));
      hi = std::max(hi, r.phase(s, i));
    }
    return hi - lo;
  };
  EXPECT_GT(spread_at(last), 1.0);
  EXPECT_GT(spread_at(last), 0.9 * spread_at(last / 2));  // it never returns to zero
}

// Stored times: every interval from 0, and the final state even when the interval does not divide t_end.
TEST(Output, StoresEveryIntervalAndTheFinalState) {
  const SimRun r = run_sim(pair_config(0.5, 1.0, "tanh", 1.0, 0.3));
  const auto t = r.out->time();
  ASSERT_EQ(t.size(), 5u);
  EXPECT_DOUBLE_EQ(t[1], 0.3);
  EXPECT_DOUBLE_EQ(t[3], 0.9);
  EXPECT_DOUBLE_EQ(t[4], 1.0);
  EXPECT_DOUBLE_EQ(r.stats.final_time, 1.0);
  // The stored final row is the final state the summary describes.
  EXPECT_NEAR(std::max(r.phase(4, 0), r.phase(4, 1)) - std::min(r.phase(4, 0), r.phase(4, 1)), r.stats.final_phase_spread, 1e-15);
}

// rk4 keeps its fourth order with piecewise-constant noise and a kicked, delayed coupling: the
// driver restarts at every point where the right-hand side jumps.
TEST(Rk4, FourthOrderWithNoiseKicksAndDelay) {
  const std::string base =
      "[model]\noscillators = 6\nt_comp = 1.0\nfrequency_spread = 0.05\npotential = \"tanh\"\nnormalization = \"none\"\n"
      "strength = 1.0\n[topology]\nkind = \"ring\"\n[noise]\nkind = \"uniform\"\namplitude = 0.2\ninterval = 0.25\n"
      "[delay]\nmean = 0.1\n[[kick]]\noscillator = 2\ntime = 0.3\ndelay = 0.05\n[solver]\nt_end = 2.0\n[output]\ninterval = "
      "2.0\n";
  const SimRun ref = run_sim(base, {"solver.rtol=1e-13", "solver.atol=1e-13"});
  const auto error = [&](double dt) {
    const SimRun r = run_sim(base, {"solver.method=rk4", "solver.dt=" + std::to_string(dt)});
    double e = 0;
    for (std::int64_t i = 0; i < r.n; ++i) e = std::max(e, std::abs(r.phase(1, i) - ref.phase(1, i)));
    return e;
  };
  const double coarse = error(1.0 / 40), fine = error(1.0 / 80);
  EXPECT_GT(coarse / fine, 12.0) << coarse << " " << fine;  // 16 for fourth order, 2 for first
}

}  // namespace
}  // namespace ripple::test
