// The event spool's encoder and decoder (tracer/src/event_blocks.*) on their own: ns per event and
// bytes per event for two loops' events, encoded from a ring that fits the cache and from one that
// does not (the flusher reads slots the ranks wrote a while ago). The flusher's CPU is this per event;
// on a node whose every core runs a rank it comes out of the ranks' time. Results: bench/README.md.
//   build/bench/ripple_event_encoder [--benchmark_repetitions=5 --benchmark_report_aggregates_only=true]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "event_blocks.hpp"

namespace {
using ripple::trace::Event;
using namespace ripple::trace::detail;
using ripple::trace::Call;

constexpr std::int32_t call(Call c) { return static_cast<std::int32_t>(c); }

// A 2-rank ping-pong's events on one rank: Send and Recv alternating, the same fields every time.
void ping_pong(std::vector<Event>& ring) {
  double t = 1e9;
  for (std::size_t k = 0; k < ring.size(); ++k) {
    Event& e = ring[k];
    e.call = k % 2 == 0 ? call(Call::MPI_Send) : call(Call::MPI_Recv);
    e.peer = 1;
    e.tag = 0;
    e.comm = 0;
    e.bytes = e.extent = 8;
    e.count = 1;
    e.buffer = 0x7ffd00001000;
    e.call_site = k % 2 == 0 ? 0x401234 : 0x401250;
    e.same_node = 1;
    e.iteration = static_cast<std::int32_t>(k / 1000);
    t += 500 + static_cast<double>((k * 7919) % 97);
    e.t_enter = t;
    t += 200 + static_cast<double>((k * 104729) % 53);
    e.t_exit = t;
  }
}

// A 2D stencil's halo exchange on one rank: per iteration Irecv and Isend to each of four
// neighbours (each its own peer, buffer and request) and a Waitall of the eight.
void halo_exchange(std::vector<Event>& ring) {
  constexpr std::int32_t peers[4] = {3, 5, 0, 8};
  double t = 1e9;
  std::int64_t request = 0;
  for (std::size_t k = 0; k < ring.size(); ++k) {
    Event& e = ring[k];
    const std::size_t step = k % 9, iteration = k / 9;
    const std::size_t n = step % 4;
    e.iteration = static_cast<std::int32_t>(iteration);
    e.comm = 0;
    e.rank = 4;
    if (step < 8) {
      e.call = step < 4 ? call(Call::MPI_Irecv) : call(Call::MPI_Isend);
      e.peer = peers[n];
      e.tag = static_cast<std::int32_t>(n);
      e.bytes = e.extent = n < 2 ? 8 * 1024 : 8 * 1026;  // rows, columns
      e.count = static_cast<std::int32_t>(e.bytes / 8);
      e.buffer = 0x7f0000000000 + (step < 4 ? 0 : 0x100000) + 0x10000 * n;
      e.request = request++;
      e.same_node = 1;
      e.call_site = 0x401000 + 0x20 * step;
    } else {
      e.call = call(Call::MPI_Waitall);
      e.count = 8;
      e.call_site = 0x401200;
    }
    t += step == 0 ? 40000 : 80 + static_cast<double>((k * 7919) % 31);
    e.t_enter = t;
    t += step == 8 ? 3000 + static_cast<double>((k * 104729) % 997) : 60 + static_cast<double>(k % 11);
    e.t_exit = t;
  }
}

template <void (*Make)(std::vector<Event>&)>
void Encode(benchmark::State& state) {
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
void Decode(benchmark::State& state) {
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
BENCHMARK_TEMPLATE(Encode, ping_pong)->Arg(1 << 12)->Arg(1 << 20);
BENCHMARK_TEMPLATE(Encode, halo_exchange)->Arg(1 << 12)->Arg(1 << 20);
BENCHMARK_TEMPLATE(Decode, ping_pong)->Arg(1 << 20);
BENCHMARK_TEMPLATE(Decode, halo_exchange)->Arg(1 << 20);

}  // namespace

BENCHMARK_MAIN();
