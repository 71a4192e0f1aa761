// The one-sided `wait` potential against its solution iteration by iteration (docs/model.md, "The
// wait potential"): a kicked pair and the idle wave of a kicked chain, iteration end by iteration
// end; a held process stays held under noise; and a noisy, jittered, kicked run gives the same bits
// on any number of ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "ripple/model/oscillators.hpp"
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

// The equation solved iteration by iteration (docs/model.md, "What it does"). Iteration m of a
// free process ends T after the last one; it posts t_comm before that end (a kick in its compute
// moves both by the delay). Its hold starts (1 + s)/v_p seconds before the end and then closes the
// gap to the full stop exponentially (rate v_p) until the last partner's post of iteration m is
// seen, tau after it was made; released, it runs freely again. So the end moves by
// g(u) = u - (1 - e^(-v_p u)) / v_p, u = release - hold start (0 if u <= 0). Valid while a hold
// starts after the process's own post ((1 + s)/v_p < t_comm), which every case here keeps.
// `ramp` false: the same with an instant stop s/v_p before the end, a lower bound. The solver may
// step over a hold shorter than its step (a follower creeping by under (1 + s)/v_p once a wave
// has passed): what it computes lies between the two, and on the upper one wherever it resolves
// every hold.
struct Kick {
  std::int64_t oscillator, iteration;
  double delay;
};
std::vector<std::vector<double>> iteration_ends(const std::vector<std::vector<std::int64_t>>& partners, double t_comp,
                                                double t_comm, double tau, double vp, const std::vector<Kick>& kicks,
                                                std::int64_t iterations, bool ramp) {
  const std::size_t n = partners.size();
  std::vector<std::vector<double>> end(n, std::vector<double>(static_cast<std::size_t>(iterations)));
  std::vector<double> last(n, 0.0), post(n);
  for (std::int64_t m = 0; m < iterations; ++m) {
    for (std::size_t i = 0; i < n; ++i) {
      post[i] = last[i] + t_comp;
      for (const Kick& k : kicks)
        if (static_cast<std::size_t>(k.oscillator) == i && k.iteration == m) post[i] += k.delay;
    }
    for (std::size_t i = 0; i < n; ++i) {
      double release = 0;
      for (const auto j : partners[i]) release = std::max(release, post[static_cast<std::size_t>(j)] + tau);
      const double free_end = post[i] + t_comm;
      const double u = release - (free_end - (1 + model::kWaitStopBefore) / vp);
      if (ramp)
        last[i] = free_end + (u > 0 ? u - (1 - std::exp(-vp * u)) / vp : 0.0);
      else
        last[i] = std::max(free_end, release + model::kWaitStopBefore / vp);
      end[i][static_cast<std::size_t>(m)] = last[i];
    }
  }
  return end;
}

// The simulator's end of every iteration against the two solutions above.
void expect_between_solutions(const SimRun& r, const std::vector<std::vector<std::int64_t>>& partners, double t_comp,
                              double t_comm, double tau, double vp, const std::vector<Kick>& kicks, std::int64_t iterations,
                              double eps) {
  const auto upper = iteration_ends(partners, t_comp, t_comm, tau, vp, kicks, iterations, true);
  const auto lower = iteration_ends(partners, t_comp, t_comm, tau, vp, kicks, iterations, false);
  const std::vector<double> e = r.out->iteration_end();
  for (std::size_t i = 0; i < partners.size(); ++i)
    for (std::int64_t c = 0; c < iterations; ++c) {
      const double got = e[i * static_cast<std::size_t>(r.out->iterations()) + static_cast<std::size_t>(c)];
      EXPECT_LE(got, upper[i][static_cast<std::size_t>(c)] + eps) << "v_p " << vp << " oscillator " << i << " iteration " << c;
      EXPECT_GE(got, lower[i][static_cast<std::size_t>(c)] - eps) << "v_p " << vp << " oscillator " << i << " iteration " << c;
    }
}

// The simulator's end of iteration c of oscillator i.
double sim_end(const SimRun& r, std::int64_t i, std::int64_t c) {
  return r.out->iteration_end()[static_cast<std::size_t>(i * r.out->iterations() + c)];
}

std::string pair_config(const std::string& strength) {
  return "[model]\noscillators = 2\nt_comp = 0.9\nt_comm = 0.1\npotential = \"wait\"\n" + strength +
         "[delay]\nmean = 0.03\n[[kick]]\noscillator = 0\ntime = 3.3\ndelay = 0.35\n[solver]\nrtol = 1e-12\natol = "
         "1e-12\nt_end = 8.0\n[output]\ninterval = 0.01\niterations = true\n";
}

// The pair: T = 1 s (t_comp 0.9, t_comm 0.1), tau = 0.03 s, oscillator 0 kicked by d = 0.35 s in
// iteration 3's compute. Oscillator 0 is never held (its partner only falls behind); oscillator 1
// waits in iteration 3 for d - (t_comm - tau), up to (1 + s)/v_p more. Every iteration end
// between the solutions above, the wait on the upper one, for a soft ramp, the default (100 / T)
// and a steep one. The tolerance: the solver bounds each step's error by rtol = atol =
// 1e-12 of phases up to 50 rad; crossings are located on its dense output.
TEST(WaitPair, FollowsTheIterationByIterationSolution) {
  const double d = 0.35, t_comm = 0.1, tau = 0.03;
  for (const double vp : {30.0, 0.0, 1000.0}) {
    const SimRun r = run_sim(pair_config(vp > 0 ? "strength = " + num(vp) + "\n" : ""));
    const double steep = vp > 0 ? vp : 100.0;
    expect_between_solutions(r, {{1}, {0}}, 0.9, t_comm, tau, steep, {{0, 3, d}}, 7, 1e-8);
    const double exact = iteration_ends({{1}, {0}}, 0.9, t_comm, tau, steep, {{0, 3, d}}, 4, true)[1][3];
    EXPECT_NEAR(sim_end(r, 1, 3), exact, 1e-8) << "v_p " << steep << ": the wait itself is resolved";
    for (std::int64_t c = 0; c < 3; ++c) EXPECT_NEAR(sim_end(r, 1, c), c + 1.0, 1e-8) << "free before the kick";
    const double wait = sim_end(r, 1, 3) - 4.0;
    EXPECT_GE(wait, d - (t_comm - tau) - 1e-8) << "v_p " << steep;
    EXPECT_LE(wait, d - (t_comm - tau) + 1.125 / steep + 1e-8) << "v_p " << steep;
    for (std::int64_t k = 0; k < r.out->times(); ++k) {
      const double t = r.out->time()[static_cast<std::size_t>(k)];
      EXPECT_NEAR(lag(r, k, 0), std::clamp(t - 3.3, 0.0, d), 1e-9)
          << "v_p " << steep << " t " << t << ": oscillator 0 stands still for d and is never held";
    }
  }
}

// With noise (which only slows a process down) a held process closes in on its stop and never
// crosses its iteration's end: its rate is (omega + zeta)(1 - H), and H reaches 1 at the stop.
TEST(WaitPair, AHeldProcessNeverCrossesItsIterationsEndUnderNoise) {
  const SimRun r = run_sim(pair_config("") + "[noise]\nkind = \"exponential\"\namplitude = 0.01\n", {"output.iterations=false"});
  // Oscillator 1 is held from about 3.99 s and released at 3.9 + 0.35 + 0.03 = 4.28 s, give or take
  // the few hundredths of a second that noise of 1 % per period moved the two apart before.
  const auto at = [&](double t) { return static_cast<std::int64_t>(std::llround(t / 0.01)); };
  const double omega = 2 * pi, vp = 100.0, end = 2 * pi * 4.0;
  for (std::int64_t k = at(4.08); k <= at(4.22); ++k) {
    EXPECT_LE(r.phase(k, 1), end - model::kWaitStopBefore * omega / vp) << "step " << k;
    EXPECT_GE(r.phase(k, 1), end - (1 + model::kWaitStopBefore) * omega / vp) << "step " << k;
  }
  EXPECT_GT(r.phase(at(4.5), 1), end) << "released";
  EXPECT_LT(r.phase(at(3.0), 0), 2 * pi * 3.0 - 1e-3) << "the noise is on";
  for (std::int64_t k = 1; k < r.out->times(); ++k)
    for (std::int64_t i = 0; i < 2; ++i) {
      EXPECT_GE(r.phase(k, i), r.phase(k - 1, i)) << "never backwards";
    }
}

// A 16-chain (t_comp 2 ms, t_comm 0.1 ms, tau 0.05 ms by default), oscillator 5 kicked by D = 10 ms
// in iteration 10's compute. Every iteration end between the solutions above; and what they say in
// words: hop h (oscillator 5 +- h) waits in iteration 10 + h - 1 (one rank per iteration) for
// D - h (t_comm - tau), up to h (1 + s)/v_p more, and at most that much in any other iteration.
TEST(WaitChain, AnIdleWaveMovesOneRankPerIterationLosingTheSlackPerHop) {
  const double t_comp = 2e-3, t_comm = 1e-4, tau = 5e-5, period = t_comp + t_comm, big_d = 1e-2;
  const SimRun r =
      run_sim("[model]\noscillators = 16\nt_comp = " + num(t_comp) + "\nt_comm = " + num(t_comm) +
              "\npotential = \"wait\"\n[[kick]]\noscillator = 5\ntime = " + num(10.3 * period) + "\ndelay = " + num(big_d) +
              "\n[solver]\nrtol = 1e-10\natol = 1e-10\nt_end = 0.08\n[output]\ninterval = 1e-4\niterations = true\n");
  const double vp = 100.0 / period, ramp = 1.125 / vp, eps = 1e-8;
  std::vector<std::vector<std::int64_t>> partners(16);
  for (std::int64_t i = 0; i < 16; ++i)
    for (const std::int64_t j : {i - 1, i + 1})
      if (j >= 0 && j < 16) partners[static_cast<std::size_t>(i)].push_back(j);
  const std::int64_t kk = 30;  // all reached by t_end
  expect_between_solutions(r, partners, t_comp, t_comm, tau, vp, {{5, 10, big_d}}, kk, eps);
  for (std::int64_t i = 0; i < 16; ++i) {
    const std::int64_t h = std::abs(i - 5);
    double before = 0;
    for (std::int64_t c = 0; c < kk; ++c) {
      const double end = sim_end(r, i, c);
      const double wait = end - before - period;
      before = end;
      if (h == 0) {
        EXPECT_NEAR(wait, c == 10 ? big_d : 0.0, eps) << "the kicked one is never held; iteration " << c;
      } else if (c == 10 + h - 1) {
        EXPECT_GE(wait, big_d - h * (t_comm - tau) - eps) << "hop " << h;
        EXPECT_LE(wait, big_d - h * (t_comm - tau) + h * ramp + eps) << "hop " << h;
      } else {
        EXPECT_LT(wait, h * ramp + eps) << "hop " << h << " iteration " << c;
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
      "[noise]\nkind = \"exponential\"\namplitude = 0.05\n[delay]\nmean = 5.0e-5\njitter = 2.0e-5\n"
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
