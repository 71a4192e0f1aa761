// Idle waves in iteration tables made by the dependency (max-plus) recurrence of a bulk-synchronous
// run with eager messages, whose waves are known exactly: a delay d at rank s in iteration i makes
// the ranks h hops away wait d in iteration i + h - 1 (speed: the longest distance per iteration).
#include "ripple/analysis/waves.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

namespace ripple::analysis {
namespace {

struct ChainRun {
  int ranks = 16;
  std::vector<int> distances{-1, 1};
  bool periodic = false;
  int iterations = 40;
  double compute = 2e-3;
  std::vector<std::tuple<int, int, double>> delays;  // rank, iteration, seconds
  double noise_mean = 0;                             // exponential extra compute per iteration
  bool truth = true;                                 // the table carries the injected delays
};

int peer(const ChainRun& run, int r, int d) {
  const int p = r + d;
  if (run.periodic) return ((p % run.ranks) + run.ranks) % run.ranks;
  return p < 0 || p >= run.ranks ? -1 : p;
}

// Each rank's iteration: compute (plus injected work), eager sends to r + d, then wait for the
// messages from r - d, each sent when its sender's compute ended.
IterationTable max_plus(const ChainRun& run) {
  IterationTable t;
  t.resize(run.ranks, 0, run.iterations, false);
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> noise(run.noise_mean > 0 ? 1.0 / run.noise_mean : 1.0);
  std::vector<double> end(static_cast<std::size_t>(run.ranks), 0.0), sent(end.size());
  for (int k = 0; k < run.iterations; ++k) {
    std::vector<double> work(end.size(), run.compute);
    for (int r = 0; r < run.ranks; ++r) {
      double extra = run.noise_mean > 0 ? noise(rng) : 0.0;
      for (const auto& [dr, dk, ds] : run.delays)
        if (dr == r && dk == k) extra += ds;
      if (extra > 0 && run.truth) t.injected[{r, k}] += extra;
      work[static_cast<std::size_t>(r)] += extra;
      sent[static_cast<std::size_t>(r)] = end[static_cast<std::size_t>(r)] + work[static_cast<std::size_t>(r)];
    }
    for (int r = 0; r < run.ranks; ++r) {
      double e = sent[static_cast<std::size_t>(r)];
      for (const int d : run.distances)
        if (const int from = peer(run, r, -d); from >= 0) e = std::max(e, sent[static_cast<std::size_t>(from)]);
      const std::size_t at = t.at(r, k);
      t.compute[at] = work[static_cast<std::size_t>(r)];
      t.wait[at] = e - sent[static_cast<std::size_t>(r)];
      t.end[at] = e;
    }
    for (int r = 0; r < run.ranks; ++r) end[static_cast<std::size_t>(r)] = t.end[t.at(r, k)];
  }
  t.has_injected = run.truth;
  t.graph = CommGraph(run.ranks);
  for (int r = 0; r < run.ranks; ++r)
    for (const int d : run.distances)
      if (const int p = peer(run, r, d); p >= 0) t.graph.add_edge(r, p);
  t.graph.finish();
  t.graph.set_periodic(run.periodic);
  return t;
}

const Front& front(const Wave& w, const std::string& direction) {
  for (const Front& f : w.fronts)
    if (f.direction == direction) return f;
  throw std::runtime_error("no front " + direction);
}

TEST(Waves, OneDelayOnAChainTravelsOneRankPerIterationBothWays) {
  ChainRun run;
  run.delays = {{5, 10, 0.01}};
  const WavesResult w = analyze_waves(max_plus(run));
  ASSERT_EQ(w.sources.size(), 1u);
  EXPECT_EQ(w.sources[0].rank, 5);
  EXPECT_EQ(w.sources[0].iteration, 10);
  EXPECT_TRUE(w.sources[0].injected && w.sources[0].detected);
  EXPECT_EQ(w.detection.matched, 1);
  EXPECT_EQ(w.detection.false_alarms, 0);
  const Wave& wave = w.waves[0];
  for (const auto& [name, hops] : {std::pair{"down", 5}, std::pair{"up", 10}}) {
    const Front& f = front(wave, name);
    EXPECT_EQ(f.reached_hops, hops) << name;
    EXPECT_EQ(f.died_at_hop, -1) << name;
    EXPECT_NEAR(f.speed_iterations, 1.0, 1e-12) << name;
    EXPECT_NEAR(f.by_iteration.r2, 1.0, 1e-12) << name;
    EXPECT_NEAR(f.speed_seconds, 1.0 / 0.002, 1e-6) << name;  // one rank per undelayed period
    for (const Arrival& a : f.arrivals) {
      EXPECT_EQ(a.iteration, 10 + a.hop - 1) << name << " rank " << a.rank;  // the neighbours wait in the delay's own iteration
      EXPECT_NEAR(a.idle, 0.01, 1e-12);
    }
    EXPECT_NEAR(f.decay_per_hop, 0, 1e-12);
  }
  EXPECT_EQ(wave.resync_iteration, 20);  // rank 15 waits in iteration 19
  EXPECT_FALSE(w.desync.wavefront);
}

TEST(Waves, DistancesOneAndTwoDoubleTheSpeed) {
  ChainRun run;
  run.distances = {-1, 1, -2, 2};
  run.delays = {{5, 10, 0.01}};
  const WavesResult w = analyze_waves(max_plus(run));
  ASSERT_EQ(w.waves.size(), 1u);
  EXPECT_NEAR(front(w.waves[0], "down").speed_iterations, 2.0, 0.2);
  EXPECT_NEAR(front(w.waves[0], "up").speed_iterations, 2.0, 0.2);
  EXPECT_NEAR(front(w.waves[0], "all").speed_iterations, 1.0, 1e-12);  // one hop per iteration
}

TEST(Waves, APeriodicWavesFrontsMeetOnTheFarSideAndAnnihilate) {
  ChainRun run;
  run.periodic = true;
  run.delays = {{5, 10, 0.01}};
  const WavesResult w = analyze_waves(max_plus(run));
  ASSERT_EQ(w.meetings.size(), 1u);
  const Meeting& m = w.meetings[0];
  EXPECT_EQ(m.wave_a, 0);
  EXPECT_EQ(m.wave_b, 0);
  EXPECT_EQ(m.rank_a, 14);  // 7 hops down (5, 4, ..., 0, 15, 14)
  EXPECT_EQ(m.rank_b, 13);  // 8 hops up
  EXPECT_EQ(m.iteration, 17);
  EXPECT_EQ(m.residual_wave, -1);
  EXPECT_EQ(w.waves[0].resync_iteration, 18);
}

TEST(Waves, TwoEqualDelaysAnnihilateAndUnequalOnesLeaveTheirDifference) {
  ChainRun run;
  run.ranks = 24;
  run.delays = {{4, 10, 0.01}, {14, 10, 0.01}};
  WavesResult w = analyze_waves(max_plus(run));
  ASSERT_EQ(w.meetings.size(), 1u);
  EXPECT_EQ(w.meetings[0].residual_wave, -1);
  EXPECT_EQ(w.meetings[0].iteration, 14);  // they meet half way, at ranks 8 and 9 (or 9 and 10)
  run.delays = {{4, 10, 0.02}, {14, 10, 0.01}};
  w = analyze_waves(max_plus(run));
  ASSERT_EQ(w.meetings.size(), 1u);
  EXPECT_EQ(w.meetings[0].residual_wave, 0);        // the larger wave goes on ...
  EXPECT_NEAR(w.meetings[0].residual, 0.01, 1e-9);  // ... with the difference
}

TEST(Waves, NoiseDampsTheWave) {
  ChainRun quiet, noisy;
  quiet.ranks = noisy.ranks = 32;
  quiet.iterations = noisy.iterations = 60;
  quiet.delays = noisy.delays = {{2, 10, 0.02}};
  noisy.noise_mean = 1e-3;
  const WavesResult a = analyze_waves(max_plus(quiet)), b = analyze_waves(max_plus(noisy));
  // The noise is injected too, and its largest draws are sources of their own: the delay's wave.
  const auto of_delay = [](const WavesResult& w) -> const Wave& {
    for (const Wave& x : w.waves)
      if (x.source.rank == 2 && x.source.iteration == 10) return x;
    throw std::runtime_error("the delay is not among the sources");
  };
  const Front &fa = front(of_delay(a), "up"), &fb = front(of_delay(b), "up");
  EXPECT_NEAR(fa.decay_per_hop, 0, 1e-12);
  EXPECT_GT(fb.decay_per_hop, 1e-5);  // seconds of idle lost per hop
  EXPECT_LT(fb.amplitude.back(), fb.amplitude.front());
}

TEST(Waves, WithoutTruthTheDelaysAreDetected) {
  ChainRun run;
  run.truth = false;
  run.delays = {{5, 10, 0.01}};
  const WavesResult w = analyze_waves(max_plus(run));
  EXPECT_FALSE(w.detection.has_truth);
  ASSERT_EQ(w.sources.size(), 1u);
  EXPECT_TRUE(w.sources[0].detected && !w.sources[0].injected);
  EXPECT_EQ(w.sources[0].rank, 5);
  EXPECT_EQ(w.sources[0].iteration, 10);
  EXPECT_NEAR(w.sources[0].delay, 0.01, 1e-12);
}

TEST(Waves, OnAGridTheWaveTakesOneIterationPerHop) {
  IterationTable t;
  const int px = 4, py = 4, iterations = 30;
  t.resize(px * py, 0, iterations, false);
  t.graph = CommGraph(px * py);
  for (int r = 0; r < px * py; ++r) {
    if (r % px + 1 < px) t.graph.add_edge(r, r + 1);
    if (r / px + 1 < py) t.graph.add_edge(r, r + px);
  }
  t.graph.finish();
  // The max-plus recurrence over the grid's neighbours, a delay at (1, 1) in iteration 10.
  std::vector<double> end(16, 0.0), sent(16);
  for (int k = 0; k < iterations; ++k) {
    for (int r = 0; r < 16; ++r)
      sent[static_cast<std::size_t>(r)] = end[static_cast<std::size_t>(r)] + 0.002 + (r == 5 && k == 10 ? 0.01 : 0);
    for (int r = 0; r < 16; ++r) {
      double e = sent[static_cast<std::size_t>(r)];
      for (const int n : t.graph.neighbours(r)) e = std::max(e, sent[static_cast<std::size_t>(n)]);
      const std::size_t at = t.at(r, k);
      t.compute[at] = sent[static_cast<std::size_t>(r)] - end[static_cast<std::size_t>(r)];
      t.wait[at] = e - sent[static_cast<std::size_t>(r)];
      t.end[at] = e;
    }
    for (int r = 0; r < 16; ++r) end[static_cast<std::size_t>(r)] = t.end[t.at(r, k)];
  }
  const WavesResult w = analyze_waves(t);
  const Front& all = front(w.waves[0], "all");
  EXPECT_EQ(all.reached_hops, 4);  // (1, 1) to (3, 3)
  EXPECT_EQ(all.arrivals.size(), 15u);
  for (const Arrival& a : all.arrivals) EXPECT_EQ(a.iteration, 10 + a.hop - 1) << a.rank;
  EXPECT_NEAR(all.speed_iterations, 1.0, 1e-12);
}

TEST(Waves, CollectivesReachEveryRankInTheDelaysIteration) {
  ChainRun run;
  run.delays = {{3, 10, 0.01}};
  IterationTable t = max_plus(run);
  t.graph.set_all_to_all(true);  // as if an all-reduction followed the exchange
  // Under an all-reduction every rank waits for the delayed one in the same iteration.
  for (int r = 0; r < t.ranks; ++r)
    if (r != 3) t.wait[t.at(r, 10)] = 0.01;
  const WavesResult w = analyze_waves(t);
  const Front& all = front(w.waves[0], "all");
  EXPECT_EQ(all.reached_hops, 1);
  EXPECT_EQ(all.arrivals.size(), 15u);
  for (const Arrival& a : all.arrivals) EXPECT_EQ(a.iteration, 10);
}

TEST(Waves, APersistentLagGradientIsAWavefront) {
  IterationTable t;
  t.resize(8, 0, 20, false);
  t.graph = CommGraph(8);
  for (int r = 0; r + 1 < 8; ++r) t.graph.add_edge(r, r + 1);
  t.graph.finish();
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 20; ++k) {
      const std::size_t at = t.at(r, k);
      t.compute[at] = 0.002;
      t.wait[at] = 0;
      t.end[at] = 0.002 * (k + 1) + 0.0005 * r * std::min(k, 10);  // the lag grows to 0.5 ms per rank, then stays
    }
  const Desync d = desynchronisation(t, 2e-4);
  EXPECT_TRUE(d.wavefront);
  EXPECT_NEAR(d.gradient.back(), 0.005, 1e-12);
  EXPECT_NEAR(d.spread.back(), 0.035, 1e-12);
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 20; ++k) t.end[t.at(r, k)] = 0.002 * (k + 1);  // in step
  EXPECT_FALSE(desynchronisation(t, 2e-4).wavefront);
}

}  // namespace
}  // namespace ripple::analysis
