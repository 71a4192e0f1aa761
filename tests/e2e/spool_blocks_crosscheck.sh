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
finish
