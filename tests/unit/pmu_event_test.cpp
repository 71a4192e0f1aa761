// sysfs PMU event descriptions into perf_event_attr fields, on a synthetic sysfs tree shaped like
// an Intel core PMU's (the machine running the tests need not have one).
#include "ripple/trace/pmu_event.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ripple::trace {
namespace {

namespace fs = std::filesystem;

class PmuEventTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ripple-pmu-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "events");
    fs::create_directories(dir_ / "format");
    put("type", "4\n");
    put("format/event", "config:0-7\n");
    put("format/umask", "config:8-15\n");
    put("format/ldlat", "config1:0-15\n");
    put("format/wide", "config:0-7,32-35\n");
    put("format/inv", "config:23\n");
    put("events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
    put("events/mem-loads-aux", "event=0x03,umask=0x82\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void put(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  fs::path dir_;
};

TEST_F(PmuEventTest, TermsGoWhereTheFormatSays) {
  std::string why;
  const auto e = read_pmu_event(dir_.string(), "mem-loads", {}, why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(e->type, 4u);
  EXPECT_EQ(e->config[0], 0x1cdu);
  EXPECT_EQ(e->config[1], 3u);
  EXPECT_EQ(e->config[2], 0u);
  const auto aux = read_pmu_event(dir_.string(), "mem-loads-aux", {}, why);
  ASSERT_TRUE(aux) << why;
  EXPECT_EQ(aux->config[0], 0x8203u);  // the auxiliary event perf uses as the group leader
}

TEST_F(PmuEventTest, OverridesReplaceTerms) {
  std::string why;
  const auto e = read_pmu_event(dir_.string(), "mem-loads", {{"ldlat", 30}}, why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(e->config[1], 30u);
}

TEST_F(PmuEventTest, SplitRangesAndFlagsWithoutValues) {
  put("events/odd", "wide=0x1cd,inv\n");
  std::string why;
  const auto e = read_pmu_event(dir_.string(), "odd", {}, why);
  ASSERT_TRUE(e) << why;
  // Low 8 bits of 0x1cd into bits 0-7, the next ones into 32-35; a bare term is 1.
  EXPECT_EQ(e->config[0], 0xcdu | (std::uint64_t{1} << 32) | (std::uint64_t{1} << 23));
}

TEST_F(PmuEventTest, MissingPiecesSayWhy) {
  std::string why;
  EXPECT_FALSE(read_pmu_event((dir_ / "nope").string(), "mem-loads", {}, why));
  EXPECT_NE(why.find("no PMU"), std::string::npos) << why;
  EXPECT_FALSE(read_pmu_event(dir_.string(), "mem-stores", {}, why));
  EXPECT_NE(why.find("no event 'mem-stores'"), std::string::npos) << why;
  put("events/bad", "cmask=2\n");
  EXPECT_FALSE(read_pmu_event(dir_.string(), "bad", {}, why));
  EXPECT_NE(why.find("'cmask'"), std::string::npos) << why;
  put("events/junk", "event=zz\n");
  EXPECT_FALSE(read_pmu_event(dir_.string(), "junk", {}, why));
  put("format/event", "config3:0-7\n");
  EXPECT_FALSE(read_pmu_event(dir_.string(), "mem-loads", {}, why));
}

}  // namespace
}  // namespace ripple::trace
