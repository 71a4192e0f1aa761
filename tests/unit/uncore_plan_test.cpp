// Uncore counter discovery on a synthetic sysfs tree with two memory-controller PMUs whose cpumask
// names one CPU per package (CPU 0 for package 0, CPU 2 for package 1), as on a two-socket Intel server.
#include "ripple/trace/uncore_plan.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ripple::trace {
namespace {

namespace fs = std::filesystem;

class UncorePlanTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ripple-uncore-" + std::to_string(::getpid()));
    for (const char* pmu : {"uncore_imc_0", "uncore_imc_1"}) {
      fs::create_directories(root_ / pmu / "events");
      fs::create_directories(root_ / pmu / "format");
      put(std::string(pmu) + "/type", pmu[11] == '0' ? "17\n" : "18\n");
      put(std::string(pmu) + "/cpumask", "0,2\n");
      put(std::string(pmu) + "/format/event", "config:0-7\n");
      put(std::string(pmu) + "/format/umask", "config:8-15\n");
      put(std::string(pmu) + "/events/cas_count_read", "event=0x04,umask=0x03\n");
      put(std::string(pmu) + "/events/cas_count_write", "event=0x04,umask=0x0c\n");
    }
    fs::create_directories(root_ / "cpu");  // not an uncore PMU: ignored
  }
  void TearDown() override { fs::remove_all(root_); }
  void put(const std::string& name, const std::string& text) { std::ofstream(root_ / name) << text; }
  fs::path root_;
};

TEST_F(UncorePlanTest, EveryChannelOnTheCpuOfThisPackage) {
  const auto plans = plan_uncore(root_.string(), {"cas_count_read", "cas_count_write"}, {2, 3});
  ASSERT_EQ(plans.size(), 2u);
  for (const auto& p : plans) {
    EXPECT_TRUE(p.why.empty()) << p.why;
    ASSERT_EQ(p.counters.size(), 2u);
    EXPECT_EQ(p.counters[0].pmu, "uncore_imc_0");
    EXPECT_EQ(p.counters[1].pmu, "uncore_imc_1");
    EXPECT_EQ(p.counters[0].event.type, 17u);
    EXPECT_EQ(p.counters[1].event.type, 18u);
    for (const auto& c : p.counters) EXPECT_EQ(c.cpu, 2);
  }
  EXPECT_EQ(plans[0].counters[0].event.config[0], 0x0304u);
  EXPECT_EQ(plans[1].counters[0].event.config[0], 0x0c04u);
  EXPECT_EQ(plan_uncore(root_.string(), {"cas_count_read"}, {0, 1})[0].counters[0].cpu, 0);
}

TEST_F(UncorePlanTest, OnePmuByName) {
  const auto plans = plan_uncore(root_.string(), {"uncore_imc_1/cas_count_write"}, {0});
  ASSERT_EQ(plans.size(), 1u);
  ASSERT_EQ(plans[0].counters.size(), 1u);
  EXPECT_EQ(plans[0].counters[0].pmu, "uncore_imc_1");
}

TEST_F(UncorePlanTest, MissingEventsPackagesAndPmusSayWhy) {
  auto plans = plan_uncore(root_.string(), {"no_such_event"}, {0});
  EXPECT_TRUE(plans[0].counters.empty());
  EXPECT_NE(plans[0].why.find("no uncore PMU with the event 'no_such_event'"), std::string::npos) << plans[0].why;
  plans = plan_uncore(root_.string(), {"cas_count_read"}, {5});
  EXPECT_TRUE(plans[0].counters.empty());
  EXPECT_NE(plans[0].why.find("no CPU of its cpumask"), std::string::npos) << plans[0].why;
  plans = plan_uncore((root_ / "absent").string(), {"cas_count_read"}, {0});
  EXPECT_TRUE(plans[0].counters.empty());
  EXPECT_FALSE(plans[0].why.empty());
}

}  // namespace
}  // namespace ripple::trace
