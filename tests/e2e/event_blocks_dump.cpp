// Writes events and this build's event blocks of them (event_blocks.hpp) to two files, for
// spool_blocks_crosscheck.sh: the independent Python reader of the documented format must decode
// the blocks to the very events. The events exercise every way an event refers to another: the
// same and the next neighbour, a numbered slot, more (peer, buffer) than a call has slots, raw
// events, several calls and every field changing.
//   event_blocks_dump EVENTS_OUT BLOCKS_OUT
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "event_blocks.hpp"

using ripple::trace::Event;
using namespace ripple::trace::detail;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s EVENTS_OUT BLOCKS_OUT\n", argv[0]);
    return 2;
  }
  std::mt19937_64 rng(42);
  std::vector<Event> events(60000);
  double t = 1e6;
  for (std::size_t k = 0; k < events.size(); ++k) {
    Event& e = events[k];
    const std::uint64_t pattern = (k / 5000) % 4;  // stretches: in order, shuffled, many keys, anything
    const int keys = pattern == 2 ? 40 : 6;        // 40: beyond a call's 32 slots
    const auto n = static_cast<int>(pattern == 0 ? k % static_cast<std::size_t>(keys) : rng() % static_cast<std::uint64_t>(keys));
    e.call = static_cast<std::int32_t>(rng() % 3 == 0 ? 29 : 8 + 5 * (k % 2));
    e.peer = 10 + n;
    e.buffer = 0x7f0000000000 + 0x1000 * static_cast<std::uint64_t>(n);
    e.tag = n;
    e.comm = 0;
    e.count = 100 + n;
    e.bytes = e.extent = 8 * e.count;
    e.request = static_cast<std::int64_t>(k);
    e.iteration = static_cast<std::int32_t>(k / 50);
    e.call_site = 0x401000 + 0x10 * (k % 3);
    e.same_node = n % 2;
    e.rank = 3;
    if (pattern == 3) {  // every field anything, sometimes a call or a time only a raw event holds
      e.peer = static_cast<std::int32_t>(rng());
      e.tag = static_cast<std::int32_t>(rng());
      e.bytes = static_cast<std::int64_t>(rng());
      e.buffer = rng();
      e.same_node = static_cast<std::int32_t>(rng() % 2);
      if (rng() % 10 == 0) e.call = 600;
    }
    e.t_enter = t += static_cast<double>(rng() % 5000);
    e.t_exit = rng() % 50 == 0 ? t + 0.5 : t + static_cast<double>(rng() % 900);
  }
  EventBlockEncoder encoder;
  std::vector<unsigned char> blocks;
  for (std::uint64_t k = 0; k < events.size();) {
    blocks.resize(blocks.size() + kEventBlock);
    k += encoder.encode(events.data(), ~std::uint64_t{0}, k, events.size(), k, blocks.data() + blocks.size() - kEventBlock);
  }
  std::FILE* a = std::fopen(argv[1], "wb");
  std::FILE* b = std::fopen(argv[2], "wb");
  if (a == nullptr || b == nullptr || std::fwrite(events.data(), sizeof(Event), events.size(), a) != events.size() ||
      std::fwrite(blocks.data(), 1, blocks.size(), b) != blocks.size() || std::fclose(a) != 0 || std::fclose(b) != 0) {
    std::perror("event_blocks_dump");
    return 1;
  }
  std::printf("%zu events in %zu blocks\n", events.size(), blocks.size() / kEventBlock);
  return 0;
}
