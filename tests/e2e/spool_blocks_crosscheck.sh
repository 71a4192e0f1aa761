#!/usr/bin/env bash
# This build's event blocks, of both formats it knows, decoded by the independent Python reader of
# docs/trace-format.md (spool_blocks.py): the very events, byte for byte.
source "$(dirname "$0")/lib.sh"
: "${DUMP_BIN:?}"
for format in 5 6; do
  "$DUMP_BIN" events.$format blocks.$format $format > /dev/null || fail "dump, format $format"
  /usr/bin/python3 - events.$format blocks.$format $format <<'PY' \
    && pass "format $format: the Python reader decodes this build's blocks to the very events" || fail "format $format"
import sys
from spool_blocks import BLOCK, EVENT, decode_block
events = open(sys.argv[1], "rb").read()
blocks = open(sys.argv[2], "rb").read()
version = int(sys.argv[3])
decoded = []
for at in range(0, len(blocks), BLOCK):
    first, got = decode_block(blocks[at:at + BLOCK], version)
    assert first == len(decoded), (first, len(decoded))
    decoded += got
want = [events[k:k + EVENT.size] for k in range(0, len(events), EVENT.size)]
assert len(decoded) == len(want), (len(decoded), len(want))
bad = [k for k in range(len(want)) if decoded[k] != want[k]]
assert not bad, f"{len(bad)} events differ, the first {bad[0]}"
PY
done
# Blocks no writer makes, each breaking one rule the C++ decoder applies (unit test
# EventBlocks.BlocksBreakingOneRuleAreRefused has the same payloads): the Python reader refuses them too.
/usr/bin/python3 - <<'PY' && pass "the Python reader refuses what the C++ one does" || fail "the Python reader accepts a damaged block"
from spool_blocks import BLOCK, HEAD, check, decode_block
cases = [("d904020000", 6, "call beyond 511"), ("018280010000", 6, "mask bit 12"), ("0180200000", 5, "mask bit 12"),
         ("010280808080808080802000", 6, "t_enter 2^60"), ("0102808080808080808080800000", 6, "an 11-byte varint"),
         ("010302000000", 6, "which 3, slot 2 of none"), ("0100000000", 6, "which 0 with no slot")]
def block_of(hexed):  # one event's payload, under a valid check
    payload = bytes.fromhex(hexed)
    padded = payload + bytes(-len(payload) % 8)
    head = HEAD.pack(b"RPLE", 1, len(payload), 0, check(1, len(payload), 0, padded))
    return head + padded + bytes(BLOCK - len(head) - len(padded))
for hexed, version in [("01020000", 6), ("01000000", 5)]:  # controls: accepted
    assert len(decode_block(block_of(hexed), version)[1]) == 1
for hexed, version, why in cases:
    try:
        decode_block(block_of(hexed), version)
    except AssertionError:
        continue
    raise SystemExit(f"accepted: {why}")
PY
finish
