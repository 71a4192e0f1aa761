// The event spool's encoder and decoder (tracer/src/event_blocks.*) on their own: ns per event and
// bytes per event for two loops' events, encoded from a ring that fits the cache and from one that
// does not (the flusher reads slots the ranks wrote a while ago). The flusher's CPU is this per event;
// on a node whose every core runs a rank it comes out of the ranks' time. Results: bench/README.md.
//   build/bench/ripple_event_encoder [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "event_blocks.hpp"
#include "event_loops.hpp"

namespace {
using ripple::trace::Event;
using namespace ripple::trace::detail;

// A ring of a loop's events (tests/support/event_loops.hpp: the events the unit tests hold to their
// byte counts): a 2-rank ping-pong's on one rank, Send and Recv alternating with the same fields;
// and a 2D stencil's halo exchange, Irecv and Isend to each of four neighbours (each its own peer,
// buffer and request) and a Waitall.
void ping_pong(std::vector<Event>& ring) { ring = ripple::trace::test_events::ping_pong(ring.size()); }
void halo_exchange(std::vector<Event>& ring) {
  const std::size_t n = ring.size();
  ring = ripple::trace::test_events::halo_exchange(n / 9 + 1, 4);  // 9 events per iteration
  ring.resize(n);
}

template <void (*Make)(std::vector<Event>&)>
void encode(benchmark::State& state) {
  std::vector<Event> ring(static_cast<std::size_t>(state.range(0)));
  Make(ring);
  const std::uint64_t mask = ring.size() - 1;
  EventBlockEncoder encoder;
  alignas(4096) static unsigned char block[kEventBlock];
  std::uint64_t k = 0, blocks = 0;
  for (auto _ : state) {
    const std::size_t n = encoder.encode(ring.data(), mask, k, k + kMaxEventsPerBlock, k, block);
    benchmark::DoNotOptimize(block);
    k += n;
    ++blocks;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(k));
  state.counters["bytes_per_event"] = static_cast<double>(blocks * kEventBlock) / static_cast<double>(k);
}

template <void (*Make)(std::vector<Event>&)>
void decode(benchmark::State& state) {
  std::vector<Event> ring(static_cast<std::size_t>(state.range(0)));
  Make(ring);
  EventBlockEncoder encoder;
  std::vector<unsigned char> blocks;
  for (std::uint64_t k = 0; k < ring.size();) {
    blocks.resize(blocks.size() + kEventBlock);
    k += encoder.encode(ring.data(), ~std::uint64_t{0}, k, ring.size(), k, blocks.data() + blocks.size() - kEventBlock);
  }
  EventBlockDecoder decoder;
  std::vector<Event> out(kMaxEventsPerBlock);
  std::size_t at = 0;
  std::int64_t events = 0;
  for (auto _ : state) {
    EventBlockHead head;
    if (!decoder.decode(blocks.data() + at, out.data(), head)) state.SkipWithError("a block did not decode");
    benchmark::DoNotOptimize(out.data());
    events += head.events;
    at = (at + kEventBlock) % blocks.size();
  }
  state.SetItemsProcessed(events);
}

// 4096 events (352 KiB) stay in the cache; 2^20 (88 MiB, the ring of a 64 MiB bound is 2^19) do not.
BENCHMARK_TEMPLATE(encode, ping_pong)->Arg(1 << 12)->Arg(1 << 20);
BENCHMARK_TEMPLATE(encode, halo_exchange)->Arg(1 << 12)->Arg(1 << 20);
BENCHMARK_TEMPLATE(decode, ping_pong)->Arg(1 << 20);
BENCHMARK_TEMPLATE(decode, halo_exchange)->Arg(1 << 20);

}  // namespace

BENCHMARK_MAIN();
