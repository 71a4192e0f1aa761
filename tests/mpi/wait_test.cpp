// The one-sided `wait` potential against its analytic solutions (docs/model.md, "The wait
// potential"): a kicked pair, whose trajectory is known in closed form for any steepness v_p, and
// the idle wave of a kicked chain, bounded on both sides; a held process stays held under noise;
// and a noisy, jittered, kicked run gives the same bits on any number of ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "sim_fixture.hpp"

namespace ripple::test {
namespace {

using std::numbers::pi;

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// Lag behind free running, in seconds, of an oscillator that started at phase 0: t - theta / omega.
double lag(const SimRun& r, std::int64_t k, std::int64_t i) {
  return r.out->time()[static_cast<std::size_t>(k)] - r.phase(k, i) / r.out->omega()[static_cast<std::size_t>(i)];
}

// The pair: T = 1 s (t_comp 0.9, t_comm 0.1), tau = T, oscillator 0 kicked by d at t0. Oscillator 0
// is never held (its partner only falls behind). In seconds of phase, oscillator 1's excess over
// Delta is e = L_0(t - T) - L_1(t) - t_comm: it jumps from -t_comm to d - t_comm when the kick
// arrives at t1 = t0 + T, and then, while oscillator 0 runs freely, e' = -min(1, v_p e): a full stop
// until e = 1/v_p, then an exponential approach to e = 0 (rate v_p). So L_1 ends at exactly
// d - t_comm for any v_p; a finite steepness only delays the last 1/v_p of it.
double pair_lag(double t, double t1, double excess, double vp) {
  if (t <= t1) return 0.0;
  const double stop = excess - 1.0 / vp;  // how long the excess stays above 1/v_p
  if (stop <= 0) return excess * (1.0 - std::exp(-vp * (t - t1)));
  if (t <= t1 + stop) return t - t1;
  return excess - std::exp(-vp * (t - t1 - stop)) / vp;
}

std::string pair_config(const std::string& strength) {
  return "[model]\noscillators = 2\nt_comp = 0.9\nt_comm = 0.1\npotential = \"wait\"\n" + strength +
         "[[kick]]\noscillator = 0\ntime = 3.3\ndelay = 0.35\n[solver]\nrtol = 1e-12\natol = 1e-12\nt_end = 8.0\n"
         "[output]\ninterval = 0.01\niterations = true\n";
}

// The trajectory against the closed form at every stored time, for a ramp too soft to stop fully
// (v_p (d - t_comm) = 0.5), a soft one, the default (100 / T) and a steep one. The tolerance: the
// solver bounds each step's error by rtol = atol = 1e-12 of phases up to 50 rad, and takes at most
// 200 steps here, so the lag may be off by 200 * 5e-11 rad / omega = 2e-9 s; seen: at most 3e-10 s.
// (At the default rtol = 1e-8 the same sum allows 1e-5 s; seen: up to 3e-6 s, at t_end.)
TEST(WaitPair, FollowsTheClosedFormForAnySteepness) {
  const double t0 = 3.3, d = 0.35, t_comm = 0.1, period = 1.0;
  for (const double vp : {2.0, 20.0, 0.0, 1000.0}) {
    const SimRun r = run_sim(pair_config(vp > 0 ? "strength = " + num(vp) + "\n" : ""));
    const double steep = vp > 0 ? vp : 100.0 / period;
    double worst = 0;
    for (std::int64_t k = 0; k < r.out->times(); ++k) {
      const double t = r.out->time()[static_cast<std::size_t>(k)];
      EXPECT_NEAR(lag(r, k, 0), t >= t0 ? d : 0.0, 1e-9) << "v_p " << steep << " t " << t << ": oscillator 0 is never held";
      worst = std::max(worst, std::abs(lag(r, k, 1) - pair_lag(t, t0 + period, d - t_comm, steep)));
    }
    EXPECT_LT(worst, 1e-8) << "v_p " << steep;
    if (steep >= 20) {  // the tail has decayed: exactly d - t_comm behind
      EXPECT_NEAR(lag(r, r.out->times() - 1, 1), d - t_comm, 1e-8) << "v_p " << steep;
    }
    // Iteration ends: oscillator 0's move by d from the iteration it was kicked in (3, ending at
    // 4 s); oscillator 1's by d - t_comm from the one it was held in (4), once the steep hold is over.
    if (steep == 1000.0) {
      const std::vector<double> e = r.out->iteration_end();
      const std::int64_t kk = r.out->iterations();
      const auto end = [&](std::int64_t i, std::int64_t c) { return e[static_cast<std::size_t>(i * kk + c)]; };
      for (std::int64_t c = 0; c < 3; ++c) EXPECT_NEAR(end(0, c), c + 1.0, 1e-9);
      for (std::int64_t c = 3; c < 7; ++c) EXPECT_NEAR(end(0, c), c + 1.0 + d, 1e-9);
      for (std::int64_t c = 0; c < 4; ++c) EXPECT_NEAR(end(1, c), c + 1.0, 1e-9);
      for (std::int64_t c = 4; c < 7; ++c) EXPECT_NEAR(end(1, c), c + 1.0 + d - t_comm, 1e-9);
    }
  }
}

// With noise (which only slows a process down) a fully held process stands exactly still: its
// rate is (omega + zeta)(1 - H) = 0 whatever zeta is, so no stage of a step moves it.
TEST(WaitPair, AHeldProcessStaysHeldUnderNoise) {
  const SimRun r = run_sim(pair_config("") + "[noise]\nkind = \"exponential\"\namplitude = 0.01\n", {"output.iterations=false"});
  // The kick arrives at 4.3 s; the stop lasts about d - t_comm - 1/v_p = 0.24 s, give or take the
  // few hundredths of a second that noise of 1 % per period moved the two apart before.
  const auto at = [&](double t) { return static_cast<std::int64_t>(std::llround(t / 0.01)); };
  const double held = r.phase(at(4.32), 1);
  for (std::int64_t k = at(4.32); k <= at(4.42); ++k) EXPECT_EQ(r.phase(k, 1), held) << "step " << k;
  EXPECT_LT(r.phase(at(3.0), 0), 2 * pi * 3.0 - 1e-3) << "the noise is on";
  for (std::int64_t k = 1; k < r.out->times(); ++k)
    for (std::int64_t i = 0; i < 2; ++i) {
      if (i == 0 && k == at(3.3)) continue;  // the kick
      EXPECT_GE(r.phase(k, i), r.phase(k - 1, i)) << "never backwards";
    }
}

// A 16-chain (t_comp 2 ms, t_comm 0.1 ms), oscillator r = 5 kicked by D = 10 ms at t0 = 10.3 T.
// With an instant stop, hop h (oscillator r +- h) would lag I_h(t) = clip(t - t0 - hT - (h-1)
// t_comm, 0, D - h t_comm): hop 1 stops for D - t_comm when the kick arrives, and each further hop
// stops while its partner's lag, one period late, exceeds t_comm. Hop h+1 follows its input with
// its rate capped at a full stop and an error of at most 1/v_p while it ramps, so
// I_h - h/v_p <= L_h <= I_h at all times, and L_h ends at D - h t_comm. Hop h is held from
// t0 + hT + (h-1) t_comm + at most h/v_p: inside iteration 10 + h (this t0 keeps every start
// 0.1 T or more from an iteration's end), all of the hold but at most h/v_p in that one iteration.
TEST(WaitChain, AnIdleWaveMovesOneRankPerIterationLosingTcommPerHop) {
  const double t_comp = 2e-3, t_comm = 1e-4, period = t_comp + t_comm, big_d = 1e-2, t0 = 10.3 * period;
  const SimRun r =
      run_sim("[model]\noscillators = 16\nt_comp = " + num(t_comp) + "\nt_comm = " + num(t_comm) +
              "\npotential = \"wait\"\n[[kick]]\noscillator = 5\ntime = " + num(t0) + "\ndelay = " + num(big_d) +
              "\n[solver]\nrtol = 1e-10\natol = 1e-10\nt_end = 0.08\n[output]\ninterval = 1e-4\niterations = true\n");
  const double vp = 100.0 / period, eps = 1e-8;  // eps: the solver's error, as for the pair
  const std::vector<double> e = r.out->iteration_end();
  const std::int64_t kk = r.out->iterations();
  for (std::int64_t i = 0; i < 16; ++i) {
    const std::int64_t h = std::abs(i - 5);
    for (std::int64_t k = 0; k < r.out->times(); ++k) {
      const double t = r.out->time()[static_cast<std::size_t>(k)];
      if (h == 0) {
        EXPECT_NEAR(lag(r, k, i), t >= t0 ? big_d : 0.0, eps);
        continue;
      }
      const double ideal = std::clamp(t - t0 - h * period - (h - 1) * t_comm, 0.0, big_d - h * t_comm);
      EXPECT_LE(lag(r, k, i), ideal + eps) << "hop " << h << " t " << t;
      EXPECT_GE(lag(r, k, i), ideal - h / vp - eps) << "hop " << h << " t " << t;
    }
    if (h == 0) continue;
    EXPECT_NEAR(lag(r, r.out->times() - 1, i), big_d - h * t_comm, eps) << "hop " << h;
    // The excess time of each iteration over a free one: the wave's amplitude in iteration 10 + h.
    double before = 0;
    for (std::int64_t c = 0; c < kk; ++c) {
      const double end = e[static_cast<std::size_t>(i * kk + c)];
      if (std::isnan(end)) break;  // not reached by t_end
      const double wait = end - before - period;
      before = end;
      if (c == 10 + h) {
        EXPECT_LE(wait, big_d - h * t_comm + eps) << "hop " << h;
        EXPECT_GE(wait, big_d - h * t_comm - h / vp - eps) << "hop " << h;
      } else {
        EXPECT_LT(wait, h / vp + eps) << "hop " << h << " iteration " << c;
      }
    }
  }
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Noise, a jittered delay, a spread of frequencies, two kicks and a stencil with -2: the same bits
// on any number of ranks as on one, /iteration_end included.
TEST(WaitDecomposition, TheSameBitsOnAnyNumberOfRanks) {
  const std::string chain =
      "[model]\noscillators = 300\nt_comp = 9.0e-4\nt_comm = 1.0e-4\nfrequency_spread = 0.02\n"
      "frequency_distribution = \"normal\"\npotential = \"wait\"\n[topology]\nkind = \"chain\"\ndistances = [-1, 1, -2]\n"
      "[noise]\nkind = \"exponential\"\namplitude = 0.05\n[delay]\nmean = 1.0e-3\njitter = 5.0e-5\n"
      "[[kick]]\noscillator = 100\ntime = 0.002\ndelay = 0.003\n[[kick]]\noscillator = 201\ntime = 0.0035\ndelay = 0.0005\n"
      "[solver]\nt_end = 0.008\n[output]\ninterval = 1e-3\niterations = true\n";
  const SimRun world = run_sim(chain);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    const SimRun alone = run_sim(chain, {}, {}, MPI_COMM_SELF);
    EXPECT_TRUE(same_bits(alone.phases, world.phases));
    EXPECT_EQ(alone.out->iterations(), world.out->iterations());
    EXPECT_TRUE(same_bits(alone.out->iteration_end(), world.out->iteration_end()));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace ripple::test
