#pragma once
// The event spool's records (docs/trace-format.md, "Spool files"): self-contained
// 4 KiB blocks of compactly encoded events, instead of raw 88-byte events. A traced run that makes
// MPI calls back to back produces events faster than a disk takes 88 bytes each (on the development
// VM 5 x 10^6 events/s against 0.7 to 1.2 GB/s), and the flusher's I/O then competes with the ranks;
// encoded, a ping-pong's event takes about 6 bytes. Each block decodes on its own (the encoder's
// state restarts in every block) and is numbered and checked, so a block that never reached the disk
// or was damaged costs only its own events, and they are counted.
//
// A block: an EventBlockHead, then `bytes` bytes of events, zeros to its end. An event is
//   varint  call + 1, or 0 for a raw event: its 88 bytes (struct Event) follow
//   varint  mask << 2 | which: bit k of mask set where field k (in the format's field order)
//           differs from the reference event
//   varint  (which = 3 only) the slot referred to
//   varint  zigzag(t_enter - the block's previous compact event's t_enter, first: - 0), in raw ticks
//   varint  zigzag(t_exit - t_enter)
//   varint  zigzag(value - reference value) for each field of the mask, in order (64-bit, wrapping)
// The reference: the encoder keeps, per call, the latest events of up to kReferences distinct keys of
// (peer, buffer) in slots, filled in turn, and refers an event to the slot with its key, which it
// then replaces: `which` 0 names the slot after the call's latest one (wrapping at the slots filled),
// 1 the latest, 3 the one whose number follows; 2 says that no slot has it: the reference is the
// call's latest event (or a default one) and the event takes the call's next slot in turn. A halo
// exchange with up to kReferences neighbours, in the same order each time, is so encoded against the
// same neighbour's previous exchange, in a few bytes.
// Raw events (a call id below 0 or beyond kMaxCall, a time that is not a whole number of ticks within
// 2^53 or is -0, or a compact form longer than the raw one) leave the state as it was.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ripple/trace/event.hpp"

namespace ripple::trace::detail {

struct EventBlockHead {
  char magic[4] = {'R', 'P', 'L', 'E'};
  std::uint16_t events = 0;  // events encoded in the block
  std::uint16_t bytes = 0;   // their bytes after the head
  std::uint64_t first = 0;   // the number of the block's first event in the rank's stream (MPI_Init's is 0)
  std::uint64_t check = 0;   // event_block_check of the head and those bytes
};
static_assert(sizeof(EventBlockHead) == 24, "documented in docs/trace-format.md");

inline constexpr std::size_t kEventBlock = 4096;
inline constexpr std::size_t kEventBlockPayload = kEventBlock - sizeof(EventBlockHead);
inline constexpr std::int32_t kMaxCall = 511;                              // calls encoded compactly; others raw
inline constexpr std::size_t kMaxEventsPerBlock = kEventBlockPayload / 4;  // an event takes 4 bytes at least
inline constexpr int kEventFields = 12;                                    // the fields a mask covers
static_assert(kEventBlockPayload % 8 == 0, "the check reads the payload in whole words, within the block");

// The block's check: FNV-1a over little-endian 64-bit words, first events + 65536 * bytes, then
// first, then the payload's words (the last one as it lies in the block: zeros follow the payload).
std::uint64_t event_block_check(const EventBlockHead& head, const unsigned char* payload);

// The 4-byte words after the times (18, struct Event's bytes 16 to 87) in which two events differ,
// as bits, the call's own word left out: what an event's mask is made of. With SSE2 where the
// target has it; the portable version is what other targets run, and what the tests hold it to.
std::uint32_t differing_words(const Event& e, const Event& before);
std::uint32_t differing_words_portable(const Event& e, const Event& before);

// The block format (the spool version that uses it: recover reads no other).
inline constexpr int kBlockFormat = 6;
inline constexpr int kReferences = 32;  // slots per call: a 3D stencil's 26 neighbours fit

// What an event is encoded against, the same for the encoder and the decoder: each call's slots of
// earlier compact events in the current block. Memory for a call's slots is taken
// from a reservation the first time the call is seen: no allocation after construction.
class BlockState {
public:
  BlockState();
  BlockState(const BlockState&) = delete;  // group_of_ points into groups_
  BlockState& operator=(const BlockState&) = delete;
  enum Which : int { kNext = 0, kLatest = 1, kNew = 2, kNumbered = 3 };
  struct Reference {
    Which which = kNew;
    int slot = 0;  // kNext, kLatest, kNumbered: the slot
  };
  // What a call's slots hold; their events are kept in the call's group.
  struct Slots {
    std::uint32_t block = 0;                        // the slots hold events of this block only if block == block_
    std::uint8_t filled = 0, latest = 0, next = 0;  // slots [0, filled) hold events; the latest; the next one new
  };
  void start_block();  // every call's events forgotten
  // The call's slots in this block: what the calls below take.
  Slots& slots(std::size_t call) {
    Slots& s = calls_[call];
    if (s.block != block_) s = Slots{block_};
    return s;
  }
  // The slot whose event has e's key, or kNew.
  [[nodiscard]] Reference find(std::size_t call, const Slots& s, const Event& e) const;
  // What `which` (and for kNumbered `slot`) names, or false if it names no slot that holds an event:
  // a damaged block.
  [[nodiscard]] static bool resolve(const Slots& s, Which which, std::uint64_t slot, Reference& out);
  // The event one is encoded against.
  [[nodiscard]] const Event& event(std::size_t call, const Slots& s, const Reference& r) const {
    if (r.which != kNew) return group_of_[call]->events[r.slot];
    return s.filled != 0 ? group_of_[call]->events[s.latest] : kDefault;
  }
  // `e` of `call` was encoded compactly against `r`; `changed`: its mask (0: the slot holds its fields
  // already, and the times are not used).
  void remember(std::size_t call, Slots& s, const Reference& r, const Event& e, std::uint64_t changed);

private:
  struct Group {
    Event events[kReferences];
    std::uint64_t keys[kReferences];  // of the events' (peer, buffer): where the encoder looks
  };
  static std::uint64_t key(const Event& e) {
    return e.buffer ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(e.peer)) * 0x9e3779b97f4a7c15ULL);
  }
  static inline const Event kDefault{};
  std::vector<Group> groups_;           // reserved for every call: taken in order of first use
  Group* group_of_[kMaxCall + 1] = {};  // null until the call is first remembered
  Slots calls_[kMaxCall + 1];
  std::uint32_t block_ = 0;
};

class EventBlockEncoder {
public:
  EventBlockEncoder() = default;
  // Encodes events [from, to) of `ring` (slot k & mask; mask ~0 for a plain array) into one block at
  // `block` (kEventBlock bytes, all written), numbered `first`; returns how many it took: at least
  // one if from < to.
  std::size_t encode(const Event* ring, std::uint64_t mask, std::uint64_t from, std::uint64_t to, std::uint64_t first,
                     unsigned char* block);

private:
  BlockState state_;
};

class EventBlockDecoder {
public:
  EventBlockDecoder() = default;
  // The events of one block into `out` (room for kMaxEventsPerBlock); false, with `out` undefined,
  // unless the block is whole and consistent: its magic, sizes and check, and events that end
  // exactly at its bytes with every value in range. `head` is the block's head as read.
  bool decode(const unsigned char* block, Event* out, EventBlockHead& head);

private:
  BlockState state_;
};

}  // namespace ripple::trace::detail
