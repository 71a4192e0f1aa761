// The TSC-to-CLOCK_MONOTONIC map against synthetic clocks: a 3 GHz counter and a reference with an
// injected offset, rate error, drift of its rate and a jump. The truth is the reference itself.
#include "ripple/trace/tick_clock.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

namespace ripple::trace {
namespace {

constexpr double kTrueRate = 1.0 / 3e9;                 // seconds per tick
constexpr std::uint64_t kTicksPerAnchor = 300'000'000;  // 0.1 s

TEST(TickClock, FollowsAnExactReference) {
  TickClock c;
  c.start(1'000'000, 5000.0, kTrueRate);
  EXPECT_DOUBLE_EQ(c.seconds(1'000'000), 5000.0);
  EXPECT_NEAR(c.seconds(1'000'000 + 3'000'000'000ULL), 5001.0, 1e-9);
  EXPECT_NEAR(c.seconds(1'000'000 - 3'000'000ULL), 4999.999, 1e-9);  // before the base: extrapolated back
}

TEST(TickClock, ConvergesFromACalibrationErrorAndStaysWithinTheDriftOfOneInterval) {
  // The reference: 2000 s at tick 0, a rate that drifts by 1 ppm per second.
  const auto ref = [](std::uint64_t tick) {
    const double t = static_cast<double>(tick) * kTrueRate;
    return 2000.0 + t + 0.5e-6 * t * t;
  };
  TickClock c;
  c.start(0, ref(0), kTrueRate * (1 + 2e-5));  // a 20 ppm calibration error
  double worst_late = 0;
  for (int k = 1; k <= 200; ++k) {  // 20 s
    const std::uint64_t tick = static_cast<std::uint64_t>(k) * kTicksPerAnchor;
    const double error = std::abs(c.seconds(tick) - ref(tick));
    if (k == 1) {
      EXPECT_GT(error, 1e-6);  // 0.1 s at 20 ppm
    }
    if (k > 3) worst_late = std::max(worst_late, error);
    c.anchor(tick, ref(tick));
  }
  // After the first anchors only the rate's change within one interval is left: 1 ppm/s * 0.1 s * 0.1 s.
  EXPECT_LT(worst_late, 3e-8);
}

TEST(TickClock, StaysMonotoneAndSlewsAtMostTheLimitAfterAReferenceJump) {
  TickClock c;
  c.start(0, 100.0, kTrueRate);
  double last = c.seconds(0);
  double jump = 0;
  for (int k = 1; k <= 40; ++k) {
    const std::uint64_t tick = static_cast<std::uint64_t>(k) * kTicksPerAnchor;
    if (k == 5) jump = -1e-3;  // the reference steps back by 1 ms (a VM pause, a clock step)
    for (std::uint64_t t = tick - kTicksPerAnchor; t <= tick; t += kTicksPerAnchor / 64) {
      const double v = c.seconds(t);
      ASSERT_GE(v, last) << "tick " << t;
      last = v;
    }
    const double ref = 100.0 + static_cast<double>(tick) * kTrueRate + jump;
    const double before = c.seconds(tick);
    c.anchor(tick, ref);
    EXPECT_DOUBLE_EQ(c.seconds(tick), before);  // continuous at the anchor
    // Within kMaxSlew of the rate since the start, which the step moved by 2e-3 at most.
    EXPECT_LE(std::abs(c.rate() / kTrueRate - 1), 2e-3 + TickClock::kMaxSlew * 1.01);
  }
  // Catching up 1 ms at 1e-3 of 0.1 s per interval takes 10 intervals; 35 have passed.
  const std::uint64_t end = 41 * kTicksPerAnchor;
  EXPECT_NEAR(c.seconds(end), 100.0 + static_cast<double>(end) * kTrueRate - 1e-3, 1e-9);
}

// The flusher anchors when it gets round to it: a flush between two anchors lengthens an interval,
// and the next one may be short again. A rate that meets the reference after the last interval,
// kept over a next one more than twice as long, overshoots by more than it corrected; intervals that
// alternate so (0.1 s, 0.3 s) made the map's distance to an exact reference grow to what the slew
// limit allows (180 microseconds). The truth: the reference, exact; a 1 ppm calibration error.
TEST(TickClock, StaysOnAnExactReferenceWhenItsIntervalsAlternateInLength) {
  for (const double longer : {0.2, 0.3, 0.5}) {
    TickClock c;
    c.start(0, 100.0, kTrueRate * (1 + 1e-6));
    std::uint64_t tick = 0;
    double worst = 0;
    for (int k = 1; k <= 400; ++k) {
      const auto interval = static_cast<std::uint64_t>((k % 2 != 0 ? 0.1 : longer) / kTrueRate);
      for (std::uint64_t t = tick; k > 20 && t < tick + interval; t += interval / 16)
        worst = std::max(worst, std::abs(c.seconds(t) - (100.0 + static_cast<double>(t) * kTrueRate)));
      tick += interval;
      c.anchor(tick, 100.0 + static_cast<double>(tick) * kTrueRate);
    }
    EXPECT_LT(worst, 1e-8) << "intervals of 0.1 and " << longer << " s";
  }
}

TEST(TickClock, IgnoresReadingsTooCloseOrBackwards) {
  TickClock c;
  c.start(1000, 1.0, kTrueRate);
  c.anchor(1000 + 3000, 1.0 + 5e-4);  // 1 microsecond of ticks, but 0.5 ms on the reference: too close
  EXPECT_DOUBLE_EQ(c.rate(), kTrueRate);
  c.anchor(500, 2.0);  // backwards
  EXPECT_DOUBLE_EQ(c.rate(), kTrueRate);
  EXPECT_DOUBLE_EQ(c.seconds(1000), 1.0);
}

TEST(TickClock, ReadersNeverSeeATornMap) {
  TickClock c;
  c.start(0, 10.0, kTrueRate);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int k = 1; k <= 20000 && !stop.load(); ++k) {
      const std::uint64_t tick = static_cast<std::uint64_t>(k) * 3'000'000;  // 1 ms apart
      c.anchor(tick, 10.0 + static_cast<double>(tick) * kTrueRate * (k % 2 != 0 ? 1 + 5e-4 : 1 - 5e-4));
    }
  });
  const std::uint64_t probe = 30'000'000'000ULL;  // 10 s: every map puts it within 10 ms of 20 s
  for (int i = 0; i < 200000; ++i) {
    const double v = c.seconds(probe);
    ASSERT_GT(v, 19.98);
    ASSERT_LT(v, 20.02);
  }
  stop = true;
  writer.join();
}

TEST(TickMap, GivesEachTickTheSecondsTheClockGaveItWhenItWasRead) {
  // The truth: what TickClock::seconds returned for a tick while the map of its time was current.
  // A drifting reference with a step, so that the pieces differ in rate and the slew is exercised.
  const auto ref = [](std::uint64_t tick) {
    const double t = static_cast<double>(tick) * kTrueRate;
    return 50.0 + t + 0.5e-6 * t * t + (t > 2.0 ? -2e-4 : 0.0);
  };
  TickClock c;
  c.start(0, ref(0), kTrueRate * (1 - 1e-5));
  std::vector<std::pair<std::uint64_t, double>> read;
  for (int k = 1; k <= 50; ++k) {
    const std::uint64_t tick = static_cast<std::uint64_t>(k) * kTicksPerAnchor;
    for (std::uint64_t t = tick - kTicksPerAnchor; t < tick; t += kTicksPerAnchor / 7 + 13) read.emplace_back(t, c.seconds(t));
    c.anchor(tick, ref(tick));
  }
  const TickMap map(c.segments());
  ASSERT_EQ(map.segments().size(), 51u);
  for (const auto& [tick, seconds] : read) ASSERT_DOUBLE_EQ(map.seconds(tick), seconds) << "tick " << tick;
  // Out of order (another thread's event, a search back), and before the first piece: extrapolated.
  EXPECT_DOUBLE_EQ(map.seconds(read[5].first), read[5].second);
  EXPECT_DOUBLE_EQ(map.seconds(read.back().first), read.back().second);
  const TickSegment first = map.segments().front();
  EXPECT_DOUBLE_EQ(TickMap({{1000, 7.0, 1e-9}}).seconds(0), 7.0 - 1e-6);
  EXPECT_DOUBLE_EQ(map.seconds(first.tick), first.seconds);
  // Continuous and monotone over the whole run.
  double last = map.seconds(0);
  for (std::uint64_t t = 0; t < 51 * kTicksPerAnchor; t += kTicksPerAnchor / 100) {
    const double v = map.seconds(t);
    ASSERT_GE(v, last) << t;
    last = v;
  }
  // The pieces published later than asked for.
  EXPECT_EQ(c.segments(49).size(), 2u);
  EXPECT_TRUE(c.segments(51).empty());
  // Released pieces are forgotten; the later ones keep their numbers and values.
  c.release(49);
  EXPECT_EQ(c.released(), 49u);
  ASSERT_EQ(c.segments().size(), 2u);
  EXPECT_EQ(c.segments(50).size(), 1u);
  EXPECT_DOUBLE_EQ(c.segments(50).front().seconds, map.segments()[50].seconds);
  c.release(10);  // never back
  EXPECT_EQ(c.released(), 49u);
  c.release(100);  // no further than what was published
  EXPECT_EQ(c.released(), 51u);
  EXPECT_TRUE(c.segments().empty());
  c.anchor(52 * kTicksPerAnchor, ref(52 * kTicksPerAnchor));
  ASSERT_EQ(c.segments(51).size(), 1u);
  EXPECT_DOUBLE_EQ(c.segments(51).front().seconds, map.seconds(52 * kTicksPerAnchor));
}

TEST(TickMap, AnEventsStampIsItsTickSinceTheOriginAndAnImpossibleOneIsNaN) {
  const TickMap map({{1000, 5.0, 1e-9}});  // from tick 1000 on: 5 s plus a nanosecond per tick
  EXPECT_DOUBLE_EQ(stamp_seconds(map, 1000, 0.0), 5.0);
  EXPECT_DOUBLE_EQ(stamp_seconds(map, 1000, 2e9), 7.0);
  EXPECT_DOUBLE_EQ(stamp_seconds(map, 1000, 2e9), map.seconds(1000 + 2'000'000'000u));
  for (const double impossible : {std::nan(""), 1e19, -1e19, HUGE_VAL})  // what a damaged raw record may hold
    EXPECT_TRUE(std::isnan(stamp_seconds(map, 1000, impossible))) << impossible;
}

}  // namespace
}  // namespace ripple::trace
