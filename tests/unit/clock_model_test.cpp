// The clock-synchronisation estimator on synthetic clocks with a known offset and drift.
#include "ripple/trace/clock_model.hpp"

#include <gtest/gtest.h>

#include <random>

namespace ripple::trace {
namespace {

// A rank whose clock reads local = (global - offset) / (1 + drift) talks to rank 0 over a link with
// random, asymmetric one-way delays of at least 1 microsecond.
struct SyntheticRank {
  double offset, drift;
  std::mt19937_64 rng{42};
  double local(double global) const { return (global - offset) / (1 + drift); }
  std::vector<PingPong> ping_pongs(double global_start, int n) {
    std::exponential_distribution<double> jitter(1.0 / 20e-6);
    std::vector<PingPong> out;
    double g = global_start;
    for (int k = 0; k < n; ++k) {
      const double there = 1e-6 + jitter(rng), back = 1e-6 + jitter(rng);
      out.push_back({local(g), g + there, local(g + there + back)});
      g += there + back + 1e-4;
    }
    return out;
  }
};

TEST(ClockModel, RecoversOffsetWithinTheRoundTripBound) {
  SyntheticRank r{0.25, 0.0};
  const OffsetSample s = estimate_offset(r.ping_pongs(10.0, 50));
  EXPECT_NEAR(s.offset, 0.25, s.error + 1e-12);
  EXPECT_LT(s.error, 10e-6);  // the shortest of 50 round trips is short
}

TEST(ClockModel, RecoversDriftBetweenInitAndFinalize) {
  SyntheticRank r{-3.0, 2e-5};
  const OffsetSample a = estimate_offset(r.ping_pongs(100.0, 50));
  const OffsetSample b = estimate_offset(r.ping_pongs(1100.0, 50));  // 1000 s later
  const ClockModel m(a, b);
  EXPECT_NEAR(m.drift(), 2e-5, 3 * (a.error + b.error) / 1000.0);
  // Any local time in between maps to the true global time within the estimates' error bounds.
  for (const double g : {150.0, 600.0, 1050.0}) EXPECT_NEAR(m.to_global(r.local(g)), g, a.error + b.error + 1e-9) << g;
}

TEST(ClockModel, NoSamplesIsAnError) { EXPECT_THROW(estimate_offset({}), std::invalid_argument); }

}  // namespace
}  // namespace ripple::trace
