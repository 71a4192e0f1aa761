#pragma once
// The event spool's records from version 5 on (docs/trace-format.md, "Spool files"): self-contained
// 4 KiB blocks of compactly encoded events, instead of raw 88-byte events. A traced run that makes
// MPI calls back to back produces events faster than a disk takes 88 bytes each (on the development
// VM 5 x 10^6 events/s against 0.7 to 1.2 GB/s), and the flusher's I/O then competes with the ranks;
// encoded, a ping-pong's event takes about 6 bytes. Each block decodes on its own (the encoder's
// state restarts in every block) and is numbered and checked, so a block that never reached the disk
// or was damaged costs only its own events, and they are counted.
//
// A block: an EventBlockHead, then `bytes` bytes of events, zeros to its end. An event is
//   varint  call + 1, or 0 for a raw event: its 88 bytes (struct Event) follow
//   varint  mask: bit k set where field k (kFields order) differs from the same call's previous
//           event in the block (before the first: a default Event)
//   varint  zigzag(t_enter - the block's previous compact event's t_enter, first: - 0), in raw ticks
//   varint  zigzag(t_exit - t_enter)
//   varint  zigzag(value - previous value) for each field of the mask, in order (64-bit, wrapping)
// Raw events (a call id below 0 or beyond kMaxCall, a time that is not a whole number of ticks within
// 2^53 or is -0, or a compact form longer than the raw one) leave the state as it was.
#include <cstddef>
#include <cstdint>

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

// What an event is encoded against, the same for the encoder and the decoder: each call's previous
// compact event in the current block (a default Event before the first).
class BlockState {
public:
  void start_block();  // every call's previous event forgotten
  [[nodiscard]] const Event& before(std::size_t call) const { return generation_[call] == block_ ? previous_[call] : kDefault; }
  // `e` of `call` was encoded compactly; `changed`: its mask (0: previous_ holds its fields already,
  // and the times are not used).
  void remember(std::size_t call, const Event& e, std::uint64_t changed) {
    if (changed != 0 || generation_[call] != block_) previous_[call] = e;
    generation_[call] = block_;
  }

private:
  static inline const Event kDefault{};
  Event previous_[kMaxCall + 1];
  std::uint32_t generation_[kMaxCall + 1] = {};  // previous_[c] is of this block if generation_[c] == block_
  std::uint32_t block_ = 0;
};

class EventBlockEncoder {
public:
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
  // The events of one block into `out` (room for kMaxEventsPerBlock); false, with `out` undefined,
  // unless the block is whole and consistent: its magic, sizes and check, and events that end
  // exactly at its bytes with every value in range. `head` is the block's head as read.
  bool decode(const unsigned char* block, Event* out, EventBlockHead& head);

private:
  BlockState state_;
};

}  // namespace ripple::trace::detail
