#include "ripple/model/potential.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace ripple::model {
namespace {

TEST(Potential, BottleneckIsContinuousOddAndVanishesAtItsGap) {
  for (double sigma : {0.5, 1.0, std::numbers::pi / 2, std::numbers::pi}) {
    const BottleneckPotential v(sigma);
    EXPECT_NEAR(v(std::nextafter(sigma, 0.0)), v(sigma), 1e-12);
    EXPECT_NEAR(v(-std::nextafter(sigma, 0.0)), v(-sigma), 1e-12);
    EXPECT_DOUBLE_EQ(v(0.3 * sigma), -v(-0.3 * sigma));
    EXPECT_NEAR(v(std::numbers::pi / v.alpha), 0.0, 1e-15);  // the settled pair gap
    EXPECT_LT(v(0.1 * sigma), 0.0);                          // repulsive near zero
    EXPECT_DOUBLE_EQ(v(2 * sigma), 1.0);                     // attractive far out
  }
}

TEST(Potential, DispatchPicksTheFunctor) {
  EXPECT_DOUBLE_EQ(with_potential(Potential::Kuramoto, 1.0, [](auto v) { return v(0.5); }), std::sin(0.5));
  EXPECT_DOUBLE_EQ(with_potential(Potential::Tanh, 1.0, [](auto v) { return v(0.5); }), std::tanh(0.5));
}

}  // namespace
}  // namespace ripple::model
