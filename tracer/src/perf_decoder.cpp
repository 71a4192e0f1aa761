#include "ripple/trace/perf_decoder.hpp"

#include <linux/perf_event.h>

#include <cstring>

namespace ripple::trace {
namespace {

constexpr std::uint32_t kRecordLost = 2;
constexpr std::uint32_t kRecordSample = 9;
constexpr std::uint32_t kRecordLostSamples = 13;  // samples the PMU took but the kernel could not attribute (PEBS)

// Copies n bytes at ring offset `at` (wrapping) into out.
void ring_copy(const std::uint8_t* data, std::uint64_t size, std::uint64_t at, void* out, std::uint64_t n) {
  const std::uint64_t start = at & (size - 1);
  const std::uint64_t first = n < size - start ? n : size - start;
  std::memcpy(out, data + start, first);
  if (first < n) std::memcpy(static_cast<std::uint8_t*>(out) + first, data, n - first);
}

class Reader {
public:
  Reader(const std::uint8_t* p, std::uint64_t n) : p_(p), end_(p + n) {}
  template <class T>
  bool get(T& v) {
    if (p_ + sizeof(T) > end_) return false;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }

private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

bool parse_sample(const std::uint8_t* body, std::uint64_t n, std::uint64_t type, MemorySample& s) {
  Reader r(body, n);
  if ((type & kSampleIp) && !r.get(s.ip)) return false;
  if ((type & kSampleTid) && !(r.get(s.pid) && r.get(s.tid))) return false;
  if ((type & kSampleTime) && !r.get(s.time)) return false;
  if ((type & kSampleAddr) && !r.get(s.addr)) return false;
  std::uint32_t reserved = 0;
  if ((type & kSampleCpu) && !(r.get(s.cpu) && r.get(reserved))) return false;
  if ((type & kSamplePeriod) && !r.get(s.period)) return false;
  if ((type & kSampleWeight) && !r.get(s.weight)) return false;
  if ((type & kSampleDataSrc) && !r.get(s.data_src)) return false;
  return true;
}

}  // namespace

DrainResult drain_ring(const std::uint8_t* data, std::uint64_t size, std::uint64_t tail, std::uint64_t head,
                       std::uint64_t sample_type, void (*on_sample)(const MemorySample&, void*), void* context) {
  DrainResult result;
  // Only a record's first bytes are read: every sample field Ripple decodes (at most 8 of 8 bytes)
  // and a lost record's 16. A copy of that much, on the stack, also serves records that wrap around
  // the ring's end (a copy of up to 64 KiB in static TLS would take that much of every thread's stack).
  std::uint8_t record[sizeof(perf_event_header) + 16 * sizeof(std::uint64_t)];
  while (head - tail >= sizeof(perf_event_header)) {
    perf_event_header h{};
    ring_copy(data, size, tail, &h, sizeof h);
    if (h.size < sizeof h || h.size > head - tail || h.size > size) {
      result.corrupt = true;
      break;
    }
    const std::uint64_t kept = h.size < sizeof record ? h.size : sizeof record;
    ring_copy(data, size, tail, record, kept);
    const std::uint8_t* body = record + sizeof h;
    const std::uint64_t body_size = kept - sizeof h;
    if (h.type == kRecordSample) {
      MemorySample s;
      if (parse_sample(body, body_size, sample_type, s)) {
        ++result.samples;
        if (on_sample != nullptr) on_sample(s, context);
      } else {
        result.corrupt = true;
      }
    } else if (h.type == kRecordLost && body_size >= 16) {
      std::uint64_t lost = 0;
      std::memcpy(&lost, body + 8, sizeof lost);  // {u64 id; u64 lost}
      result.lost += lost;
    } else if (h.type == kRecordLostSamples && body_size >= 8) {
      std::uint64_t lost = 0;
      std::memcpy(&lost, body, sizeof lost);  // {u64 lost}
      result.lost += lost;
    } else {
      ++result.unknown;
    }
    tail += h.size;
    result.consumed += h.size;
  }
  return result;
}

DataSource decode_data_src(std::uint64_t v) {
  using Level = DataSource::Level;
  DataSource d;
  const std::uint64_t op = (v >> PERF_MEM_OP_SHIFT) & 0x1f;
  const std::uint64_t lvl = (v >> PERF_MEM_LVL_SHIFT) & 0x3fff;
  const std::uint64_t lvlnum = (v >> PERF_MEM_LVLNUM_SHIFT) & 0xf;
  d.load = op & PERF_MEM_OP_LOAD;
  d.store = op & PERF_MEM_OP_STORE;
  d.prefetch = op & PERF_MEM_OP_PFETCH;
  d.hit = lvl & PERF_MEM_LVL_HIT;
  d.miss = lvl & PERF_MEM_LVL_MISS;
  d.remote = (v >> PERF_MEM_REMOTE_SHIFT) & 1;
  // Newer kernels fill the level number; older ones only the level bits. A cache level with the
  // remote bit is another socket's (or node's) cache: the kernel's Intel PEBS table encodes a hit in
  // a remote cache as REM_CCE1 | REMOTE | LVLNUM_L3, and a remote DRAM access that snooped as
  // REM_RAM1 | REMOTE | LVLNUM_L3 (arch/x86/events/intel/ds.c, data sources 0x08, 0x09, 0x0b).
  const auto cache = [&](Level local) {
    if (!d.remote) return local;
    return (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) != 0 ? Level::RemoteDram : Level::RemoteCache;
  };
  switch (lvlnum) {
    case PERF_MEM_LVLNUM_L1:
      d.level = cache(Level::L1);
      return d;
    case PERF_MEM_LVLNUM_L2:
      d.level = cache(Level::L2);
      return d;
    case PERF_MEM_LVLNUM_L3:
      d.level = cache(Level::L3);
      return d;
    case PERF_MEM_LVLNUM_L4:
      d.level = cache(Level::L4);
      return d;
    case PERF_MEM_LVLNUM_CXL:
      d.level = Level::Cxl;
      return d;
    case PERF_MEM_LVLNUM_IO:
      d.level = Level::Io;
      return d;
    case PERF_MEM_LVLNUM_ANY_CACHE:
      d.level = cache(Level::AnyCache);
      return d;
    case PERF_MEM_LVLNUM_LFB:
      d.level = Level::LFB;
      return d;
    case PERF_MEM_LVLNUM_RAM:
      d.level = d.remote ? Level::RemoteDram : Level::LocalDram;
      return d;
    case PERF_MEM_LVLNUM_PMEM:
      d.level = Level::Pmem;
      return d;
    default:
      break;
  }
  if (lvl & PERF_MEM_LVL_L1)
    d.level = Level::L1;
  else if (lvl & PERF_MEM_LVL_LFB)
    d.level = Level::LFB;
  else if (lvl & PERF_MEM_LVL_L2)
    d.level = Level::L2;
  else if (lvl & PERF_MEM_LVL_L3)
    d.level = Level::L3;
  else if (lvl & PERF_MEM_LVL_LOC_RAM)
    d.level = Level::LocalDram;
  else if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2))
    d.level = Level::RemoteDram, d.remote = true;
  else if (lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
    d.level = Level::RemoteCache, d.remote = true;
  else if (lvl & PERF_MEM_LVL_IO)
    d.level = Level::Io;
  else if (lvl & PERF_MEM_LVL_UNC)
    d.level = Level::Uncached;
  return d;
}

const char* level_name(DataSource::Level level) {
  switch (level) {
    case DataSource::Level::L1:
      return "L1";
    case DataSource::Level::L2:
      return "L2";
    case DataSource::Level::L3:
      return "L3";
    case DataSource::Level::L4:
      return "L4";
    case DataSource::Level::LFB:
      return "LFB";
    case DataSource::Level::LocalDram:
      return "local DRAM";
    case DataSource::Level::RemoteDram:
      return "remote DRAM";
    case DataSource::Level::RemoteCache:
      return "remote cache";
    case DataSource::Level::Pmem:
      return "PMEM";
    case DataSource::Level::Cxl:
      return "CXL";
    case DataSource::Level::Io:
      return "I/O";
    case DataSource::Level::Uncached:
      return "uncached";
    case DataSource::Level::AnyCache:
      return "any cache";
    case DataSource::Level::Unknown:
      break;
  }
  return "unknown";
}

std::string level_names_text() {
  std::string names;
  for (int l = 0; l <= static_cast<int>(DataSource::Level::AnyCache); ++l)
    names += std::string(l ? "\n" : "") + level_name(static_cast<DataSource::Level>(l));
  return names;
}

}  // namespace ripple::trace
