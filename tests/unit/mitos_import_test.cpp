// `ripple import mitos` below the files: decoded data sources as levels, and the trace built from
// MitosRecords (a wait's completion carries the receive's bytes, tag and source; samples find their
// rank by pid or by address; whole-run counters become two rows per rank), checked by hand.
#include "ripple/analysis/mitos_import.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

namespace ripple::analysis {
namespace {

TEST(MitosLevel, DecodedSourcesAndSimulatorLevels) {
  // kMitosLevelNames: Unknown L1 L2 L3 L4 LFB LocalDram RemoteDram RemoteCache Pmem Cxl Io Uncached AnyCache
  EXPECT_EQ(mitos_level("L1"), 1);
  EXPECT_EQ(mitos_level("l2"), 2);
  EXPECT_EQ(mitos_level("L3 hit"), 3);
  EXPECT_EQ(mitos_level("Mem"), 6);
  EXPECT_EQ(mitos_level("Local RAM"), 6);
  EXPECT_EQ(mitos_level("Remote RAM (1 hop)"), 7);
  EXPECT_EQ(mitos_level("Remote Cache (2 hops)"), 8);
  EXPECT_EQ(mitos_level("LFB/MAB"), 5);
  EXPECT_EQ(mitos_level("Cache Fill Buffer"), 5);
  EXPECT_EQ(mitos_level("PMEM"), 9);
  EXPECT_EQ(mitos_level("CXL"), 10);
  EXPECT_EQ(mitos_level("Uncached"), 12);
  EXPECT_EQ(mitos_level("N/A"), 0);
  EXPECT_EQ(mitos_level("L9"), 0);
}

MitosCall call(int rank, const char* func, double t, std::uint64_t buf, std::int64_t count, int peer, int tag,
               std::int64_t request) {
  return {rank, func, 0x401000, t, t + 0.001, buf, count, 8, peer, 0, tag, request};
}

MitosRecords two_ranks() {
  MitosRecords r;
  r.variant = "simulator";
  for (int rank = 0; rank < 2; ++rank) {
    r.calls.push_back(call(rank, "MPI_Irecv", 0.1, 0x1000 * (rank + 1), 16, 1 - rank, 5, 7));
    r.calls.push_back(call(rank, "MPI_Wait", 0.2, 0, 0, -1, -1, 7));
    r.calls.push_back(call(rank, "MPI_Frobnicate", 0.3, 0, 0, -1, -1, -1));  // not an MPI call Ripple knows
  }
  return r;
}

TEST(MitosTrace, WaitCompletesTheReceive) {
  const trace::TraceContent c = build_mitos_trace(two_ranks(), "test");
  ASSERT_EQ(c.ranks, 2);
  ASSERT_EQ(c.events.size(), 6u);  // per rank: Irecv, Wait, its completion; the unknown call left out
  const trace::Event& done = c.events[2];
  EXPECT_STREQ(trace::call_name(done.call), "completion");
  EXPECT_EQ(done.request, 7);
  EXPECT_EQ(done.bytes, 128);
  EXPECT_EQ(done.tag, 5);
  EXPECT_EQ(done.peer, 1);
  EXPECT_DOUBLE_EQ(done.t_exit, 0.201);  // the wait's exit
  EXPECT_EQ(c.events[0].extent, 128);
  EXPECT_EQ(c.events[0].buffer, 0x1000u);
  EXPECT_NE(c.sources.find("MPI_Frobnicate"), std::string::npos);
  EXPECT_NE(c.sources.find("\"published\""), std::string::npos);
}

// mitoshooks names a request by the address of the MPI_Request variable, and an MPI_Waitall by its
// array and length: the requests at array + k * 8 (Open MPI's handles) or + k * 4 (MPICH's).
TEST(MitosTrace, WaitallCompletesTheRequestsOfItsArray) {
  for (const std::int64_t slot : {8, 4}) {
    const std::int64_t array = 0x7ffc1000;
    MitosRecords r;
    r.variant = "mitoshooks";
    r.calls.push_back(call(0, "MPI_Irecv", 0.1, 0x1000, 16, 1, 5, array));
    r.calls.push_back(call(0, "MPI_Irecv", 0.2, 0x2000, 32, 1, 6, array + slot));
    r.calls.push_back(call(0, "MPI_Irecv", 0.3, 0x3000, 8, 1, 7, 0x500));  // another variable: not in the array
    MitosCall all = call(0, "MPI_Waitall", 0.4, static_cast<std::uint64_t>(array), 2, -1, -1, -1);
    r.calls.push_back(all);
    const trace::TraceContent c = build_mitos_trace(r, "test");
    ASSERT_EQ(c.events.size(), 6u) << slot;  // three receives, the Waitall, two completions
    EXPECT_EQ(c.events[3].count, 2);
    EXPECT_STREQ(trace::call_name(c.events[4].call), "completion");
    EXPECT_EQ(c.events[4].tag, 5);
    EXPECT_EQ(c.events[5].tag, 6);
    EXPECT_EQ(c.events[5].bytes, 256);
    EXPECT_DOUBLE_EQ(c.events[5].t_exit, 0.401);
  }
}

// MPICH's 4-byte requests, `MPI_Request rreq[2], sreq[2]` side by side: Waitall(2, rreq) finds two
// pending requests at slot 8 too (rreq[0], sreq[0]); the tie goes to 4, the receives. The simulator
// names its requests by number: no array is scanned there.
TEST(MitosTrace, WaitallTieGoesToFourByteSlots) {
  const std::int64_t rreq = 0x7ffc1000, sreq = rreq + 8;
  MitosRecords r;
  r.variant = "mitoshooks";
  r.calls.push_back(call(0, "MPI_Irecv", 0.1, 0x1000, 16, 1, 5, rreq));
  r.calls.push_back(call(0, "MPI_Irecv", 0.2, 0x2000, 16, 1, 6, rreq + 4));
  r.calls.push_back(call(0, "MPI_Isend", 0.3, 0x3000, 16, 1, 7, sreq));
  r.calls.push_back(call(0, "MPI_Isend", 0.4, 0x4000, 16, 1, 8, sreq + 4));
  r.calls.push_back(call(0, "MPI_Waitall", 0.5, static_cast<std::uint64_t>(rreq), 2, -1, -1, -1));
  trace::TraceContent c = build_mitos_trace(r, "test");
  ASSERT_EQ(c.events.size(), 7u);
  EXPECT_EQ(c.events[5].tag, 5);
  EXPECT_EQ(c.events[6].tag, 6);
  r.variant = "simulator";
  c = build_mitos_trace(r, "test");
  EXPECT_EQ(c.events.size(), 5u);  // the Waitall completes nothing
}

TEST(MitosTrace, SamplesFindTheirRank) {
  MitosRecords r = two_ranks();
  MitosSample s;
  s.level = 1;
  s.addr = 0x2008;  // rank 1's buffer [0x2000, 0x2080)
  s.pid = 42;
  r.samples = {s};
  s.addr = 0x1010;  // rank 0's
  s.prefetch = true;
  r.samples.push_back(s);
  trace::TraceContent c = build_mitos_trace(r, "test");  // one pid, two ranks: by address
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].rank, 0);  // ordered by rank
  EXPECT_EQ(c.samples[0].addr, 0x1010u);
  EXPECT_EQ((c.samples[0].data_src >> PERF_MEM_OP_SHIFT) & PERF_MEM_OP_PFETCH, PERF_MEM_OP_PFETCH);
  EXPECT_EQ(c.samples[1].rank, 1);
  r.samples[0].pid = 300;  // two pids, two ranks: by pid, the smaller is rank 0
  r.samples[1].pid = 200;
  c = build_mitos_trace(r, "test");
  EXPECT_EQ(c.samples[0].addr, 0x1010u);
  EXPECT_EQ(c.samples[1].addr, 0x2008u);
  EXPECT_EQ(c.samples[1].rank, 1);
}

TEST(MitosTrace, WholeRunCountersAreTwoRowsOnRankZero) {
  MitosRecords r = two_ranks();
  r.counters[-1] = {{"PAPI_LD_INS", 1000}, {"PAPI_L3_LDM", 10}};
  const trace::TraceContent c = build_mitos_trace(r, "test");
  ASSERT_EQ(c.counter_events, (std::vector<std::string>{"PAPI_L3_LDM", "PAPI_LD_INS"}));
  EXPECT_EQ(c.counter_rank, (std::vector<std::int32_t>{0, 0}));
  EXPECT_EQ(c.counter_values, (std::vector<std::int64_t>{0, 0, 10, 1000}));
  EXPECT_DOUBLE_EQ(c.counter_time[0], 0.1);    // rank 0's first entry
  EXPECT_DOUBLE_EQ(c.counter_time[1], 0.201);  // its last event's exit (the unknown call is not in the trace)
}

}  // namespace
}  // namespace ripple::analysis
