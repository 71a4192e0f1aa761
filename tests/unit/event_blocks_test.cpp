// The event blocks against their truth, the events encoded: decoding gives back every event bit for
// bit, whatever its fields (extremes, times that must go raw), across the ring's wrap; every block
// decodes on its own; a loop's events take a few bytes each; and a block with any byte of its head
// or payload changed, or random contents under a valid check, is refused or decoded within bounds,
// never misread silently.
#include "event_blocks.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace ripple::trace::detail {
namespace {

// A ping-pong's events: Send and Recv alternating, times advancing by a few hundred ticks.
std::vector<Event> ping_pong(std::size_t n) {
  std::vector<Event> events(n);
  double t = 1e6;
  for (std::size_t k = 0; k < n; ++k) {
    Event& e = events[k];
    e.call = k % 2 == 0 ? 3 : 7;
    e.peer = 1;
    e.tag = 0;
    e.comm = 0;
    e.bytes = e.extent = 8;
    e.count = 1;
    e.buffer = 0x7ffd00001000;
    e.call_site = k % 2 == 0 ? 0x401234 : 0x401250;
    e.same_node = 1;
    e.rank = 0;
    e.iteration = static_cast<std::int32_t>(k / 500);
    t += 300 + static_cast<double>(k % 13);
    e.t_enter = t;
    t += 150 + static_cast<double>(k % 7);
    e.t_exit = t;
  }
  return events;
}

// Events with every field drawn at random, some at their extremes, some that only a raw record holds.
std::vector<Event> wild(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  const auto pick = [&](std::initializer_list<std::int64_t> values) {
    return *(values.begin() + static_cast<std::ptrdiff_t>(rng() % values.size()));
  };
  constexpr auto i32min = std::numeric_limits<std::int32_t>::min(), i32max = std::numeric_limits<std::int32_t>::max();
  constexpr auto i64min = std::numeric_limits<std::int64_t>::min(), i64max = std::numeric_limits<std::int64_t>::max();
  std::vector<Event> events(n);
  double t = 0;
  for (std::size_t k = 0; k < n; ++k) {
    Event& e = events[k];
    e.call = static_cast<std::int32_t>(pick({0, 1, 2, 5, kMaxCall, kMaxCall + 1, -1, i32max, i32min}));
    e.peer = static_cast<std::int32_t>(pick({-3, -2, -1, 0, 1, 1000, i32max, i32min}));
    e.tag = static_cast<std::int32_t>(pick({-1, 0, 7, i32max, i32min, static_cast<std::int64_t>(rng() & 0xffff)}));
    e.comm = static_cast<std::int32_t>(pick({-1, 0, 1, 2, i32max}));
    e.iteration = static_cast<std::int32_t>(pick({-1, 0, 1, i32max, i32min}));
    e.count = static_cast<std::int32_t>(pick({0, 1, 1 << 30, i32max, i32min}));
    e.same_node = static_cast<std::int32_t>(pick({0, 1}));
    e.rank = static_cast<std::int32_t>(pick({0, 3, 1 << 24}));
    e.bytes = pick({0, 8, -1, i64max, i64min, static_cast<std::int64_t>(rng())});
    e.extent = pick({0, 8, i64max, i64min});
    e.request = pick({-1, 0, static_cast<std::int64_t>(k), i64max, i64min});
    e.buffer = pick({0, 1}) != 0 ? rng() : 0;
    e.call_site = pick({0, 1}) != 0 ? rng() : 0x401000;
    // Times: mostly whole ticks; some that only a raw record keeps (NaN, half a tick, beyond 2^53, -0).
    const double odd_times[] = {
        std::numeric_limits<double>::quiet_NaN(), t + 0.5, std::ldexp(1.0, 53), std::ldexp(1.0, 54), -std::ldexp(1.0, 53), -0.0};
    const std::uint64_t which = rng() % 12;
    e.t_enter = which < 6 ? odd_times[which] : (t += static_cast<double>(rng() % 100000));
    e.t_exit = rng() % 4 == 0 ? -1e300 : e.t_enter + static_cast<double>(rng() % 5000);
  }
  return events;
}

// Encodes events [0, n) of `ring` (n may exceed its size: slot k & mask) into blocks.
std::vector<unsigned char> encode_all(const Event* ring, std::uint64_t mask, std::uint64_t from, std::uint64_t to) {
  EventBlockEncoder encoder;
  std::vector<unsigned char> blocks;
  for (std::uint64_t k = from; k < to;) {
    blocks.resize(blocks.size() + kEventBlock);
    const std::size_t n = encoder.encode(ring, mask, k, to, k, blocks.data() + blocks.size() - kEventBlock);
    EXPECT_GE(n, 1u);
    k += n;
  }
  return blocks;
}

// Every block decoded in order with one decoder: their events, and each head's numbering checked.
std::vector<Event> decode_all(const std::vector<unsigned char>& blocks, std::uint64_t first = 0) {
  EventBlockDecoder decoder;
  std::vector<Event> events, piece(kMaxEventsPerBlock);
  for (std::size_t at = 0; at < blocks.size(); at += kEventBlock) {
    EventBlockHead head;
    EXPECT_TRUE(decoder.decode(blocks.data() + at, piece.data(), head)) << "block " << at / kEventBlock;
    EXPECT_EQ(head.first, first + events.size());
    events.insert(events.end(), piece.begin(), piece.begin() + head.events);
  }
  return events;
}

void expect_same(const std::vector<Event>& a, const std::vector<Event>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_EQ(std::memcmp(&a[k], &b[k], sizeof(Event)), 0) << "event " << k;
}

TEST(EventBlocks, APingPongsEventsComeBackExactlyInAFewBytesEach) {
  const std::vector<Event> events = ping_pong(100000);
  const std::vector<unsigned char> blocks = encode_all(events.data(), ~std::uint64_t{0}, 0, events.size());
  expect_same(decode_all(blocks), events);
  const double bytes_per_event = static_cast<double>(blocks.size()) / static_cast<double>(events.size());
  std::printf("ping-pong: %.2f bytes per event in the spool (88 raw)\n", bytes_per_event);
  EXPECT_LT(bytes_per_event, 8.0);
}

TEST(EventBlocks, AnyEventComesBackBitForBitExtremesAndRawOnesIncluded) {
  for (const unsigned seed : {1u, 2u, 3u}) {
    const std::vector<Event> events = wild(20000, seed);
    expect_same(decode_all(encode_all(events.data(), ~std::uint64_t{0}, 0, events.size())), events);
  }
}

TEST(EventBlocks, AnEventWhoseCompactFormIsLongerGoesRaw) {
  // Every field far from a default event (what a call's events are encoded against while all go
  // raw): the compact form would pass 89 bytes. (Not extremes: deltas wrap, MAX to MIN is 1.)
  std::vector<Event> events(200);
  for (std::size_t k = 0; k < events.size(); ++k) {
    Event& e = events[k];
    const bool odd = k % 2 != 0;
    const std::int64_t far = (odd ? -1 : 1) * (std::int64_t{1} << 62);
    e.call = 1;
    e.request = e.bytes = e.extent = far;
    e.buffer = e.call_site = static_cast<std::uint64_t>(far);
    e.peer = e.tag = e.comm = e.iteration = e.count = e.same_node = e.rank =
        odd ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int32_t>::max();
    e.t_enter = odd ? std::ldexp(1.0, 53) : -std::ldexp(1.0, 53);
    e.t_exit = -e.t_enter;
  }
  const std::vector<unsigned char> blocks = encode_all(events.data(), ~std::uint64_t{0}, 0, events.size());
  expect_same(decode_all(blocks), events);
  EventBlockHead head;
  std::memcpy(&head, blocks.data(), sizeof head);
  EXPECT_EQ(head.bytes, head.events * (1 + sizeof(Event))) << "every one raw, 89 bytes";
}

TEST(EventBlocks, EncodesAcrossTheRingsWrapFromItsSlots) {
  std::vector<Event> ring(1024);
  const std::vector<Event> events = wild(3000, 7);
  const std::uint64_t from = 900, to = 900 + 1000;  // slots 900..1023, then 0..875
  for (std::uint64_t k = from; k < to; ++k) ring[k & 1023] = events[k - from];
  expect_same(decode_all(encode_all(ring.data(), 1023, from, to), from),
              std::vector<Event>(events.begin(), events.begin() + 1000));
}

TEST(EventBlocks, EachBlockDecodesOnItsOwn) {
  const std::vector<Event> events = wild(20000, 11);
  const std::vector<unsigned char> blocks = encode_all(events.data(), ~std::uint64_t{0}, 0, events.size());
  ASSERT_GT(blocks.size() / kEventBlock, 3u);
  // Backwards, each with a decoder that has seen other blocks: the same events as in order.
  EventBlockDecoder decoder;
  std::vector<Event> piece(kMaxEventsPerBlock);
  for (std::size_t b = blocks.size() / kEventBlock; b-- > 0;) {
    EventBlockHead head;
    ASSERT_TRUE(decoder.decode(blocks.data() + b * kEventBlock, piece.data(), head));
    for (std::size_t k = 0; k < head.events; ++k)
      ASSERT_EQ(std::memcmp(&piece[k], &events[head.first + k], sizeof(Event)), 0) << "block " << b << " event " << k;
  }
}

TEST(EventBlocks, AChangedByteInTheHeadOrThePayloadIsRefused) {
  const std::vector<Event> events = ping_pong(300);
  std::vector<unsigned char> block = encode_all(events.data(), ~std::uint64_t{0}, 0, events.size());
  ASSERT_EQ(block.size(), kEventBlock);
  EventBlockHead head;
  std::memcpy(&head, block.data(), sizeof head);
  const std::size_t covered = sizeof head + (head.bytes + 7u) / 8u * 8u;
  EventBlockDecoder decoder;
  std::vector<Event> out(kMaxEventsPerBlock);
  for (std::size_t at = 0; at < kEventBlock; ++at) {
    for (const unsigned char flip : {0x01, 0x80}) {
      block[at] ^= flip;
      EventBlockHead seen;
      const bool ok = decoder.decode(block.data(), out.data(), seen);
      block[at] ^= flip;
      if (at < covered)
        ASSERT_FALSE(ok) << "byte " << at << " flipped by " << int(flip);
      else  // the zeros after the payload carry nothing
        ASSERT_TRUE(ok && seen.events == head.events) << "byte " << at;
    }
  }
  const std::vector<unsigned char> zeros(kEventBlock, 0);
  EventBlockHead seen;
  EXPECT_FALSE(decoder.decode(zeros.data(), out.data(), seen)) << "a block that never reached the disk";
}

TEST(EventBlocks, RandomContentsUnderAValidCheckAreDecodedWithinBoundsOrRefused) {
  // What a checksum cannot catch: the decoder must still stay within the block (ASan in CI's
  // sanitizer build) and return as many events as it accepts.
  std::mt19937_64 rng(5);
  EventBlockDecoder decoder;
  std::vector<Event> out(kMaxEventsPerBlock);
  int accepted = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<unsigned char> block(kEventBlock, 0);
    EventBlockHead head;
    const bool large = trial % 10 == 0;  // up to the whole payload, near the block's end
    head.bytes = static_cast<std::uint16_t>(large ? rng() % (kEventBlockPayload + 1) : rng() % 64);
    head.events = static_cast<std::uint16_t>(large ? rng() % (kMaxEventsPerBlock + 1) : rng() % 8);
    unsigned char* payload = block.data() + sizeof head;
    for (std::size_t k = 0; k < head.bytes; ++k)  // small values, so that some decode
      payload[k] = static_cast<unsigned char>(rng() % 3 == 0 ? rng() : rng() % 4);
    head.check = event_block_check(head, payload);
    std::memcpy(block.data(), &head, sizeof head);
    EventBlockHead seen;
    if (!decoder.decode(block.data(), out.data(), seen)) continue;
    ++accepted;
    ASSERT_EQ(seen.events, head.events);
  }
  std::printf("%d of 20000 random blocks decode (within bounds)\n", accepted);
  EXPECT_GT(accepted, 0);  // the path that accepts was reached too
}

}  // namespace
}  // namespace ripple::trace::detail
