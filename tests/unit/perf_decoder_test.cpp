// The perf ring-buffer decoder on byte-exact synthetic buffers: every requested sample field,
// records wrapping around the end, PERF_RECORD_LOST, unknown record types, a corrupt header; and the
// DATA_SRC decoder on kernel encodings.
#include "ripple/trace/perf_decoder.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>
#include <vector>

namespace ripple::trace {
namespace {

// Writes records into a ring of `size` bytes starting at free-running position `head`.
struct Ring {
  std::vector<std::uint8_t> data;
  std::uint64_t head;
  Ring(std::uint64_t size, std::uint64_t start) : data(size, 0xEE), head(start) {}
  void put(const void* p, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) data[(head + k) % data.size()] = static_cast<const std::uint8_t*>(p)[k];
    head += n;
  }
  template <class T>
  void put(T v) {
    put(&v, sizeof v);
  }
  void header(std::uint32_t type, std::uint16_t size) {
    perf_event_header h{};
    h.type = type;
    h.size = size;
    put(h);
  }
  void sample(const MemorySample& s) {
    header(PERF_RECORD_SAMPLE, 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8);
    put(s.ip);
    put(s.pid);
    put(s.tid);
    put(s.time);
    put(s.addr);
    put(s.cpu);
    put(std::uint32_t{0});
    put(s.weight);
    put(s.data_src);
  }
};

MemorySample make(std::uint64_t k) {
  MemorySample s;
  s.ip = 0x400000 + k;
  s.pid = 100;
  s.tid = 101 + static_cast<std::uint32_t>(k);
  s.time = 1'000'000 + 10 * k;
  s.addr = 0x7f0000000000 + 64 * k;
  s.cpu = static_cast<std::uint32_t>(k % 4);
  s.weight = 30 + k;
  s.data_src = k;
  return s;
}

void collect(const MemorySample& s, void* out) { static_cast<std::vector<MemorySample>*>(out)->push_back(s); }

TEST(PerfDecoder, SamplesLostUnknownAndWrapAround) {
  // Start 40 bytes before the end of a 512-byte ring, so the first sample wraps around.
  Ring ring(512, 3 * 512 - 40);
  const std::uint64_t tail = ring.head;
  ring.sample(make(0));
  ring.header(PERF_RECORD_LOST, 24);
  ring.put(std::uint64_t{7});   // id
  ring.put(std::uint64_t{13});  // lost
  ring.header(99, 16);          // unknown type with 8 bytes of payload
  ring.put(std::uint64_t{0});
  for (std::uint64_t k = 1; k <= 5; ++k) ring.sample(make(k));
  std::vector<MemorySample> got;
  const DrainResult r = drain_ring(ring.data.data(), ring.data.size(), tail, ring.head, kMemorySampleType, &collect, &got);
  EXPECT_FALSE(r.corrupt);
  EXPECT_EQ(r.samples, 6u);
  EXPECT_EQ(r.lost, 13u);
  EXPECT_EQ(r.unknown, 1u);
  EXPECT_EQ(r.consumed, ring.head - tail);
  ASSERT_EQ(got.size(), 6u);
  for (std::uint64_t k = 0; k <= 5; ++k) {
    const MemorySample want = make(k);
    const MemorySample& s = got[k];
    EXPECT_EQ(s.ip, want.ip);
    EXPECT_EQ(s.pid, want.pid);
    EXPECT_EQ(s.tid, want.tid);
    EXPECT_EQ(s.time, want.time);
    EXPECT_EQ(s.addr, want.addr);
    EXPECT_EQ(s.cpu, want.cpu);
    EXPECT_EQ(s.weight, want.weight);
    EXPECT_EQ(s.data_src, want.data_src);
  }
}

// PERF_RECORD_LOST_SAMPLES {header; u64 lost}: samples the PMU took (PEBS) that the kernel dropped;
// they were skipped as an unknown record, and the rank said it lost none.
TEST(PerfDecoder, LostSamplesRecordsCountAsLost) {
  Ring ring(256, 0);
  ring.sample(make(1));
  ring.header(PERF_RECORD_LOST_SAMPLES, 16);
  ring.put(std::uint64_t{5});
  ring.header(PERF_RECORD_LOST, 24);
  ring.put(std::uint64_t{7});  // id
  ring.put(std::uint64_t{2});  // lost
  ring.sample(make(2));
  std::vector<MemorySample> got;
  const DrainResult r = drain_ring(ring.data.data(), ring.data.size(), 0, ring.head, kMemorySampleType, &collect, &got);
  EXPECT_FALSE(r.corrupt);
  EXPECT_EQ(r.samples, 2u);
  EXPECT_EQ(r.lost, 7u);
  EXPECT_EQ(r.unknown, 0u);
  EXPECT_EQ(r.consumed, ring.head);
}

TEST(PerfDecoder, StopsAtACorruptHeaderAndAtAPartialRecord) {
  Ring ring(256, 0);
  ring.sample(make(1));
  ring.header(PERF_RECORD_SAMPLE, 4);  // smaller than a header: impossible
  std::vector<MemorySample> got;
  DrainResult r = drain_ring(ring.data.data(), ring.data.size(), 0, ring.head, kMemorySampleType, &collect, &got);
  EXPECT_TRUE(r.corrupt);
  EXPECT_EQ(r.samples, 1u);
  // A record whose header is there but whose body is not yet: left for the next drain.
  Ring partial(256, 0);
  partial.sample(make(2));
  r = drain_ring(partial.data.data(), partial.data.size(), 0, partial.head - 8, kMemorySampleType, &collect, &got);
  EXPECT_TRUE(r.corrupt);
  EXPECT_EQ(r.consumed, 0u);
}

TEST(PerfDecoder, DataSourceLevels) {
  const auto encode = [](std::uint64_t op, std::uint64_t lvl, std::uint64_t lvlnum, bool remote) {
    return (op << PERF_MEM_OP_SHIFT) | (lvl << PERF_MEM_LVL_SHIFT) | (lvlnum << PERF_MEM_LVLNUM_SHIFT) |
           (static_cast<std::uint64_t>(remote) << PERF_MEM_REMOTE_SHIFT);
  };
  using L = DataSource::Level;
  // Older kernels: level bits only.
  DataSource d = decode_data_src(encode(PERF_MEM_OP_LOAD, PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_NA, false));
  EXPECT_EQ(d.level, L::L1);
  EXPECT_TRUE(d.hit && d.load && !d.miss);
  EXPECT_EQ(decode_data_src(encode(PERF_MEM_OP_LOAD, PERF_MEM_LVL_LFB | PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_NA, false)).level,
            L::LFB);
  EXPECT_EQ(decode_data_src(encode(PERF_MEM_OP_LOAD, PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_NA, false)).level,
            L::LocalDram);
  d = decode_data_src(encode(PERF_MEM_OP_LOAD, PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_NA, false));
  EXPECT_EQ(d.level, L::RemoteDram);
  EXPECT_TRUE(d.remote);
  // Newer kernels: level numbers, remote bit, CXL and PMEM.
  EXPECT_EQ(decode_data_src(encode(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_L2, false)).level, L::L2);
  EXPECT_EQ(decode_data_src(encode(PERF_MEM_OP_LOAD, PERF_MEM_LVL_MISS, PERF_MEM_LVLNUM_RAM, true)).level, L::RemoteDram);
  EXPECT_EQ(decode_data_src(encode(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_CXL, false)).level, L::Cxl);
  EXPECT_EQ(decode_data_src(encode(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_PMEM, false)).level, L::Pmem);
  d = decode_data_src(encode(PERF_MEM_OP_PFETCH, PERF_MEM_LVL_HIT, PERF_MEM_LVLNUM_L3, false));
  EXPECT_TRUE(d.prefetch && !d.load);
  EXPECT_EQ(d.level, L::L3);
  // The kernel's Intel PEBS encodings (arch/x86/events/intel/ds.c) of a remote cache hit (0x08,
  // 0x09) and of remote DRAM that snooped (0x0b) carry level number L3 with the remote bit; 0x0d,
  // remote DRAM exclusive, carries level number RAM. Local L3 (0x04) stays L3.
  constexpr std::uint64_t kOpLoadHit = PERF_MEM_OP_LOAD, kHit = PERF_MEM_LVL_HIT;
  d = decode_data_src(encode(kOpLoadHit, kHit | PERF_MEM_LVL_REM_CCE1, PERF_MEM_LVLNUM_L3, true));
  EXPECT_EQ(d.level, L::RemoteCache);
  EXPECT_TRUE(d.remote && d.hit);
  EXPECT_EQ(decode_data_src(encode(kOpLoadHit, kHit | PERF_MEM_LVL_REM_RAM1, PERF_MEM_LVLNUM_L3, true)).level, L::RemoteDram);
  EXPECT_EQ(decode_data_src(encode(kOpLoadHit, kHit | PERF_MEM_LVL_REM_RAM1, PERF_MEM_LVLNUM_RAM, true)).level, L::RemoteDram);
  EXPECT_EQ(decode_data_src(encode(kOpLoadHit, kHit | PERF_MEM_LVL_L3, PERF_MEM_LVLNUM_L3, false)).level, L::L3);
  EXPECT_EQ(decode_data_src(encode(kOpLoadHit, kHit, PERF_MEM_LVLNUM_ANY_CACHE, true)).level, L::RemoteCache);
  EXPECT_STREQ(level_name(L::Cxl), "CXL");
  EXPECT_EQ(decode_data_src(0).level, L::Unknown);
}

}  // namespace
}  // namespace ripple::trace
