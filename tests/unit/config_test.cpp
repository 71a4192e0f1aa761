#include "ripple/model/config.hpp"

#include <gtest/gtest.h>

#include <numbers>

#include "ripple/common/error.hpp"
#include "ripple/model/oscillators.hpp"
#include "ripple/model/topology.hpp"

namespace ripple::model {
namespace {

const char* kMinimal = R"(
[model]
oscillators = 8
t_comp = 1e-3
[solver]
t_end = 0.01
)";

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_config(text, "test.toml", overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, DefaultsAreFilledInAndRecorded) {
  const SimConfig c = parse_config(kMinimal, "test.toml");
  EXPECT_EQ(c.model.oscillators, 8);
  EXPECT_EQ(c.model.potential, Potential::Tanh);
  EXPECT_EQ(c.topology.kind, TopologyKind::Chain);
  EXPECT_EQ(c.topology.distances, (std::vector<std::int64_t>{-1, 1}));
  EXPECT_DOUBLE_EQ(c.mean_period(), 1e-3);
  // The resolved configuration holds every key, so that it alone reproduces the run.
  const SimConfig again = parse_config(c.resolved_toml, "resolved.toml");
  EXPECT_EQ(again.resolved_toml, c.resolved_toml);
  EXPECT_NE(c.resolved_toml.find("potential"), std::string::npos);
}

TEST(Config, OverridesParseTomlValuesAndBareWords) {
  const SimConfig c =
      parse_config(kMinimal, "test.toml", {"model.potential=kuramoto", "model.oscillators=16", "topology.distances=[-1,1,-2]"});
  EXPECT_EQ(c.model.potential, Potential::Kuramoto);
  EXPECT_EQ(c.model.oscillators, 16);
  EXPECT_EQ(c.topology.distances.size(), 3u);
  EXPECT_NE(error_of(kMinimal, {"nodot=1"}).find("section.key=value"), std::string::npos);
}

TEST(Config, KappaIsAModeOrANumberAndStrengthIsOptional) {
  EXPECT_EQ(parse_config(kMinimal, "t", {"model.kappa=max"}).model.kappa_mode, KappaMode::Max);
  const SimConfig c = parse_config(kMinimal, "t", {"model.kappa=2.5", "model.strength=40"});
  EXPECT_EQ(c.model.kappa_mode, KappaMode::Value);
  EXPECT_DOUBLE_EQ(c.model.kappa_value, 2.5);
  EXPECT_DOUBLE_EQ(*c.model.strength, 40.0);
}

TEST(Config, IterationsAreOffUnlessAskedFor) {
  const SimConfig off = parse_config(kMinimal, "test.toml");
  EXPECT_FALSE(off.output.iterations);
  EXPECT_NE(off.resolved_toml.find("iterations = false"), std::string::npos);  // recorded with its default
  const SimConfig on = parse_config(std::string(kMinimal) + "[output]\niterations = true\n", "test.toml");
  EXPECT_TRUE(on.output.iterations);
  EXPECT_TRUE(parse_config(on.resolved_toml, "resolved.toml").output.iterations);
  EXPECT_TRUE(parse_config(kMinimal, "t", {"output.iterations=true"}).output.iterations);
  EXPECT_NE(error_of(kMinimal, {"output.iterations=1"}).find("[output] iterations: expected true or false"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"output.iterations=\"yes\""}).find("[output] iterations: expected true or false"),
            std::string::npos);
}

// `wait`: a message is seen its latency after it is posted (tau = half the mean t_comm unless
// [delay] says otherwise), there is no sum to normalise, and v_p is the steepness of the hold.
TEST(Config, WaitDefaultsToALatencyOfHalfTcommAndNoNormalisation) {
  const std::vector<std::string> wait{"model.potential=wait", "model.t_comm=2e-4",
                                      "model.t_comp=[1e-3, 1e-3, 1e-3, 1e-3, 3e-3, 3e-3, 3e-3, 3e-3]"};
  const SimConfig c = parse_config(kMinimal, "t", wait);
  EXPECT_EQ(c.model.potential, Potential::Wait);
  EXPECT_DOUBLE_EQ(c.delay.mean, 1e-4);  // half the mean t_comm
  EXPECT_EQ(c.model.normalization, Normalization::None);
  // The resolved configuration records both and reproduces them.
  const SimConfig again = parse_config(c.resolved_toml, "resolved.toml");
  EXPECT_EQ(again.delay.mean, c.delay.mean);
  EXPECT_EQ(again.model.normalization, Normalization::None);
  EXPECT_EQ(again.resolved_toml, c.resolved_toml);
  const Topology chain = Topology::from_config(c.topology, c.model.oscillators);
  EXPECT_DOUBLE_EQ(coupling_strength(c, chain), kWaitStrengthPerPeriod / 2.2e-3);
  EXPECT_DOUBLE_EQ(wait_post_phase(c, 0), 2 * std::numbers::pi * 1e-3 / 1.2e-3);
  EXPECT_DOUBLE_EQ(wait_post_phase(c, 7), 2 * std::numbers::pi * 3e-3 / 3.2e-3);
  // [delay] and strength override; other potentials keep no delay.
  EXPECT_DOUBLE_EQ(parse_config(kMinimal, "t", {"model.potential=wait", "model.t_comm=1e-4", "delay.mean=5e-4"}).delay.mean,
                   5e-4);
  const SimConfig strong = parse_config(kMinimal, "t", {"model.potential=wait", "model.t_comm=1e-4", "model.strength=7"});
  EXPECT_DOUBLE_EQ(coupling_strength(strong, chain), 7.0);
  EXPECT_EQ(parse_config(kMinimal, "t").delay.mean, 0.0);
}

TEST(Config, WaitRefusesWhatItCannotMean) {
  EXPECT_NE(error_of(kMinimal, {"model.potential=wait", "model.normalization=N"})
                .find("test.toml: [model] normalization: potential = \"wait\" holds a process for its latest partner"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.potential=wait", "model.normalization=degree"}).find("[model] normalization"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.potential=wait", "model.t_comm=1e-4", "delay.mean=0"})
                .find("[delay] mean: potential = \"wait\" needs a positive delay"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.potential=wait", "delay.mean=1e-4"})
                .find("[model] t_comm: potential = \"wait\" needs t_comm > 0 for every oscillator"),
            std::string::npos);
  // Times that do not fit the oscillators are named as such, not as a delay problem.
  EXPECT_NE(error_of(kMinimal, {"model.potential=wait", "model.t_comp=[1e-3, 1e-3]"}).find("[model] t_comp: has 2 values"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.potential=wait", "model.t_comp=0"}).find("[model] t_comp + t_comm: must be positive"),
            std::string::npos);
}

TEST(Config, BadInputNamesTheKey) {
  EXPECT_NE(error_of(kMinimal, {"model.oscilators=3"}).find("[model] oscilators: unknown key"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.oscillators=0"}).find("[model] oscillators"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.oscillators=\"ten\""}).find("expected an integer, got a string"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.t_comp=-1"}).find("[model] t_comp"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.t_comp=nan"}).find("finite"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.t_comp=[1.0, 2.0]"}).find("give one number or an array of 8"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"model.potential=spring"}).find("unknown value \"spring\""), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"topology.kind=grid2d", "topology.dims=[3,3]"}).find("product 9 differs"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"topology.distances=[0]"}).find("[topology] distances"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"solver.t_end=-1"}).find("[solver] t_end"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"delay.mean=1e-3", "delay.jitter=2e-3"}).find("[delay] jitter"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[[kick]]\noscillator = 8\ntime = 0\ndelay = 1\n").find("out of range"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "[extra]\nx = 1\n").find("unknown section [extra]"), std::string::npos);
  EXPECT_NE(error_of("[model]\noscillators = \n").find("TOML syntax error"), std::string::npos);
  EXPECT_NE(error_of("[model]\noscillators = 4\n[solver]\nt_end=1\n").find("[model] t_comp: is required"), std::string::npos);
}

TEST(Config, FirstChangedKeyNamesTheKey) {
  const SimConfig a = parse_config(kMinimal, "a.toml");
  EXPECT_EQ(first_changed_key(a.resolved_toml, a.resolved_toml), "");
  EXPECT_EQ(first_changed_key(a.resolved_toml, parse_config(kMinimal, "b.toml", {"solver.rtol=1e-7"}).resolved_toml),
            "solver.rtol");
  EXPECT_EQ(first_changed_key(a.resolved_toml, parse_config(kMinimal, "b.toml", {"output.flush_seconds=5"}).resolved_toml,
                              "output.flush_seconds"),
            "");
  const std::string kicked = std::string(kMinimal) + "[[kick]]\noscillator = 1\ntime = 0.001\ndelay = 1e-4\n";
  EXPECT_EQ(first_changed_key(parse_config(kicked, "a.toml").resolved_toml,
                              parse_config(kicked, "b.toml", {"model.t_comm=1e-4"}).resolved_toml),
            "model.t_comm");
  EXPECT_EQ(first_changed_key(a.resolved_toml, parse_config(kicked, "b.toml").resolved_toml), "kick");
}

}  // namespace
}  // namespace ripple::model
