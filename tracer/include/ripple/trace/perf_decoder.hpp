#pragma once
// Decoding of perf_event_open ring buffers for precise memory-load sampling (Intel PEBS load
// latency, AMD IBS op): PERF_RECORD_SAMPLE records with IP, TID, TIME, ADDR, CPU, WEIGHT and
// DATA_SRC, PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES, and anything else skipped by its header size. Pure and
// allocation-free, so it can run where samples are drained; unit-tested on byte-exact synthetic buffers.
#include <cstdint>
#include <string>

namespace ripple::trace {

// The sample fields Ripple requests (PERF_SAMPLE_* bits), in the kernel's record order.
inline constexpr std::uint64_t kSampleIp = 1u << 0, kSampleTid = 1u << 1, kSampleTime = 1u << 2, kSampleAddr = 1u << 3,
                               kSampleCpu = 1u << 7, kSamplePeriod = 1u << 8, kSampleWeight = 1u << 14, kSampleDataSrc = 1u << 15;
inline constexpr std::uint64_t kMemorySampleType =
    kSampleIp | kSampleTid | kSampleTime | kSampleAddr | kSampleCpu | kSampleWeight | kSampleDataSrc;

struct MemorySample {
  std::uint64_t ip = 0;
  std::uint32_t pid = 0, tid = 0;
  std::uint64_t time = 0;  // the sample's own timestamp (perf clock), not the time it was read
  std::uint64_t addr = 0;
  std::uint32_t cpu = 0;
  std::uint64_t period = 0;
  std::uint64_t weight = 0;  // load latency in cycles
  std::uint64_t data_src = 0;
};

// Where a load was served from, decoded from PERF_SAMPLE_DATA_SRC.
struct DataSource {
  enum class Level : std::int32_t {
    Unknown,
    L1,
    L2,
    L3,
    L4,
    LFB,
    LocalDram,
    RemoteDram,
    RemoteCache,
    Pmem,
    Cxl,
    Io,
    Uncached,
    AnyCache
  };
  Level level = Level::Unknown;
  bool hit = false, miss = false;
  bool remote = false;
  bool load = false, store = false, prefetch = false;
};
DataSource decode_data_src(std::uint64_t data_src);
const char* level_name(DataSource::Level level);
// Every level's name, newline-separated in Level order: /samples' level_names attribute.
std::string level_names_text();

struct DrainResult {
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;      // from PERF_RECORD_LOST (ring full) and PERF_RECORD_LOST_SAMPLES records
  std::uint64_t unknown = 0;   // other record types, skipped
  std::uint64_t consumed = 0;  // bytes: the new tail is tail + consumed
  bool corrupt = false;        // a header with an impossible size: draining stopped there
};

// Decodes the records between `tail` and `head` (free-running byte counters, as in the mmap page)
// of the ring buffer `data` of `size` bytes (a power of two); records may wrap around its end.
// `on_sample(const MemorySample&, void* context)` gets every sample.
DrainResult drain_ring(const std::uint8_t* data, std::uint64_t size, std::uint64_t tail, std::uint64_t head,
                       std::uint64_t sample_type, void (*on_sample)(const MemorySample&, void*), void* context);

}  // namespace ripple::trace
