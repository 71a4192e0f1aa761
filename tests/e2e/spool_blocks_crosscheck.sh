#!/usr/bin/env bash
# This build's event blocks decoded by the independent Python reader of docs/trace-format.md
# (spool_blocks.py): the very events, byte for byte.
source "$(dirname "$0")/lib.sh"
: "${DUMP_BIN:?}"
"$DUMP_BIN" events blocks > /dev/null || fail "dump"
/usr/bin/python3 - events blocks <<'PY' && pass "the Python reader decodes this build's blocks to the very events" || fail "the Python reader's events"
import sys
from spool_blocks import BLOCK, EVENT, decode_block
events = open(sys.argv[1], "rb").read()
blocks = open(sys.argv[2], "rb").read()
decoded = []
for at in range(0, len(blocks), BLOCK):
    first, got = decode_block(blocks[at:at + BLOCK])
    assert first == len(decoded), (first, len(decoded))
    decoded += got
want = [events[k:k + EVENT.size] for k in range(0, len(events), EVENT.size)]
assert len(decoded) == len(want), (len(decoded), len(want))
bad = [k for k in range(len(want)) if decoded[k] != want[k]]
assert not bad, f"{len(bad)} events differ, the first {bad[0]}"
PY
# Blocks no writer makes, each breaking one rule the C++ decoder applies (unit test
# EventBlocks.BlocksBreakingOneRuleAreRefused has the same payloads): the Python reader refuses them too.
/usr/bin/python3 - <<'PY' && pass "the Python reader refuses what the C++ one does" || fail "the Python reader accepts a damaged block"
from spool_blocks import BLOCK, HEAD, check, decode_block
cases = [("d904020000", "call beyond 511"), ("018280010000", "mask bit 12"),
         ("010280808080808080802000", "t_enter 2^60"), ("0102808080808080808080800000", "an 11-byte varint"),
         ("010302000000", "which 3, slot 2 of none"), ("0100000000", "which 0 with no slot")]
def block_of(hexed):  # one event's payload, under a valid check
    payload = bytes.fromhex(hexed)
    padded = payload + bytes(-len(payload) % 8)
    head = HEAD.pack(b"RPLE", 1, len(payload), 0, check(1, len(payload), 0, padded))
    return head + padded + bytes(BLOCK - len(head) - len(padded))
assert len(decode_block(block_of("01020000"))[1]) == 1  # the control: accepted
for hexed, why in cases:
    try:
        decode_block(block_of(hexed))
    except AssertionError:
        continue
    raise SystemExit(f"accepted: {why}")
PY
finish
