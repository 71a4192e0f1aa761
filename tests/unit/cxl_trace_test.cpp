// `ripple cxl`'s pipeline on synthetic traces (written with trace::write_trace_file, read back by the
// checking reader): one receive and load samples in each bracket, costed per category as IV-C says,
// by hand; the fallback without samples; a trace whose receives have no buffer.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <filesystem>

#include "ripple/analysis/cxl_predict.hpp"
#include "ripple/common/error.hpp"
#include "ripple/trace/trace_file_writer.hpp"

namespace ripple::analysis {
namespace {

std::int32_t call_id(const char* name) {
  for (int i = 0; i < trace::call_count(); ++i)
    if (std::string(trace::call_name(i)) == name) return i;
  throw std::runtime_error(name);
}

constexpr const char* kLevels =
    "Unknown\nL1\nL2\nL3\nL4\nLFB\nLocalDram\nRemoteDram\nRemoteCache\nPmem\nCxl\nIo\nUncached\nAnyCache";

// One rank: MPI_Irecv of 1024 bytes into 0x10000 at t 1, MPI_Wait until t 2 (completion), then MPI_Finalize at t 10.
trace::TraceContent one_receive(std::int64_t extent = 1024) {
  trace::TraceContent c;
  c.ranks = 1;
  trace::Event recv;
  recv.t_enter = 1;
  recv.t_exit = 1.1;
  recv.call = call_id("MPI_Irecv");
  recv.buffer = 0x10000;
  recv.bytes = 1024;
  recv.extent = extent;
  recv.request = 5;
  recv.call_site = 0x42;
  recv.tag = 3;
  recv.peer = 1;
  trace::Event wait = recv;
  wait.call = call_id("MPI_Wait");
  wait.t_enter = 1.5;
  wait.t_exit = 2;
  wait.buffer = 0;
  wait.request = -1;
  trace::Event done = recv;
  done.call = call_id("completion");
  done.t_enter = done.t_exit = 2;
  trace::Event fin = wait;
  fin.call = call_id("MPI_Finalize");
  fin.t_enter = fin.t_exit = 10;
  c.events = {recv, wait, done, fin};
  return c;
}

trace::SampleRecord sample(double t, std::uint64_t addr, int level, std::uint64_t cycles, bool prefetch = false) {
  trace::SampleRecord s;
  s.time = t;
  s.addr = addr;
  s.level = level;
  s.weight = cycles;
  s.data_src = static_cast<std::uint64_t>(prefetch ? PERF_MEM_OP_PFETCH : PERF_MEM_OP_LOAD) << PERF_MEM_OP_SHIFT;
  return s;
}

class CxlTrace : public ::testing::Test {
protected:
  std::string path =
      (std::filesystem::temp_directory_path() / ("ripple-cxl-test-" + std::to_string(::getpid()) + ".h5")).string();
  Machine m = Machine::defaults();  // CLOCK_GHZ 2.4: 24 cycles are 10 ns
  void TearDown() override { std::filesystem::remove(path); }
  CxlResult run(const trace::TraceContent& c, Weights w) {
    trace::write_trace_file(path, c);
    CxlOptions o;
    o.weights = w;
    return predict_cxl(read_cxl_run(path), m, o);
  }
};

// Before the receive completes (later accesses, in no window): a demand hit of 10 ns, a prefetch hit
// of 10 ns, an LFB sample of 40 ns and a miss of 100 ns.
TEST_F(CxlTrace, EachFormulaOnEachBracket) {
  trace::TraceContent c = one_receive();
  c.sample_status = "active: synthetic, period 1, prefetch known";
  c.level_names = kLevels;
  c.samples = {sample(0.5, 0x10000, 1, 24), sample(0.6, 0x10040, 2, 24, true), sample(0.7, 0x10080, 5, 96),
               sample(0.8, 0x100c0, 6, 240), sample(0.9, 0x20000, 6, 240) /* outside the buffer */};
  const struct {
    Category c;
    double mpi, cxl;
  } cases[] = {{Category::MLAT, 160 / 1.5, (10 + 10 + 304 + 350) / 1.5},
               {Category::MBW, 160 / 3.0, (10 + 274 + 350 + 364) / 3.0},
               {Category::CBW, 160 / 3.0, (10 + 274 + 40 + 364) / 3.0},
               {Category::CLAT, 160 / 1.5, (10 + 10 + 40 + 350) / 1.5},
               {Category::Compute, 160 / 3.0, (10 + 10 + 172 + 350) / 3.0}};
  for (const auto& k : cases) {
    Weights w{};
    w[static_cast<int>(k.c)] = 1;
    const CxlResult r = run(c, w);
    ASSERT_EQ(r.groups.size(), 1u);
    const CxlCosts& g = r.groups[0].costs;
    EXPECT_EQ(g.samples, 4) << category_name(k.c);
    EXPECT_EQ(g.samples_window, 0);
    EXPECT_NEAR(g.mpi_access, k.mpi, 1e-9) << category_name(k.c);
    EXPECT_NEAR(g.cxl_access, k.cxl, 1e-9) << category_name(k.c);
    EXPECT_EQ(g.mpi_transfer, 320 + 108);  // 1024e9 / 9.444e9 = 108.4
    EXPECT_EQ(g.cxl_transfer, 860);
    EXPECT_EQ(r.groups[0].call_site, 0x42u);
    EXPECT_EQ(r.groups[0].tag, 3);
  }
}

// After the completion: the first sample on a line sees the first-access weights (MBW, MLAT,
// Compute only), the second the full ones; both lie in the window.
TEST_F(CxlTrace, FirstAccessAndWindow) {
  trace::TraceContent c = one_receive();
  c.sample_status = "active: synthetic, period 1, prefetch known";
  c.level_names = kLevels;
  c.samples = {sample(3, 0x10000, 6, 240), sample(4, 0x10008, 6, 240)};
  const CxlResult r = run(c, {0, 0, 0, 0.5, 0.5});  // CLAT and Compute; the first access: Compute only
  const CxlCosts& g = r.groups[0].costs;
  EXPECT_EQ(g.first_accesses, 1);
  EXPECT_EQ(g.samples_window, 2);
  const double first = 350 / 3.0, later = 0.5 * 350 / 1.5 + 0.5 * 350 / 3.0;
  EXPECT_NEAR(g.cxl_access, first + later, 1e-9);
  EXPECT_NEAR(g.cxl_access_window, first + later, 1e-9);
  EXPECT_NEAR(g.mpi_access, 100 / 3.0 + 0.5 * 100 / 1.5 + 0.5 * 100 / 3.0, 1e-9);
}

// The published tool's conventions (a trace imported from the Mitos simulator asks for them in its
// sources): rate 1 whatever the sampler's period, and no first-access split.
TEST_F(CxlTrace, PublishedConventions) {
  trace::TraceContent c = one_receive();
  c.sample_status = "active: synthetic, period 4, prefetch known";
  c.level_names = kLevels;
  c.samples = {sample(3, 0x10000, 6, 240)};  // after the completion: a first access
  const double later = 0.5 * 350 / 1.5 + 0.5 * 350 / 3.0, first = 350 / 3.0;
  EXPECT_NEAR(run(c, {0, 0, 0, 0.5, 0.5}).total.cxl_access, 4 * first, 1e-9);  // Ripple's: rate 4, first access
  c.sources = R"({"import": {"from": "mitos", "conventions": "published"}})";
  const CxlResult r = run(c, {0, 0, 0, 0.5, 0.5});
  EXPECT_TRUE(r.published);
  EXPECT_EQ(r.sample_rate, 1);
  EXPECT_NEAR(r.total.cxl_access, later, 1e-9);
  EXPECT_EQ(r.total.first_accesses, 1);  // still counted, not costed apart
}

TEST_F(CxlTrace, WithoutSamplesOneLoadPerLine) {
  const CxlResult r = run(one_receive(), {0, 0, 0, 0, 1});
  EXPECT_NE(r.access_how.find("estimated from the bytes"), std::string::npos);
  EXPECT_NEAR(r.total.mpi_access, 16 * 86 / 3.0, 1e-9);  // 1024 bytes: 16 lines
  EXPECT_NEAR(r.total.cxl_access, 16 * 350 / 3.0, 1e-9);
  // The run lasts 9 s; the receive saves (428 + 458.67) - (860 + 1866.67) ns: a slowdown.
  const double saved = (428 + 16 * 86 / 3.0 - 860 - 16 * 350 / 3.0) * 1e-9;
  EXPECT_NEAR(r.speedup, 9 / (9 - saved), 1e-12);
}

TEST_F(CxlTrace, PageFaultSamplesAreNotLoads) {
  trace::TraceContent c = one_receive();
  c.sample_status = "active: page-faults (software event), period 1";
  c.level_names = kLevels;
  c.samples = {sample(3, 0x10000, 0, 0)};
  const CxlResult r = run(c, {0, 0, 0, 0, 1});
  EXPECT_NE(r.access_how.find("page faults"), std::string::npos);
}

TEST_F(CxlTrace, NoBufferExtentIsRefused) {
  trace::write_trace_file(path, one_receive(0));
  EXPECT_THROW(read_cxl_run(path), InputError);
}

}  // namespace
}  // namespace ripple::analysis
