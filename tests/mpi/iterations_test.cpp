// /iteration_end (`[output] iterations`): against analytic crossing times of free oscillators, under
// kicks, and against a serial reference that writes everything at the end.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "sim_fixture.hpp"

namespace ripple::test {
namespace {

using std::numbers::pi;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Seven free oscillators (strength 0) of different frequencies; dopri5's error estimate is zero for
// them, so its steps grow tenfold each time and soon span many levels.
std::string free_config(const std::string& method, const std::string& initial, double t_end) {
  return "[model]\noscillators = 7\nt_comp = 1.0\nfrequency_spread = 0.3\nstrength = 0\n" + initial + "[solver]\nmethod = \"" +
         method + "\"\ndt = 0.0137\nt_end = " + std::to_string(t_end) + "\n[output]\ninterval = 0.5\niterations = true\n";
}

double at(const std::vector<double>& e, std::int64_t k_count, std::int64_t i, std::int64_t k) {
  return k < k_count ? e[static_cast<std::size_t>(i * k_count + k)] : std::nan("");
}

void expect_same_time(double got, double want, const std::string& what) {
  if (std::isnan(want))
    EXPECT_TRUE(std::isnan(got)) << what;
  else
    EXPECT_NEAR(got, want, 1e-9 * want) << what;
}

// (a) θ_i = θ_i(0) + ω_i t reaches 2π(k+1) at (2π(k+1) - θ_i(0)) / ω_i; levels at or below θ_i(0)
// (random phases up to 9 rad) were passed before the start: NaN, as are those beyond t_end.
TEST(IterationEnd, FreeOscillatorsCrossWhereTheLineDoes) {
  for (const std::string method : {"dopri5", "rk4"}) {
    const double t_end = 23.3;
    const SimRun r = run_sim(free_config(method, "[initial]\nkind = \"random\"\nspread = 9.0\n", t_end), {}, {0.5, 2});
    ASSERT_TRUE(r.out->has_iteration_end());
    const auto omega = r.out->omega();
    const std::vector<double> e = r.out->iteration_end();
    const std::int64_t k_count = r.out->iterations();
    std::int64_t k_expected = 0, passed = 0;
    for (std::int64_t i = 0; i < r.n; ++i) {
      const double theta0 = r.phase(0, i), w = omega[static_cast<std::size_t>(i)];
      const auto levels = static_cast<std::int64_t>(std::floor((theta0 + w * t_end) / (2 * pi)));
      k_expected = std::max(k_expected, levels);
      for (std::int64_t k = 0; k < std::max(levels, k_count); ++k) {
        const double level = 2 * pi * static_cast<double>(k + 1);
        const double got = at(e, k_count, i, k);
        if (level <= theta0 || k >= levels) {
          EXPECT_TRUE(std::isnan(got)) << method << " oscillator " << i << " level " << k;
          passed += level <= theta0 ? 1 : 0;
          continue;
        }
        const double t = (level - theta0) / w;
        EXPECT_NEAR(got, t, 1e-9 * t) << method << " oscillator " << i << " level " << k;
      }
    }
    EXPECT_EQ(k_count, k_expected) << method;
    EXPECT_GT(passed, 0) << "no oscillator started above 2π: the NaN rule went untested";
    EXPECT_EQ(r.stats.iterations, k_count);
  }
}

// (b) A kick of d seconds moves every later crossing of its oscillator by d and nothing else; a kick
// at t = 0 acts on the initial state, so all of them move.
TEST(IterationEnd, AKickMovesTheLaterCrossingsByItsDelay) {
  for (const std::string method : {"dopri5", "rk4"}) {
    // Oscillator 3 is the middle of the grid of frequencies: omega = 2π, crossings at 1, 2, 3 s.
    const double t_end = 9.6, kick_time = 3.3, delay = 0.7, early = 0.45;
    const std::string base = free_config(method, "", t_end);
    const SimRun free = run_sim(base, {}, {0.5, 2});
    const SimRun kicked = run_sim(
        base + "[[kick]]\noscillator = 3\ntime = 3.3\ndelay = 0.7\n" + "[[kick]]\noscillator = 4\ntime = 0.0\ndelay = 0.45\n", {},
        {0.5, 2});
    const std::vector<double> a = free.out->iteration_end(), b = kicked.out->iteration_end();
    const std::int64_t ka = free.out->iterations(), kb = kicked.out->iterations();
    EXPECT_EQ(ka, kb) << method;  // the fastest, oscillator 6, is not kicked
    std::int64_t moved = 0, kept = 0;
    for (std::int64_t i = 0; i < free.n; ++i) {
      const double shift = i == 4 ? early : delay;
      for (std::int64_t k = 0; k < ka; ++k) {
        const double before = at(a, ka, i, k), after = at(b, kb, i, k);
        const std::string what = method + " oscillator " + std::to_string(i) + " level " + std::to_string(k);
        if ((i != 3 && i != 4) || (i == 3 && before < kick_time)) {
          expect_same_time(after, before, what);
          kept += i == 3 ? 1 : 0;
        } else if (before + shift < t_end - 1e-6) {
          EXPECT_NEAR(after - before, shift, 1e-9 * before) << what;
          ++moved;
        } else if (before + shift > t_end + 1e-6) {
          EXPECT_TRUE(std::isnan(after)) << what << ": reached after t_end";
        }
      }
    }
    EXPECT_EQ(kept, 3) << method;
    EXPECT_GE(moved, 13) << method;  // oscillator 3 at 4.7 .. 8.7 s, oscillator 4 at 8 levels
  }
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// (c) A coupled chain with noise, a jittered communication delay and kicks gives the same bits on
// any number of ranks, written every half period with a window of 3 columns (the row kicked by 4.5
// periods falls out of it and takes the single-cell way), as one rank with the defaults (one write
// at the end); and iterations change nothing else.
TEST(IterationEnd, TheSameOnAnyNumberOfRanksWhenWrittenInPieces) {
  const std::string chain =
      "[model]\noscillators = 600\nt_comp = 9.0e-4\nt_comm = 1.0e-4\nfrequency_spread = 0.05\n"
      "frequency_distribution = \"normal\"\npotential = \"tanh\"\n[topology]\nkind = \"chain\"\ndistances = [-1, 1, -2]\n"
      "[noise]\nkind = \"exponential\"\namplitude = 0.05\n[delay]\nmean = 2.0e-4\njitter = 1.0e-4\n"
      "[[kick]]\noscillator = 150\ntime = 0.002\ndelay = 0.0045\n[[kick]]\noscillator = 451\ntime = 0.004\ndelay = 0.0005\n"
      "[initial]\nkind = \"random\"\nspread = 1.0\n[solver]\nt_end = 0.012\n[output]\ninterval = 1e-3\n";
  for (const std::string method : {"dopri5", "rk4"}) {
    const std::vector<std::string> set{"solver.method=" + method, "solver.dt=2e-5"};
    std::vector<std::string> on = set;
    on.push_back("output.iterations=true");
    const SimRun world = run_sim(chain, on, {0.5, 3});
    const SimRun without = run_sim(chain, set);
    EXPECT_FALSE(without.out->has_iteration_end());
    EXPECT_TRUE(same_bits(world.phases, without.phases)) << method << ": iterations changed /phase";
    const std::vector<double> e = world.out->iteration_end();
    const std::int64_t k = world.out->iterations();
    EXPECT_GE(k, 10) << method;
    // Every row's crossings rise with k and lie in (0, t_end]; the 4.5-period kick left row 150
    // at least four levels short of its neighbours.
    for (std::int64_t i = 0; i < world.n; ++i) {
      double last = 0;
      for (std::int64_t c = 0; c < k; ++c) {
        const double t = e[static_cast<std::size_t>(i * k + c)];
        if (std::isnan(t)) continue;
        EXPECT_GT(t, last) << method << " oscillator " << i << " level " << c;
        EXPECT_LE(t, 0.012);
        last = t;
      }
    }
    const auto reached = [&](std::int64_t i) {
      std::int64_t n = 0;
      for (std::int64_t c = 0; c < k; ++c) n += std::isnan(e[static_cast<std::size_t>(i * k + c)]) ? 0 : 1;
      return n;
    };
    EXPECT_LE(reached(150) + 4, reached(10)) << method;
    if (world_rank() == 0) {
      const SimRun alone = run_sim(chain, on, {}, MPI_COMM_SELF);
      EXPECT_EQ(alone.out->iterations(), k) << method;
      EXPECT_TRUE(same_bits(alone.out->iteration_end(), e)) << method << ": /iteration_end differs from one rank's";
      EXPECT_TRUE(same_bits(alone.phases, world.phases)) << method;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

}  // namespace
}  // namespace ripple::test
