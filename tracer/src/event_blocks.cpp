#include "event_blocks.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <limits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ripple::trace::detail {
namespace {

// The fields an event's mask covers, in bit order: those that change most often first, so that a
// mask usually fits one varint byte. 64-bit ones as they are, 32-bit ones sign-extended. An event
// refers to the same (peer, buffer)'s previous one, so that they differ mostly in request and
// iteration, which lead.
constexpr int kFields = kEventFields;
struct FieldAt {
  std::size_t offset, size;
};
constexpr std::array<FieldAt, kFields> kFieldOrder = {{{offsetof(Event, request), 8},
                                                       {offsetof(Event, iteration), 4},
                                                       {offsetof(Event, buffer), 8},
                                                       {offsetof(Event, peer), 4},
                                                       {offsetof(Event, tag), 4},
                                                       {offsetof(Event, count), 4},
                                                       {offsetof(Event, bytes), 8},
                                                       {offsetof(Event, extent), 8},
                                                       {offsetof(Event, call_site), 8},
                                                       {offsetof(Event, comm), 4},
                                                       {offsetof(Event, same_node), 4},
                                                       {offsetof(Event, rank), 4}}};

// Everything but the times: the nine words after t_exit.
constexpr int kWords = 9;
static_assert(offsetof(Event, buffer) == 16 && sizeof(Event) == 16 + 8 * kWords);
static_assert(offsetof(Event, call) == 16 + 8 * 5, "word 5's low half is the call");

// The fields, laid out for the encoder and decoder. A field's value is read as a 64-bit
// word without a branch on its width: a 32-bit field is the high half of the word that ends with
// it (little-endian), shifted down with its sign; every such word lies within the event, as a word
// starting at the field would not for the last one.
struct FieldLayout {
  std::array<FieldAt, kFields> at;
  std::array<std::size_t, kFields> load;  // where the word holding the field starts
  std::array<unsigned, kFields> shift;    // 32 for a 32-bit field, else 0
};
constexpr FieldLayout layout_of(const std::array<FieldAt, kFields>& at) {
  FieldLayout l{at, {}, {}};
  for (int f = 0; f < kFields; ++f) {
    const bool wide = at[f].size == 8;
    l.load[f] = wide ? at[f].offset : at[f].offset - 4;
    l.shift[f] = wide ? 0 : 32;
  }
  return l;
}
constexpr FieldLayout kLayout = layout_of(kFieldOrder);

std::uint64_t field(const Event& e, int f) {
  std::uint64_t word = 0;
  std::memcpy(&word, reinterpret_cast<const char*>(&e) + kLayout.load[f], 8);
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(word) >> kLayout.shift[f]);
}

// False if the value does not fit the field (a 32-bit one: a damaged block).
bool set_field(Event& e, int f, std::uint64_t v) {
  char* at = reinterpret_cast<char*>(&e) + kLayout.at[f].offset;
  if (kLayout.at[f].size == 8) {
    std::memcpy(at, &v, 8);
    return true;
  }
  const auto s = static_cast<std::int64_t>(v);
  if (s < std::numeric_limits<std::int32_t>::min() || s > std::numeric_limits<std::int32_t>::max()) return false;
  const auto narrow = static_cast<std::int32_t>(s);
  std::memcpy(at, &narrow, 4);
  return true;
}

constexpr int kDwords = 2 * kWords;
constexpr std::uint32_t kCallDword = (offsetof(Event, call) - 16) / 4;

}  // namespace

std::uint32_t differing_words_portable(const Event& e, const Event& before) {
  const char* a = reinterpret_cast<const char*>(&e) + 16;
  const char* b = reinterpret_cast<const char*>(&before) + 16;
  std::uint32_t differ = 0;
  for (int w = 0; w < kDwords; ++w) {
    std::uint32_t x = 0, y = 0;
    std::memcpy(&x, a + 4 * w, 4);
    std::memcpy(&y, b + 4 * w, 4);
    differ |= static_cast<std::uint32_t>(x != y) << w;
  }
  return differ & ~(1u << kCallDword);
}

std::uint32_t differing_words(const Event& e, const Event& before) {
#if defined(__SSE2__)
  const char* a = reinterpret_cast<const char*>(&e) + 16;
  const char* b = reinterpret_cast<const char*>(&before) + 16;
  const auto same = [&](int at) {  // 4 bits: which of the 4 words at `at` are equal
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + at));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + at));
    return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(x, y))));
  };
  // The last load, at 56, covers words 14 to 17: its two first overlap the one at 48, alike.
  const std::uint32_t equal = same(0) | same(16) << 4 | same(32) << 8 | same(48) << 12 | same(56) << 14;
  return ~equal & ((1u << kDwords) - 1) & ~(1u << kCallDword);
#else
  return differing_words_portable(e, before);
#endif
}

namespace {

// The mask from differing_words, in three lookups of 6 words each: entry x of table t has
// the bit of every field with one of its words among the set bits of x (words 6t to 6t + 5).
struct MaskTables {
  std::uint16_t of[3][64];
};
constexpr MaskTables kMaskTables = [] {
  MaskTables t{};
  for (int chunk = 0; chunk < 3; ++chunk)
    for (std::uint32_t x = 0; x < 64; ++x)
      for (int f = 0; f < kFields; ++f) {
        const auto first = static_cast<int>((kLayout.at[f].offset - 16) / 4);
        const auto words = static_cast<int>(kLayout.at[f].size / 4);
        for (int w = first; w < first + words; ++w)
          if (w / 6 == chunk && ((x >> (w % 6)) & 1) != 0) t.of[chunk][x] |= static_cast<std::uint16_t>(1u << f);
      }
  return t;
}();

// The mask of fields in which `e` differs from `before`: most events of a loop differ in none.
std::uint64_t changed_fields(const Event& e, const Event& before) {
  const std::uint32_t d = differing_words(e, before);
  if (d == 0) return 0;
  const MaskTables& t = kMaskTables;
  return std::uint64_t{t.of[0][d & 63]} | t.of[1][(d >> 6) & 63] | t.of[2][d >> 12];
}

constexpr std::int64_t kTickLimit = std::int64_t{1} << 53;  // exact in a double

// A time that is a whole number of ticks within +-2^53 (what the recorder stamps), as an integer.
// Converted there and back, it must come back bit for bit: NaN, fractions and -0 do not.
bool whole_ticks(double t, std::int64_t& out) {
  if (!(t >= -static_cast<double>(kTickLimit) && t <= static_cast<double>(kTickLimit))) return false;  // NaN too
  out = static_cast<std::int64_t>(t);
  return std::bit_cast<std::uint64_t>(static_cast<double>(out)) == std::bit_cast<std::uint64_t>(t);
}

std::uint64_t zigzag(std::uint64_t delta) { return (delta << 1) ^ (0 - (delta >> 63)); }
std::uint64_t unzigzag(std::uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

unsigned char* put_varint(unsigned char* p, std::uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return p;
}

// False if the bytes end inside the varint or it does not fit 64 bits.
bool get_varint(const unsigned char*& p, const unsigned char* end, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const std::uint64_t byte = *p++;
    if (shift == 63 && byte > 1) return false;
    v |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace

BlockState::BlockState() {
  groups_.reserve(kMaxCall + 1);  // address space only, until a call is first seen
}

void BlockState::start_block() {
  if (++block_ == 0) {  // wrapped: every call's slots made stale again
    for (Slots& s : calls_) s.block = 0;
    block_ = 1;
  }
}

inline BlockState::Reference BlockState::find(std::size_t call, const Slots& s, const Event& e) const {
  if (s.filled == 0) return {kNew, 0};
  // From the slot after the latest: a loop over neighbours in the same order finds it at once.
  const std::uint64_t* keys = group_of_[call]->keys;
  const std::uint64_t k = key(e);
  const int after = s.latest + 1 == s.filled ? 0 : s.latest + 1;
  if (keys[after] == k) return {kNext, after};
  for (int j = 0; j < s.filled; ++j)
    if (keys[j] == k) return {j == s.latest ? kLatest : kNumbered, j};
  return {kNew, 0};
}

inline bool BlockState::resolve(const Slots& s, Which which, std::uint64_t slot, Reference& out) {
  switch (which) {
    case kNew:
      out = {kNew, 0};
      return true;
    case kNext:
      out = {kNext, s.latest + 1 == s.filled ? 0 : s.latest + 1};
      return s.filled != 0;
    case kLatest:
      out = {kLatest, s.latest};
      return s.filled != 0;
    case kNumbered:
      out = {kNumbered, static_cast<int>(slot < kReferences ? slot : 0)};
      return slot < s.filled;
  }
  return false;
}

inline void BlockState::remember(std::size_t call, Slots& s, const Reference& r, const Event& e, std::uint64_t changed) {
  int slot = r.slot;
  if (r.which == kNew) {                                                        // the call's next slot in turn
    if (group_of_[call] == nullptr) group_of_[call] = &groups_.emplace_back();  // within the reservation: never moves
    slot = s.next;
    s.next = static_cast<std::uint8_t>(s.next + 1 == kReferences ? 0 : s.next + 1);
    if (s.filled < kReferences) ++s.filled;
    group_of_[call]->events[slot] = e;
    group_of_[call]->keys[slot] = key(e);
  } else if (changed != 0) {
    group_of_[call]->events[slot] = e;  // the same (peer, buffer), or a key's collision: the key stands
  }
  s.latest = static_cast<std::uint8_t>(slot);
}

namespace {

constexpr unsigned kWhichBits = 2;                                       // the mask word's low bits say which slot is referred to
constexpr std::size_t kMaxEncoded = 2 + 2 + 1 + 10 + 10 + 10 * kFields;  // call, mask, slot, two times, every field
static_assert(kMaxEncoded >= 1 + sizeof(Event), "a raw event fits where the largest compact one does");

std::size_t encode_block(BlockState& state, const Event* ring, std::uint64_t mask, std::uint64_t from, std::uint64_t to,
                         std::uint64_t first, unsigned char* block) {
  state.start_block();
  unsigned char* payload = block + sizeof(EventBlockHead);
  std::size_t used = 0, n = 0;
  std::int64_t previous_t = 0;
  unsigned char scratch[kMaxEncoded];
  for (std::uint64_t k = from; k < to && n < kMaxEventsPerBlock; ++k) {
    const Event& e = ring[k & mask];
    // Straight into the block while the largest event fits; near its end through scratch, to see.
    unsigned char* const out = kEventBlockPayload - used >= kMaxEncoded ? payload + used : scratch;
    std::int64_t t_enter = 0, t_exit = 0;
    bool compact = e.call >= 0 && e.call <= kMaxCall && whole_ticks(e.t_enter, t_enter) && whole_ticks(e.t_exit, t_exit);
    std::size_t len = 0;
    std::uint64_t changed = 0;
    BlockState::Reference reference;
    BlockState::Slots* slots = nullptr;
    if (compact) {
      const auto c = static_cast<std::size_t>(e.call);
      slots = &state.slots(c);
      reference = state.find(c, *slots, e);
      const Event& before = state.event(c, *slots, reference);
      changed = changed_fields(e, before);
      unsigned char* p = put_varint(out, c + 1);
      p = put_varint(p, changed << kWhichBits | reference.which);
      if (reference.which == BlockState::kNumbered) p = put_varint(p, static_cast<std::uint64_t>(reference.slot));
      p = put_varint(p, zigzag(static_cast<std::uint64_t>(t_enter) - static_cast<std::uint64_t>(previous_t)));
      p = put_varint(p, zigzag(static_cast<std::uint64_t>(t_exit) - static_cast<std::uint64_t>(t_enter)));
      for (std::uint64_t left = changed; left != 0; left &= left - 1) {
        const int f = std::countr_zero(left);
        p = put_varint(p, zigzag(field(e, f) - field(before, f)));
      }
      len = static_cast<std::size_t>(p - out);
      compact = len <= 1 + sizeof(Event);  // else raw is smaller
    }
    if (!compact) {
      out[0] = 0;
      std::memcpy(out + 1, &e, sizeof e);
      len = 1 + sizeof e;
    }
    if (out == scratch) {
      if (used + len > kEventBlockPayload) break;
      std::memcpy(payload + used, scratch, len);
    }
    used += len;
    ++n;
    if (compact) {
      state.remember(static_cast<std::size_t>(e.call), *slots, reference, e, changed);
      previous_t = t_enter;
    }
  }
  std::memset(payload + used, 0, kEventBlockPayload - used);
  EventBlockHead head;
  head.events = static_cast<std::uint16_t>(n);
  head.bytes = static_cast<std::uint16_t>(used);
  head.first = first;
  head.check = event_block_check(head, payload);
  std::memcpy(block, &head, sizeof head);
  return n;
}

bool decode_block(BlockState& state, const unsigned char* block, Event* out, EventBlockHead& head) {
  std::memcpy(&head, block, sizeof head);
  if (std::memcmp(head.magic, EventBlockHead{}.magic, sizeof head.magic) != 0 || head.bytes > kEventBlockPayload ||
      head.events > kMaxEventsPerBlock)
    return false;
  const unsigned char* p = block + sizeof head;
  const unsigned char* end = p + head.bytes;
  if (event_block_check(head, p) != head.check) return false;
  state.start_block();
  std::int64_t previous_t = 0;
  for (std::size_t n = 0; n < head.events; ++n) {
    std::uint64_t call = 0, changed = 0, dt = 0, duration = 0;
    if (!get_varint(p, end, call)) return false;
    if (call == 0) {  // raw
      if (end - p < static_cast<std::ptrdiff_t>(sizeof(Event))) return false;
      std::memcpy(&out[n], p, sizeof(Event));
      p += sizeof(Event);
      continue;
    }
    if (call > kMaxCall + 1 || !get_varint(p, end, changed)) return false;
    const std::size_t c = call - 1;
    BlockState::Slots& slots = state.slots(c);
    const auto which = static_cast<BlockState::Which>(changed & ((1u << kWhichBits) - 1));
    changed >>= kWhichBits;
    std::uint64_t slot = 0;
    if (which == BlockState::kNumbered && !get_varint(p, end, slot)) return false;
    BlockState::Reference reference;
    if (!BlockState::resolve(slots, which, slot, reference)) return false;
    if ((changed >> kFields) != 0 || !get_varint(p, end, dt) || !get_varint(p, end, duration)) return false;
    const auto t_enter = static_cast<std::int64_t>(static_cast<std::uint64_t>(previous_t) + unzigzag(dt));
    const auto t_exit = static_cast<std::int64_t>(static_cast<std::uint64_t>(t_enter) + unzigzag(duration));
    if (t_enter < -kTickLimit || t_enter > kTickLimit || t_exit < -kTickLimit || t_exit > kTickLimit) return false;
    Event& e = out[n];
    e = state.event(c, slots, reference);
    for (std::uint64_t left = changed; left != 0; left &= left - 1) {
      const int f = std::countr_zero(left);
      std::uint64_t delta = 0;
      if (!get_varint(p, end, delta) || !set_field(e, f, field(e, f) + unzigzag(delta))) return false;
    }
    e.call = static_cast<std::int32_t>(c);
    e.t_enter = static_cast<double>(t_enter);
    e.t_exit = static_cast<double>(t_exit);
    state.remember(c, slots, reference, e, changed);
    previous_t = t_enter;
  }
  return p == end;
}

}  // namespace

std::uint64_t event_block_check(const EventBlockHead& head, const unsigned char* payload) {
  std::uint64_t h = 14695981039346656037ull;
  const auto mix = [&h](std::uint64_t word) { h = (h ^ word) * 1099511628211ull; };
  mix(head.events + (std::uint64_t{head.bytes} << 16));
  mix(head.first);
  for (std::size_t at = 0; at < head.bytes; at += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, payload + at, 8);  // little-endian hosts only (x86-64, aarch64)
    mix(word);
  }
  return h;
}

std::size_t EventBlockEncoder::encode(const Event* ring, std::uint64_t mask, std::uint64_t from, std::uint64_t to,
                                      std::uint64_t first, unsigned char* block) {
  return encode_block(state_, ring, mask, from, to, first, block);
}

bool EventBlockDecoder::decode(const unsigned char* block, Event* out, EventBlockHead& head) {
  return decode_block(state_, block, out, head);
}

}  // namespace ripple::trace::detail
