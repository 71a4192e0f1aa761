// The standard step-size controller against its defining formula (Hairer, Norsett and Wanner II.4).
#include "ripple/model/step_adjuster.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ripple::model {
namespace {

TEST(StandardStepAdjuster, ScalesBySafetyTimesErrorToTheMinusOneFifth) {
  StandardStepAdjuster a;
  EXPECT_DOUBLE_EQ(a.increase_step(1e-3, 0.7, 5), 1e-3 * 0.9 * std::pow(0.7, -0.2));  // shrinks a little
  EXPECT_LT(a.increase_step(1e-3, 0.7, 5), 1e-3);
  EXPECT_DOUBLE_EQ(a.increase_step(1e-3, 0.01, 5), 1e-3 * 0.9 * std::pow(0.01, -0.2));
  EXPECT_DOUBLE_EQ(a.decrease_step(1e-3, 2.0, 4), 1e-3 * 0.9 * std::pow(2.0, -0.2));  // error order 4: 1/5 too
}

TEST(StandardStepAdjuster, FactorsAreClampedAndZeroErrorGrowsByTheMaximum) {
  StandardStepAdjuster a;
  EXPECT_DOUBLE_EQ(a.increase_step(1.0, 1e-12, 5), 10.0);
  EXPECT_DOUBLE_EQ(a.increase_step(1.0, 0.0, 5), 10.0);
  EXPECT_DOUBLE_EQ(a.decrease_step(1.0, 1e9, 4), 0.2);
  EXPECT_DOUBLE_EQ(a.increase_step(1.0, 0.0, 5), 1.0);  // right after the rejection: no growth
}

TEST(StandardStepAdjuster, NoGrowthRightAfterARejectionAndItCountsRejections) {
  std::int64_t rejected = 0;
  StandardStepAdjuster a(0.0, &rejected);
  const double dt = a.decrease_step(1.0, 1.5, 4);
  EXPECT_EQ(rejected, 1);
  EXPECT_DOUBLE_EQ(a.increase_step(dt, 1e-6, 5), dt);                             // would grow tenfold
  EXPECT_DOUBLE_EQ(a.increase_step(dt, 0.9, 5), dt * 0.9 * std::pow(0.9, -0.2));  // shrinking is allowed
  EXPECT_DOUBLE_EQ(a.increase_step(dt, 1e-6, 5), dt * 10.0);                      // and growth again one step later
  EXPECT_EQ(rejected, 1);
}

TEST(StandardStepAdjuster, MaxDtLimitsEveryStepAndRejectsLargerOnes) {
  StandardStepAdjuster a(0.5);
  EXPECT_TRUE(a.check_step_size_limit(0.5));
  EXPECT_FALSE(a.check_step_size_limit(0.6));
  EXPECT_FALSE(a.check_step_size_limit(-0.6));
  EXPECT_DOUBLE_EQ(a.get_max_dt(), 0.5);
  EXPECT_DOUBLE_EQ(a.increase_step(0.4, 0.0, 5), 0.5);
  EXPECT_DOUBLE_EQ(a.increase_step(-0.4, 0.0, 5), -0.5);  // backwards in time
  EXPECT_TRUE(StandardStepAdjuster().check_step_size_limit(1e9));
}

}  // namespace
}  // namespace ripple::model
