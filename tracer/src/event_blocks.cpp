#include "event_blocks.hpp"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>

namespace ripple::trace::detail {
namespace {

// The fields an event's mask covers, in bit order: those that change most often first, so that a
// mask usually fits one varint byte. 64-bit ones as they are, 32-bit ones sign-extended.
constexpr int kFields = kEventFields;
struct FieldAt {
  std::size_t offset, size;
};
constexpr FieldAt kField[kFields] = {
    {offsetof(Event, request), 8},   {offsetof(Event, buffer), 8}, {offsetof(Event, peer), 4},      {offsetof(Event, tag), 4},
    {offsetof(Event, iteration), 4}, {offsetof(Event, count), 4},  {offsetof(Event, bytes), 8},     {offsetof(Event, extent), 8},
    {offsetof(Event, call_site), 8}, {offsetof(Event, comm), 4},   {offsetof(Event, same_node), 4}, {offsetof(Event, rank), 4}};

std::uint64_t field(const Event& e, int f) {
  const char* at = reinterpret_cast<const char*>(&e) + kField[f].offset;
  if (kField[f].size == 4) {
    std::int32_t v = 0;
    std::memcpy(&v, at, 4);
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  }
  std::uint64_t v = 0;
  std::memcpy(&v, at, 8);
  return v;
}

// False if the value does not fit the field (a 32-bit one: a damaged block).
bool set_field(Event& e, int f, std::uint64_t v) {
  char* at = reinterpret_cast<char*>(&e) + kField[f].offset;
  if (kField[f].size == 8) {
    std::memcpy(at, &v, 8);
    return true;
  }
  const auto s = static_cast<std::int64_t>(v);
  if (s < std::numeric_limits<std::int32_t>::min() || s > std::numeric_limits<std::int32_t>::max()) return false;
  const auto narrow = static_cast<std::int32_t>(s);
  std::memcpy(at, &narrow, 4);
  return true;
}

// Everything but the times and the call: the 72 bytes after t_exit up to `call`, and what follows it.
static_assert(offsetof(Event, buffer) == 16 && offsetof(Event, call) == 56 && sizeof(Event) == 88);

// The mask of fields in which `e` differs from `before`; most events of a loop differ in none, which
// one pass over the event's words finds.
std::uint64_t changed_fields(const Event& e, const Event& before) {
  const auto word = [](const Event& x, int w) {
    std::uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const char*>(&x) + 16 + 8 * w, 8);
    return v;
  };
  const auto diff = [&](int w) { return word(e, w) ^ word(before, w); };
  const std::uint64_t any = diff(0) | diff(1) | diff(2) | diff(3) | diff(4) | (diff(5) & ~std::uint64_t{0xffffffff}) | diff(6) |
                            diff(7) | diff(8);  // word 5's low half is the call itself (little-endian)
  if (any == 0) return 0;
  std::uint64_t changed = 0;
  for (int f = 0; f < kFields; ++f) changed |= static_cast<std::uint64_t>(field(e, f) != field(before, f)) << f;
  return changed;
}

constexpr std::int64_t kTickLimit = std::int64_t{1} << 53;  // exact in a double

// A time that is a whole number of ticks within +-2^53 (what the recorder stamps), as an integer.
bool whole_ticks(double t, std::int64_t& out) {
  if (!(t >= -static_cast<double>(kTickLimit) && t <= static_cast<double>(kTickLimit))) return false;  // NaN too
  if (t == 0 && std::signbit(t)) return false;  // -0: raw, to come back bit for bit
  out = static_cast<std::int64_t>(t);
  return static_cast<double>(out) == t;
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

constexpr std::size_t kMaxEncoded = 2 + 2 + 10 + 10 + 10 * kFields;  // call, mask, two times, every field
static_assert(kMaxEncoded >= 1 + sizeof(Event), "a raw event fits where the largest compact one does");

}  // namespace

void BlockState::start_block() {
  if (++block_ == 0) {  // wrapped: every entry made stale again
    std::memset(generation_, 0, sizeof generation_);
    block_ = 1;
  }
}

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
  state_.start_block();
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
    if (compact) {
      const auto c = static_cast<std::size_t>(e.call);
      const Event& before = state_.before(c);
      changed = changed_fields(e, before);
      unsigned char* p = put_varint(out, c + 1);
      p = put_varint(p, changed);
      p = put_varint(p, zigzag(static_cast<std::uint64_t>(t_enter) - static_cast<std::uint64_t>(previous_t)));
      p = put_varint(p, zigzag(static_cast<std::uint64_t>(t_exit) - static_cast<std::uint64_t>(t_enter)));
      for (int f = 0; changed >> f != 0; ++f)
        if ((changed >> f) & 1) p = put_varint(p, zigzag(field(e, f) - field(before, f)));
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
      state_.remember(static_cast<std::size_t>(e.call), e, changed);
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

bool EventBlockDecoder::decode(const unsigned char* block, Event* out, EventBlockHead& head) {
  std::memcpy(&head, block, sizeof head);
  if (std::memcmp(head.magic, EventBlockHead{}.magic, sizeof head.magic) != 0 || head.bytes > kEventBlockPayload ||
      head.events > kMaxEventsPerBlock)
    return false;
  const unsigned char* p = block + sizeof head;
  const unsigned char* end = p + head.bytes;
  if (event_block_check(head, p) != head.check) return false;
  state_.start_block();
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
    if (call > kMaxCall + 1 || !get_varint(p, end, changed) || (changed >> kFields) != 0 || !get_varint(p, end, dt) ||
        !get_varint(p, end, duration))
      return false;
    const std::size_t c = call - 1;
    const auto t_enter = static_cast<std::int64_t>(static_cast<std::uint64_t>(previous_t) + unzigzag(dt));
    const auto t_exit = static_cast<std::int64_t>(static_cast<std::uint64_t>(t_enter) + unzigzag(duration));
    if (t_enter < -kTickLimit || t_enter > kTickLimit || t_exit < -kTickLimit || t_exit > kTickLimit) return false;
    Event& e = out[n];
    e = state_.before(c);
    for (int f = 0; changed >> f != 0; ++f) {
      if (((changed >> f) & 1) == 0) continue;
      std::uint64_t delta = 0;
      if (!get_varint(p, end, delta) || !set_field(e, f, field(e, f) + unzigzag(delta))) return false;
    }
    e.call = static_cast<std::int32_t>(c);
    e.t_enter = static_cast<double>(t_enter);
    e.t_exit = static_cast<double>(t_exit);
    state_.remember(c, e, changed);
    previous_t = t_enter;
  }
  return p == end;
}

}  // namespace ripple::trace::detail
