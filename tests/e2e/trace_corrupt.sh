#!/usr/bin/env bash
# A damaged trace file given to `ripple trace info` (and --json): a message that names the file and
# what is wrong, exit code 2, never a crash. Targeted damage (shapes, types, impossible values, each
# with the reason it must give) and a seeded sweep of random damage (tables retyped, reshaped,
# shortened; fields dropped or set to extremes; bytes flipped; the file cut).
source "$(dirname "$0")/lib.sh"
: "${HEAT2D_BIN:?}"
# Counters and memory samples (page faults, a software event) so that every table is there.
timeout 300 "$MPIEXEC" -np 4 --oversubscribe -x RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS "$RIPPLE_BIN" trace -o good.h5 \
  --samples page-faults --sample-period 1 -- "$HEAT2D_BIN" --tile 32 --grid 2x2 --iterations 20 --warmup 0 > run.txt 2>&1 \
  || fail "traced heat2d: $(tail -5 run.txt)"
/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/trace_corrupt.py" "$RIPPLE_BIN" good.h5 && pass "damaged trace files" || fail "damaged trace files"
finish
