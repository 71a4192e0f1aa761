#!/usr/bin/env bash
# Crafted trace files that once hung `ripple trace info`, made it allocate far beyond what the file
# holds, crash, or print invalid JSON (tables that declare rows they do not store, sizes that wrap,
# data kept outside the file, a FIFO, infinite and unknown times, a megabyte-long call name): each
# must be refused with its reason and exit code 2 (or, for unknown NaN times, summarised without
# them), within a time limit so that a regression fails instead of hanging.
source "$(dirname "$0")/lib.sh"
: "${SUBJECTS_BIN:?}"
timeout 300 "$MPIEXEC" -np 2 --oversubscribe "$RIPPLE_BIN" trace -o good.h5 --samples off -- "$SUBJECTS_BIN" anysource > run.txt 2>&1 \
  || fail "traced anysource: $(tail -5 run.txt)"
/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/trace_reader_limits.py" "$RIPPLE_BIN" good.h5 && pass "crafted trace files" \
  || fail "crafted trace files"
finish
