// The event blocks against their truth, the events encoded: decoding gives back every event bit for
// bit, whatever its fields (extremes, times that must go raw), across the ring's wrap; every block
// decodes on its own; a loop's events take a few bytes each; and a block with any byte of its head
// or payload changed, or random contents under a valid check, is refused or decoded within bounds,
// never misread silently.
#include "event_blocks.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "event_loops.hpp"

namespace ripple::trace::detail {
namespace {

using test_events::halo_exchange;
using test_events::ping_pong;

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

double bytes_per_event(const std::vector<unsigned char>& blocks, std::size_t events) {
  return static_cast<double>(blocks.size()) / static_cast<double>(events);
}

TEST(EventBlocks, APingPongsEventsComeBackExactlyInAFewBytesEach) {
  const std::vector<Event> events = ping_pong(100000);
  const std::vector<unsigned char> blocks = encode_all(events.data(), ~std::uint64_t{0}, 0, events.size());
  expect_same(decode_all(blocks, 0), events);
  std::printf("ping-pong: %.2f bytes per event in the spool (88 raw)\n", bytes_per_event(blocks, events.size()));
  EXPECT_LT(bytes_per_event(blocks, events.size()), 8.0);
}

TEST(EventBlocks, AnyEventComesBackBitForBitExtremesAndRawOnesIncluded) {
  for (const unsigned seed : {1u, 2u, 3u}) {
    const std::vector<Event> events = wild(20000, seed);
    expect_same(decode_all(encode_all(events.data(), ~std::uint64_t{0}, 0, events.size()), 0), events);
  }
}

TEST(EventBlocks, AHaloExchangeWithAnyNumberOfNeighboursComesBackExactly) {
  for (const int neighbours : {1, 4, kReferences, kReferences + 1, 26}) {  // 26: a 3D stencil's, beyond the slots
    const std::vector<Event> events = halo_exchange(400, neighbours);
    const std::vector<unsigned char> blocks = encode_all(events.data(), ~std::uint64_t{0}, 0, events.size());
    expect_same(decode_all(blocks, 0), events);
    std::printf("halo exchange with %d neighbours: %.2f bytes per event\n", neighbours, bytes_per_event(blocks, events.size()));
    // Each event refers to the same neighbour's previous one while there are slots for every
    // neighbour (a 3D stencil's 26, a 2D one's 4): the times' deltas are most of what is left (format 5,
    // which referred to the previous neighbour's, took 15).
    if (neighbours == 4 || neighbours == 26) {
      EXPECT_LT(bytes_per_event(blocks, events.size()), 9.0) << neighbours << " neighbours";
    }
  }
}

// The mask's word compares, SSE2 or not, against a byte-by-byte truth: every one of the 18 words
// after the times changed alone, and random pairs differing in a few bytes.
TEST(EventBlocks, TheWordsInWhichTwoEventsDifferAreFoundWithOrWithoutSSE2) {
  const auto truth = [](const Event& a, const Event& b) {
    std::uint32_t d = 0;
    for (std::size_t at = 16; at < sizeof(Event); ++at)
      if (reinterpret_cast<const unsigned char*>(&a)[at] != reinterpret_cast<const unsigned char*>(&b)[at])
        d |= 1u << ((at - 16) / 4);
    return d & ~(1u << ((offsetof(Event, call) - 16) / 4));  // the call's word is not compared
  };
  std::mt19937_64 rng(9);
  const std::vector<Event> events = wild(64, 4);
  for (int trial = 0; trial < 20000; ++trial) {
    Event a = events[rng() % events.size()], b = a;
    if (trial < 18 * 8) {
      reinterpret_cast<unsigned char*>(&b)[16 + 4 * (trial % 18) + (trial / 18) % 4] ^= 1;  // one word, one byte
    } else {
      for (int k = static_cast<int>(rng() % 4); k-- > 0;) reinterpret_cast<unsigned char*>(&b)[rng() % sizeof(Event)] ^= 0x40;
    }
    const std::uint32_t want = truth(a, b);
    ASSERT_EQ(differing_words(a, b), want) << trial;
    ASSERT_EQ(differing_words_portable(a, b), want) << trial;
  }
}

// One event's payload in a block with a valid check: what each rule of the decoder refuses, beside
// a control it accepts (the same payloads are refused by tests/e2e/spool_blocks.py, e2e test
// spool_blocks_crosscheck).
TEST(EventBlocks, BlocksBreakingOneRuleAreRefused) {
  const auto block_of = [](const std::string& hex) {
    std::vector<unsigned char> block(kEventBlock, 0);
    EventBlockHead head;
    head.events = 1;
    head.bytes = static_cast<std::uint16_t>(hex.size() / 2);
    for (std::size_t k = 0; k < hex.size() / 2; ++k)
      block[sizeof head + k] = static_cast<unsigned char>(std::stoi(hex.substr(2 * k, 2), nullptr, 16));
    head.check = event_block_check(head, block.data() + sizeof head);
    std::memcpy(block.data(), &head, sizeof head);
    return block;
  };
  const auto accepted = [&](const std::string& hex) {
    const std::vector<unsigned char> block = block_of(hex);
    EventBlockDecoder decoder;
    std::vector<Event> out(kMaxEventsPerBlock);
    EventBlockHead head;
    return decoder.decode(block.data(), out.data(), head);
  };
  EXPECT_TRUE(accepted("01020000")) << "control: call 0, a new slot, nothing changed";
  EXPECT_FALSE(accepted("d904020000")) << "call beyond 511";
  EXPECT_FALSE(accepted("018280010000")) << "mask bit 12";
  EXPECT_FALSE(accepted("010280808080808080802000")) << "t_enter 2^60 ticks";
  EXPECT_FALSE(accepted("0102808080808080808080800000")) << "an 11-byte varint";
  EXPECT_FALSE(accepted("010302000000")) << "which 3: slot 2 of none filled";
  EXPECT_FALSE(accepted("0100000000")) << "which 0 with no slot filled";
}

// A block as this format's writer wrote it, byte for byte: a change of the encoding must be
// deliberate (spool_blocks.py, the documented reader, must change with it). Events: two calls interleaved, unchanged and changed
// fields of either width, a negative delta, a raw event (half a tick) and a duration below zero.
std::vector<Event> golden_events() {
  std::vector<Event> ev;
  Event e;
  e.call = 4;
  e.peer = 1;
  e.tag = 7;
  e.comm = 0;
  e.bytes = e.extent = 64;
  e.count = 8;
  e.buffer = 0x7ffd00001000;
  e.call_site = 0x401234;
  e.same_node = 1;
  e.rank = 2;
  e.iteration = 0;
  e.t_enter = 1000;
  e.t_exit = 1250;
  ev.push_back(e);
  Event r = e;
  r.call = 12;
  r.tag = -1;
  r.peer = 3;
  r.buffer = 0x7ffd00002000;
  r.call_site = 0x401300;
  r.t_enter = 1400;
  r.t_exit = 2400;
  ev.push_back(r);
  e.t_enter = 2500;
  e.t_exit = 2700;
  ev.push_back(e);
  r.t_enter = 2800;
  r.t_exit = 2810;
  r.iteration = 1;
  r.peer = 0;
  ev.push_back(r);
  e.t_enter = 2900;
  e.t_exit = 2950;
  e.request = 77;
  e.bytes = -5;
  e.tag = std::numeric_limits<std::int32_t>::min();
  ev.push_back(e);
  Event raw = e;
  raw.t_enter = 3000.5;
  raw.t_exit = 3001;
  ev.push_back(raw);
  e.t_enter = 3100;
  e.t_exit = 3000;
  e.request = 70;
  e.iteration = 1;
  e.extent = std::numeric_limits<std::int64_t>::max();
  ev.push_back(e);
  Event w;
  w.call = 29;
  w.count = 2;
  w.call_site = 0x401400;
  w.t_enter = 3200;
  w.t_exit = 9000;
  ev.push_back(w);
  w.t_enter = 9100;
  w.t_exit = 9100;
  w.count = 3;
  ev.push_back(w);
  return ev;
}

TEST(EventBlocks, AGoldenBlockIsReadAndWrittenBitForBit) {
  constexpr const char* kHex =  // the head (9 events, 212 bytes, first 42, check) and the payload
      "52504c450900d4002a00000000000000b568cb0c928fa13805fa7fd00ff40302"
      "80c08080a0ff3f04101080018001e8c880040202040dba7fa006d00f02808081"
      "80a0ff3f08108001800180cc80040202040500981190030d2ad80414020505c4"
      "02c801649c018d80808010890100000000000071a740000000000072a7400010"
      "0000fd7f0000fbffffffffffffff40000000000000004d000000000000003412"
      "4000000000000400000001000000000000800000000000000000080000000100"
      "000002000000058c049003c7010d02fefeffffffffffffff011e8209c801d05a"
      "0480d080041e8001985c0002";
  std::vector<unsigned char> block(kEventBlock, 0);
  const std::string hex = kHex;
  ASSERT_EQ(hex.size(), 2 * (sizeof(EventBlockHead) + 212));
  for (std::size_t k = 0; k < hex.size() / 2; ++k)
    block[k] = static_cast<unsigned char>(std::stoi(hex.substr(2 * k, 2), nullptr, 16));
  EventBlockDecoder decoder;
  std::vector<Event> out(kMaxEventsPerBlock);
  EventBlockHead head;
  ASSERT_TRUE(decoder.decode(block.data(), out.data(), head));
  EXPECT_EQ(head.first, 42u);
  out.resize(head.events);
  expect_same(out, golden_events());
  const std::vector<Event> events = golden_events();
  std::vector<unsigned char> again(kEventBlock);
  EventBlockEncoder encoder;
  ASSERT_EQ(encoder.encode(events.data(), ~std::uint64_t{0}, 0, events.size(), 42, again.data()), events.size());
  EXPECT_EQ(again, block);
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
  expect_same(decode_all(blocks, 0), events);
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
