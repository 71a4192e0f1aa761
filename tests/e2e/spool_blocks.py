"""An event spool's blocks (version 6), read from the layout docs/trace-format.md gives,
apart from the C++ reader: the end-to-end checks compare the two."""
import struct

HEADER = 96
EVENT = struct.Struct("<ddQqqqQiiiiiiii")  # struct Event: t_enter, t_exit, buffer, bytes, ... rank
HEAD = struct.Struct("<4sHHQQ")
BLOCK = 4096
# The mask's bits, as indices into EVENT's fields: request, iteration, buffer, peer, tag, count,
# bytes, extent, call_site, comm, same_node, rank.
FIELDS = [5, 11, 2, 8, 9, 12, 3, 4, 6, 10, 13, 14]
SLOTS = 32  # a call's slots of earlier events
NEXT, LATEST, NEW, NUMBERED = 0, 1, 2, 3  # which slot an event refers to
MAX_CALL = 511  # calls encoded compactly
TICK_LIMIT = 1 << 53  # compact times: whole ticks within +-2^53
UNSIGNED = {2, 6}  # buffer, call_site
WIDE = {3, 4, 5}   # bytes, extent, request: int64; the other fields int32
DEFAULT = (0.0, 0.0, 0, 0, 0, -1, 0, 0, -1, -1, -1, -1, 0, 0, 0)
MASK64 = (1 << 64) - 1


def check(events, nbytes, first, words):
    """`words`: the block's bytes from 24 on that hold the events, rounded up to whole words."""
    h = 14695981039346656037
    for w in [events + 65536 * nbytes, first] + list(struct.unpack(f"<{len(words) // 8}Q", words)):
        h = ((h ^ w) * 1099511628211) & MASK64
    return h


def varint(data, p):
    """An unsigned LEB128 varint within `data` that fits 64 bits (at most 10 bytes)."""
    value, shift = 0, 0
    while True:
        assert p < len(data), "a varint runs past the block's bytes"
        byte = data[p]
        p += 1
        assert shift < 63 or byte <= 1, "a varint beyond 64 bits"
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, p


def wrap64(v):
    """v as a 64-bit two's complement integer (the deltas wrap)."""
    v &= MASK64
    return v - (1 << 64) if v >> 63 else v


def unzigzag(z):
    return (z >> 1) ^ -(z & 1)


def as_field(value, index):
    value &= MASK64
    if index in UNSIGNED:
        return value
    value -= (1 << 64) if value >> 63 else 0
    if index not in WIDE:
        assert -2**31 <= value < 2**31, (index, value)
    return value


def decode_block(block):
    """(first, [raw 88-byte events]) of one block; an AssertionError if it is damaged."""
    magic, events, nbytes, first, sum_ = HEAD.unpack_from(block)
    assert magic == b"RPLE" and nbytes <= BLOCK - HEAD.size and events <= (BLOCK - HEAD.size) // 4, (magic, nbytes, events)
    payload = block[HEAD.size:HEAD.size + nbytes]
    assert check(events, nbytes, first, block[HEAD.size:HEAD.size + (nbytes + 7) // 8 * 8]) == sum_, "check"
    calls, previous_t, p, out = {}, 0, 0, []
    for _ in range(events):
        c, p = varint(payload, p)
        if c == 0:
            assert p + EVENT.size <= nbytes, "a raw event runs past the block's bytes"
            out.append(bytes(payload[p:p + EVENT.size]))
            p += EVENT.size
            continue
        assert c <= MAX_CALL + 1, c
        call = calls.setdefault(c - 1, {"slots": [], "latest": 0, "next": 0})
        slots = call["slots"]
        word, p = varint(payload, p)
        mask, which = word >> 2, word & 3
        if which == NEXT:
            assert slots
            slot = (call["latest"] + 1) % len(slots)
        elif which == LATEST:
            assert slots
            slot = call["latest"]
        elif which == NUMBERED:
            slot, p = varint(payload, p)
            assert slot < len(slots)
        assert mask >> len(FIELDS) == 0, "a mask bit beyond the fields"
        dt, p = varint(payload, p)
        duration, p = varint(payload, p)
        t_enter = wrap64(previous_t + unzigzag(dt))
        t_exit = wrap64(t_enter + unzigzag(duration))
        assert abs(t_enter) <= TICK_LIMIT and abs(t_exit) <= TICK_LIMIT, "a time beyond 2^53 ticks"
        if which == NEW:
            v = list(slots[call["latest"]] if slots else DEFAULT)
        else:
            v = list(slots[slot])
        for bit, index in enumerate(FIELDS):
            if mask >> bit & 1:
                delta, p = varint(payload, p)
                v[index] = as_field(v[index] + unzigzag(delta), index)
        v[0], v[1], v[7] = float(t_enter), float(t_exit), c - 1
        if which == NEW:  # the call's next slot in turn
            slot = call["next"]
            call["next"] = (slot + 1) % SLOTS
            if len(slots) < SLOTS:
                slots.append(None)
        slots[slot], call["latest"], previous_t = v, slot, t_enter
        out.append(EVENT.pack(*v))
    assert p == nbytes, "events end exactly at the block's bytes"
    return first, out


def read_spool(path):
    """(the header's 96 bytes, data_offset, [(first, [raw events]) per block]) of a version-6 spool."""
    with open(path, "rb") as f:
        data = f.read()
    version = struct.unpack_from("<i", data, 8)[0]
    assert data[:8] == b"RPLSPOOL" and version == 6, version
    offset = struct.unpack_from("<q", data, 64)[0]
    blocks = [decode_block(data[at:at + BLOCK]) for at in range(offset, len(data), BLOCK)]
    return data[:HEADER], offset, blocks
