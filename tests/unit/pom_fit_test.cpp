// The oscillator model's configuration as `ripple compare` writes it from a fit: the simulator's
// own parser reads it back, with wait's own t_comm and latency, the kicks, and a t_end that holds
// every iteration and the delays.
#include "ripple/analysis/pom_fit.hpp"

#include <gtest/gtest.h>

#include "ripple/model/config.hpp"

namespace ripple::analysis {
namespace {

PomFit three_ranks() {
  PomFit f;
  f.oscillators = 3;
  f.t_comp = {2e-3, 2e-3, 2e-3};
  f.t_comm = {1e-4, 2e-4, 3e-4};
  f.edges = {{0, 1}, {1, 0}, {1, 2}, {2, 1}};
  f.own_comm = {2e-5, 3e-5, 2e-5};
  f.latency = 7e-5;
  f.iterations = 20;
  f.kicks.push_back({1, 10, 10 * 2.2e-3 + 1e-3, 0.01});
  return f;
}

TEST(PomFit, TheSimulatorReadsTheConfiguration) {
  const PomFit f = three_ranks();
  for (const char* potential : {"tanh", "wait"}) {
    const model::SimConfig c = model::parse_config(pom_config(f, potential, 5e4, "edges.txt", "pom.h5"), "fit");
    EXPECT_EQ(c.model.oscillators, 3);
    const bool wait = std::string(potential) == "wait";
    EXPECT_EQ(c.model.t_comm, wait ? f.own_comm : f.t_comm);
    EXPECT_DOUBLE_EQ(*c.model.strength, 5e4);
    ASSERT_EQ(c.kicks.size(), 1U);
    EXPECT_EQ(c.kicks[0].oscillator, 1);
    EXPECT_DOUBLE_EQ(c.kicks[0].delay, 0.01);
    EXPECT_TRUE(c.output.iterations);
    EXPECT_GE(c.solver.t_end, 21 * 2.3e-3 + 0.01) << "every iteration and the delay";
    EXPECT_EQ(c.delay.mean, wait ? f.latency : 0.0);
  }
}

}  // namespace
}  // namespace ripple::analysis
