// Which event samples memory loads, described from synthetic sysfs trees shaped like the kernel's
// (an Intel core PMU with and without mem-loads-aux, a hybrid part's cpu_core, AMD's ibs_op with
// and without its swfilt and cnt_ctl formats, none at all): the perf_event_attr fields that the
// sampler opens, which no test on this PMU-less machine could otherwise see.
#include "sample_event.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ripple::trace::detail {
namespace {

namespace fs = std::filesystem;

class SampleEventTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ripple-sample-event-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void put(const std::string& name, const std::string& text) {
    fs::create_directories((root_ / name).parent_path());
    std::ofstream(root_ / name) << text;
  }
  void intel_core(const std::string& pmu, bool aux) {
    put(pmu + "/type", "4\n");
    put(pmu + "/format/event", "config:0-7\n");
    put(pmu + "/format/umask", "config:8-15\n");
    put(pmu + "/format/ldlat", "config1:0-15\n");
    put(pmu + "/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
    if (aux) put(pmu + "/events/mem-loads-aux", "event=0x03,umask=0x82\n");
  }
  bool describe(const std::string& event, SampleEventSpec& spec, std::string& why, std::uint64_t period = 4000) {
    return describe_sample_event(event, period, 30, root_.string(), spec, why);
  }
  fs::path root_;
};

TEST_F(SampleEventTest, PebsLoadLatencyTakesTheThresholdAndTheAuxLeaderWhereSysfsHasIt) {
  intel_core("cpu", true);
  SampleEventSpec spec;
  std::string why;
  ASSERT_TRUE(describe("auto", spec, why)) << why;
  EXPECT_EQ(spec.sample.type, 4u);
  EXPECT_EQ(spec.sample.config, 0x1cdu);
  EXPECT_EQ(spec.sample.config1, 30u);  // ldlat replaced the event's own 3
  EXPECT_EQ(spec.sample.precise_ip, 2u);
  EXPECT_EQ(spec.sample.sample_period, 4000u);
  EXPECT_EQ(spec.sample.exclude_kernel, 1u);
  EXPECT_EQ(spec.sample.use_clockid, 1u);
  EXPECT_EQ(spec.sample.clockid, CLOCK_MONOTONIC);
  EXPECT_TRUE(spec.led);
  EXPECT_EQ(spec.leader.type, 4u);
  EXPECT_EQ(spec.leader.config, 0x8203u);
  EXPECT_EQ(spec.leader.size, sizeof(perf_event_attr));
  EXPECT_FALSE(spec.loads_only);
  EXPECT_NE(spec.what.find("led by mem-loads-aux"), std::string::npos) << spec.what;
}

TEST_F(SampleEventTest, OlderCoresHaveNoLeaderAndHybridPartsUseCpuCore) {
  intel_core("cpu_core", false);
  put("cpu_atom/type", "10\n");
  SampleEventSpec spec;
  std::string why;
  ASSERT_TRUE(describe("mem-loads", spec, why)) << why;
  EXPECT_EQ(spec.sample.type, 4u);
  EXPECT_FALSE(spec.led);
}

TEST_F(SampleEventTest, IbsCountsOpsWhereItCanAndFiltersUserSpaceWhereTheKernelCan) {
  put("ibs_op/type", "11\n");
  put("ibs_op/format/cnt_ctl", "config:19\n");
  put("ibs_op/format/swfilt", "config2:0\n");
  SampleEventSpec spec;
  std::string why;
  ASSERT_TRUE(describe("auto", spec, why, 4001)) << why;
  EXPECT_EQ(spec.sample.type, 11u);
  EXPECT_EQ(spec.sample.config, std::uint64_t{1} << 19);  // dispatched ops, not cycles
  EXPECT_EQ(spec.sample.config2, 1u);
  EXPECT_EQ(spec.sample.exclude_kernel, 1u);
  EXPECT_EQ(spec.sample.exclude_hv, 0u);
  EXPECT_EQ(spec.sample.sample_period, 4016u);  // IBS counts in sixteens
  EXPECT_EQ(spec.sample.precise_ip, 0u);
  EXPECT_TRUE(spec.loads_only);
  EXPECT_NE(spec.what.find("4016 ops, user space only"), std::string::npos) << spec.what;
}

TEST_F(SampleEventTest, IbsWithoutItsFormatsCountsCyclesWithTheKernel) {
  put("ibs_op/type", "11\n");
  SampleEventSpec spec;
  std::string why;
  ASSERT_TRUE(describe("ibs_op", spec, why, 3)) << why;
  EXPECT_EQ(spec.sample.config, 0u);
  EXPECT_EQ(spec.sample.config2, 0u);
  EXPECT_EQ(spec.sample.exclude_kernel, 0u);  // the kernel rejects exclude_* on IBS without swfilt
  EXPECT_EQ(spec.sample.sample_period, 16u);
  EXPECT_NE(spec.what.find("16 cycles, user and kernel"), std::string::npos) << spec.what;
}

TEST_F(SampleEventTest, AnIntelCoreIsPreferredUnlessIbsIsAsked) {
  intel_core("cpu", false);
  put("ibs_op/type", "11\n");
  SampleEventSpec spec;
  std::string why;
  ASSERT_TRUE(describe("auto", spec, why)) << why;
  EXPECT_EQ(spec.sample.type, 4u);
  ASSERT_TRUE(describe("ibs_op", spec, why)) << why;
  EXPECT_EQ(spec.sample.type, 11u);
}

TEST_F(SampleEventTest, NoPmuSaysSoAndSoftwareEventsNeedNone) {
  SampleEventSpec spec;
  std::string why;
  EXPECT_FALSE(describe("auto", spec, why));
  EXPECT_NE(why.find("no hardware PMU"), std::string::npos) << why;
  EXPECT_FALSE(describe("ibs_op", spec, why));
  EXPECT_FALSE(describe("mem-stores", spec, why));
  EXPECT_NE(why.find("unknown sample event 'mem-stores'"), std::string::npos) << why;
  put("cpu/type", "4\n");  // a core PMU without mem-loads (a VM's, say)
  EXPECT_FALSE(describe("auto", spec, why));
  EXPECT_NE(why.find("no mem-loads event"), std::string::npos) << why;
  ASSERT_TRUE(describe("page-faults", spec, why, 7)) << why;
  EXPECT_EQ(spec.sample.type, static_cast<std::uint32_t>(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(spec.sample.config, static_cast<std::uint64_t>(PERF_COUNT_SW_PAGE_FAULTS));
  EXPECT_EQ(spec.sample.sample_period, 7u);
  EXPECT_FALSE(spec.loads_only);
}

TEST_F(SampleEventTest, ABrokenIbsFormatSaysWhy) {
  put("ibs_op/type", "11\n");
  put("ibs_op/format/cnt_ctl", "config9:19\n");
  SampleEventSpec spec;
  std::string why;
  EXPECT_FALSE(describe("ibs_op", spec, why));
  EXPECT_NE(why.find("'cnt_ctl'"), std::string::npos) << why;
}

// PERF_MEM_OP_* in data_src bits 0-4: NA 1, LOAD 2, STORE 4, PFETCH 8, EXEC 16.
TEST_F(SampleEventTest, OnlyLoadsAreKeptFromAnEventThatSamplesEveryOp) {
  SampleEventSpec ibs, pebs;
  ibs.loads_only = true;
  EXPECT_TRUE(is_load_sample(ibs, 0x2));
  EXPECT_TRUE(is_load_sample(ibs, 0x2 | (std::uint64_t{1} << 5)));
  EXPECT_TRUE(is_load_sample(ibs, 0));  // says nothing (an older kernel): kept
  EXPECT_FALSE(is_load_sample(ibs, 0x1));
  EXPECT_FALSE(is_load_sample(ibs, 0x4));
  EXPECT_FALSE(is_load_sample(ibs, 0x10));
  EXPECT_TRUE(is_load_sample(pebs, 0x1));  // every other event's samples are kept as they come
}

// /proc/self/timens_offsets as kernels write it: names (5.x on) or clock ids, seconds, nanoseconds.
TEST(MonotonicNamespaceOffset, ReadsTheMonotonicLineByNameOrId) {
  EXPECT_EQ(monotonic_namespace_offset("monotonic        3600         0\nboottime            0         0\n"), 3600.0);
  EXPECT_EQ(monotonic_namespace_offset("boottime 7 0\nmonotonic -2 500000000\n"), -1.5);
  EXPECT_EQ(monotonic_namespace_offset("1 10 250000000\n7 0 0\n"), 10.25);
  EXPECT_EQ(monotonic_namespace_offset(""), 0.0);  // no line for it: no offset
  EXPECT_FALSE(monotonic_namespace_offset("monotonic x 0\n"));
  EXPECT_FALSE(monotonic_namespace_offset("monotonic 1 1000000000\n"));
}

}  // namespace
}  // namespace ripple::trace::detail
