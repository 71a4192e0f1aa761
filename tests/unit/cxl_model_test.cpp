// Seed 003's model (IV-B1 weights, IV-A transfer, IV-C access formulas, the capacity plan) against
// values computed by hand from the paper's formulas and its parameters (V-B).
#include "ripple/analysis/cxl_model.hpp"

#include <gtest/gtest.h>

#include <random>

#include "ripple/analysis/cxl_machine.hpp"
#include "ripple/analysis/cxl_plan.hpp"
#include "ripple/common/error.hpp"

namespace ripple::analysis {
namespace {

void expect_weights(const Weights& got, const Weights& want) {
  for (int c = 0; c < kCategories; ++c) EXPECT_NEAR(got[c], want[c], 1e-12) << category_name(static_cast<Category>(c));
}

TEST(CxlWeights, RampAtAndBetweenItsBounds) {
  EXPECT_EQ(ramp_weight(0.03, 0.03, 0.33), 0);
  EXPECT_EQ(ramp_weight(0.01, 0.03, 0.33), 0);
  EXPECT_EQ(ramp_weight(0.33, 0.03, 0.33), 1);
  EXPECT_EQ(ramp_weight(0.9, 0.03, 0.33), 1);
  EXPECT_NEAR(ramp_weight(0.18, 0.03, 0.33), 0.25, 1e-15);  // ((0.18 - 0.03) / 0.3)^2
}

TEST(CxlWeights, EachCategoryAlone) {
  const Machine m = Machine::defaults();
  expect_weights(weights_from_metrics({0.5, 0, 0, 0}, m), {1, 0, 0, 0, 0});
  // MBW 0.25, Compute 0.5 * 0.75 = 0.375: normalised 0.4, 0.6.
  expect_weights(weights_from_metrics({0.18, 0, 0, 0}, m), {0.4, 0, 0, 0, 0.6});
  // MLAT ((0.105 - 0.01) / 0.19)^2 = 0.25.
  expect_weights(weights_from_metrics({0, 0.105, 0, 0}, m), {0, 0.4, 0, 0, 0.6});
  // CBW ((0.425 - 0.1) / 0.65)^2 = 0.25.
  expect_weights(weights_from_metrics({0, 0, 0.425, 0}, m), {0, 0, 0.4, 0, 0.6});
  // CLAT ((0.275 - 0.05) / 0.45)^2 = 0.25.
  expect_weights(weights_from_metrics({0, 0, 0, 0.275}, m), {0, 0, 0, 0.4, 0.6});
  expect_weights(weights_from_metrics({0, 0, 0, 0}, m), {0, 0, 0, 0, 1});  // nothing active: Compute
}

TEST(CxlWeights, Subtractions) {
  const Machine m = Machine::defaults();
  // MLAT 1 - MBW 0.25 = 0.75; the sum is 1, so Compute gets nothing.
  expect_weights(weights_from_metrics({0.18, 0.2, 0, 0}, m), {0.25, 0.75, 0, 0, 0});
  // MLAT 0.25 - MBW 1 < 0: 0.
  expect_weights(weights_from_metrics({0.33, 0.105, 0, 0}, m), {1, 0, 0, 0, 0});
  // CLAT 1 - (MBW 0 + MLAT 0 + CBW 0.25) = 0.75.
  expect_weights(weights_from_metrics({0, 0, 0.425, 0.5}, m), {0, 0, 0.25, 0.75, 0});
  // CLAT 1 - (0.25 + 0.75 + 0) < 0: 0.
  expect_weights(weights_from_metrics({0.18, 0.2, 0, 0.5}, m), {0.25, 0.75, 0, 0, 0});
}

TEST(CxlWeights, MixedUsesItsOwnMaximum) {
  Machine m = Machine::defaults();
  // MBW 0.25 and CBW 0.25 active: Compute = MIXED_MAX_WEIGHT * (1 - 0.5).
  expect_weights(weights_from_metrics({0.18, 0, 0.425, 0}, m), {1.0 / 3, 0, 1.0 / 3, 0, 1.0 / 3});
  m.set("MIXED_MAX_WEIGHT", {1, "given", "", 0});
  expect_weights(weights_from_metrics({0.18, 0, 0.425, 0}, m), {0.25, 0, 0.25, 0, 0.5});
}

TEST(CxlWeights, FromCounters) {
  const Machine m = Machine::defaults();
  CounterTotals c;
  c.loads = 1000;
  c.l1_misses = 50;   // CLAT 0.05: at its lower bound
  c.l3_misses = 105;  // MLAT 0.105
  c.memory_bytes = 0.18 * 73e9;
  c.seconds = 1;
  const Characterization ch = characterize(c, m);
  EXPECT_NEAR(ch.metric[0], 0.18, 1e-12);
  EXPECT_NEAR(ch.metric[1], 0.105, 1e-12);
  EXPECT_NEAR(ch.metric[2], 64 * 50 / 52e9, 1e-18);
  EXPECT_NEAR(ch.metric[3], 0.05, 1e-12);
  // MBW 0.25, MLAT 0.25 - 0.25 = 0: Compute 0.375.
  expect_weights(ch.weights, {0.4, 0, 0, 0, 0.6});
  c.mlat_scale = 64;  // the published tool's MLAT: 64 · L3_LDM / LD_INS
  c.l3_misses = 1;
  c.memory_bytes = 0;
  EXPECT_NEAR(characterize(c, m).metric[1], 0.064, 1e-12);
  c.loads = -1;
  EXPECT_THROW(characterize(c, m), InputError);
}

TEST(CxlWeights, FirstAccessKeepsMbwMlatCompute) {
  expect_weights(first_access_weights({0.2, 0.2, 0.2, 0.2, 0.2}), {1.0 / 3, 1.0 / 3, 0, 0, 1.0 / 3});
  expect_weights(first_access_weights({0, 0, 0.5, 0.5, 0}), {0, 0, 0, 0, 1});
}

TEST(CxlTransfer, HockneyTruncatedAndTwoAtomics) {
  const Machine m = Machine::defaults();
  EXPECT_EQ(mpi_transfer_ns(1000, m), 320 + 105);  // 1000e9 / 9.444e9 = 105.88
  EXPECT_EQ(mpi_transfer_ns(0, m), 320);
  EXPECT_EQ(cxl_transfer_ns(m), 860);
}

// IV-C with CXL_LAT 350, MEM_LAT 86 (delta 264), LPF_LAT 1.5, LPF_BW 3; a hit of 10 ns, an LFB sample
// of 40 ns, a miss of 100 ns.
class CxlAccess : public ::testing::Test {
protected:
  AccessParams p = AccessParams::of(Machine::defaults());
  double cxl(Category c, Bracket b, double lat) { return cxl_access_ns(c, b, lat, p); }
};

TEST_F(CxlAccess, MemoryLatency) {
  EXPECT_DOUBLE_EQ(cxl(Category::MLAT, Bracket::DemandHit, 10), 10 / 1.5);
  EXPECT_DOUBLE_EQ(cxl(Category::MLAT, Bracket::PrefetchHit, 10), 10 / 1.5);
  EXPECT_DOUBLE_EQ(cxl(Category::MLAT, Bracket::Lfb, 40), 304 / 1.5);
  EXPECT_DOUBLE_EQ(cxl(Category::MLAT, Bracket::Miss, 100), 350 / 1.5);
  EXPECT_DOUBLE_EQ(mpi_access_ns(Category::MLAT, 100, p), 100 / 1.5);
}

TEST_F(CxlAccess, MemoryBandwidth) {
  EXPECT_DOUBLE_EQ(cxl(Category::MBW, Bracket::DemandHit, 10), 10.0 / 3);
  EXPECT_DOUBLE_EQ(cxl(Category::MBW, Bracket::PrefetchHit, 10), 274.0 / 3);
  EXPECT_DOUBLE_EQ(cxl(Category::MBW, Bracket::Lfb, 40), 350.0 / 3);    // max(350, 304)
  EXPECT_DOUBLE_EQ(cxl(Category::MBW, Bracket::Miss, 100), 364.0 / 3);  // max(350, 364)
  EXPECT_DOUBLE_EQ(cxl(Category::MBW, Bracket::Hit, 10), (0.875 * 10 + 0.125 * 274) / 3);
  EXPECT_DOUBLE_EQ(mpi_access_ns(Category::MBW, 100, p), 100.0 / 3);
}

TEST_F(CxlAccess, CacheBandwidth) {
  EXPECT_DOUBLE_EQ(cxl(Category::CBW, Bracket::DemandHit, 10), 10.0 / 3);
  EXPECT_DOUBLE_EQ(cxl(Category::CBW, Bracket::PrefetchHit, 10), 274.0 / 3);
  EXPECT_DOUBLE_EQ(cxl(Category::CBW, Bracket::Lfb, 40), 40.0 / 3);
  EXPECT_DOUBLE_EQ(cxl(Category::CBW, Bracket::Miss, 100), 364.0 / 3);
  EXPECT_DOUBLE_EQ(cxl(Category::CBW, Bracket::Miss, 50), 350.0 / 3);  // max(350, 314)
}

TEST_F(CxlAccess, CacheLatency) {
  EXPECT_DOUBLE_EQ(cxl(Category::CLAT, Bracket::PrefetchHit, 10), 10 / 1.5);
  EXPECT_DOUBLE_EQ(cxl(Category::CLAT, Bracket::Lfb, 40), 40 / 1.5);
  EXPECT_DOUBLE_EQ(cxl(Category::CLAT, Bracket::Miss, 100), 350 / 1.5);
}

TEST_F(CxlAccess, Compute) {
  EXPECT_DOUBLE_EQ(cxl(Category::Compute, Bracket::Hit, 10), 10.0 / 3);
  EXPECT_DOUBLE_EQ(cxl(Category::Compute, Bracket::Lfb, 40), 172.0 / 3);  // 40 + 264 / 2
  EXPECT_DOUBLE_EQ(cxl(Category::Compute, Bracket::Miss, 100), 350.0 / 3);
}

TEST_F(CxlAccess, WeightedAndUnpack) {
  const Weights w{0, 0.5, 0, 0, 0.5};
  EXPECT_DOUBLE_EQ(cxl_access_ns(w, Bracket::Miss, 100, p), 0.5 * 350 / 1.5 + 0.5 * 350 / 3);
  EXPECT_DOUBLE_EQ(mpi_access_ns(w, 100, p), 0.5 * 100 / 1.5 + 0.5 * 100 / 3);
  // A quarter of the load from CXL, the rest from DDR at the sample's latency.
  EXPECT_NEAR(cxl_access_ns(w, Bracket::Miss, 100, p, 0.25),
              0.5 * (0.25 * 350 / 1.5 + 0.75 * 100 / 1.5) + 0.5 * (0.25 * 350 / 3 + 0.75 * 100 / 3), 1e-12);
}

TEST(CxlPlan, SmallCaseIsOptimal) {
  // Capacity 10: {4 B: 40, 3 B: 50} = 90 beats {4, 6} = 70 and {3, 6} = 80; the loss is never chosen.
  const Plan p = plan_capacity({{5, 10}, {4, 40}, {6, 30}, {3, 50}, {1, -5}}, 10);
  EXPECT_EQ(p.chosen, (std::vector<int>{1, 3}));
  EXPECT_EQ(p.bytes, 7);
  EXPECT_DOUBLE_EQ(p.benefit_ns, 90);
  EXPECT_TRUE(p.exact);
  EXPECT_TRUE(plan_capacity({{5, 10}}, 4).chosen.empty());
}

TEST(CxlPlan, MatchesBruteForce) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<PlanItem> items(1 + rng() % 10);
    for (auto& it : items) it = {static_cast<std::int64_t>(8 * (1 + rng() % 64)), static_cast<double>(rng() % 1000) - 100};
    const std::int64_t cap = 8 * (rng() % 200);
    double best = 0;
    for (unsigned mask = 0; mask < (1u << items.size()); ++mask) {
      std::int64_t bytes = 0;
      double gain = 0;
      for (std::size_t i = 0; i < items.size(); ++i)
        if (mask >> i & 1) bytes += items[i].bytes, gain += items[i].benefit_ns;
      if (bytes <= cap) best = std::max(best, gain);
    }
    const Plan p = plan_capacity(items, cap);
    EXPECT_DOUBLE_EQ(p.benefit_ns, best) << "trial " << trial;
    EXPECT_LE(p.bytes, cap);
  }
}

TEST(CxlMachine, RoundTripsAndRefuses) {
  Machine m = Machine::defaults();
  m.set("CXL_LAT", {123.5, "measured", "pointer chase, best of 5", 0.02});  // the paper's name
  const Machine back = parse_machine(machine_toml(m, "test"), "test.toml");
  for (const auto& [key, p] : m.params()) {
    EXPECT_EQ(back[key], p.value) << key;
    EXPECT_EQ(back.param(key).source, p.source) << key;
    EXPECT_EQ(back.param(key).how, p.how) << key;
  }
  EXPECT_EQ(back["CXL_REMOTE_LAT"], 123.5);
  EXPECT_THROW(parse_machine("[MPI_RECV_LAT]\nvalue = 1.0\n", "x.toml"), InputError);  // keys missing
  EXPECT_THROW(parse_machine(machine_toml(m, "") + "[NOPE]\nvalue = 1.0\n", "x.toml"), InputError);
  EXPECT_THROW(m.set_from_text("NOPE=1"), InputError);
  EXPECT_THROW(m.set_from_text("LPF_BW=abc"), InputError);
  m.set_from_text("MPI_LAT=1500");
  EXPECT_EQ(m["MPI_RECV_LAT"], 1500);
  EXPECT_EQ(m.param("MPI_RECV_LAT").source, "given");
}

}  // namespace
}  // namespace ripple::analysis
