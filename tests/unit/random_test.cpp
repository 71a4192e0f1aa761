#include "ripple/common/random.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ripple/model/config.hpp"
#include "ripple/model/oscillators.hpp"

namespace ripple::model {
namespace {

TEST(Random, CounterBasedAndWellSpread) {
  EXPECT_EQ(uniform01(7, Stream::Noise, 3, 4), uniform01(7, Stream::Noise, 3, 4));
  EXPECT_NE(uniform01(7, Stream::Noise, 3, 4), uniform01(7, Stream::Noise, 3, 5));
  EXPECT_NE(uniform01(7, Stream::Noise, 3, 4), uniform01(7, Stream::Delay, 3, 4));
  double sum = 0, sum2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double z = standard_normal(1, Stream::Noise, static_cast<std::uint64_t>(i), 0);
    sum += z;
    sum2 += z * z;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum2 / n, 1.0, 0.01);
}

TEST(Noise, MeanExtraTimeMatchesTheAmplitude) {
  SimConfig c;
  c.model.oscillators = 1;
  c.model.t_comp = {1.0};
  c.model.t_comm = {0.0};
  c.noise.amplitude = 0.1;
  for (NoiseKind kind : {NoiseKind::Exponential, NoiseKind::Uniform, NoiseKind::Normal}) {
    c.noise.kind = kind;
    const double omega = 2.0;
    double extra = 0;  // zeta = -omega e / (1 + e)  =>  e = -zeta / (omega + zeta)
    const int n = 100000;
    for (int k = 0; k < n; ++k) {
      const double z = noise_value(c, 0, omega, k);
      ASSERT_LE(z, 0.0);
      extra += -z / (omega + z);
    }
    EXPECT_NEAR(extra / n, 0.1, 0.002) << static_cast<int>(kind);
  }
}

TEST(Frequencies, GridSpreadIsEvenlySpaced) {
  SimConfig c;
  c.model.oscillators = 5;
  c.model.t_comp = {1.0};
  c.model.t_comm = {0.0};
  c.model.frequency_spread = 0.1;
  const double base = 2 * std::numbers::pi;
  EXPECT_DOUBLE_EQ(natural_frequency(c, 0), base * 0.9);
  EXPECT_DOUBLE_EQ(natural_frequency(c, 2), base);
  EXPECT_DOUBLE_EQ(natural_frequency(c, 4), base * 1.1);
}

}  // namespace
}  // namespace ripple::model
