#!/usr/bin/env bash
# The launcher's command line: what the library would replace by its default, or a program named
# without `--`, is refused with one line and exit code 2 before the program runs (before: the run
# went on with other settings than asked, or without the program's own options).
source "$(dirname "$0")/lib.sh"

# expect_refused NAME PATTERN ARGS...: `ripple trace ARGS` on 2 ranks: exit code 2, one error line
# that matches, the program not run.
expect_refused() {
  local name=$1 pattern=$2; shift 2
  rm -f ran.txt
  expect_one_error "$name" "$pattern" trace "$@" || return 0
  if [ -e ran.txt ]; then fail "$name: the program ran"; return; fi
  pass "$name: $(grep '^ripple: error' err.txt)"
}

# Before: -o went to ripple trace (the trace was written to the program's file) and the program ran
# without it.
expect_refused "program without --" "put -- before the program ('touch')" touch ran.txt -o other.h5
expect_refused "-- after the program" "put -- before the program ('touch')" touch ran.txt -- x
# Before: accepted here, replaced by the library's default at MPI_Init ("settings ignored").
expect_refused "--buffer-mib below 1/1024" "--buffer-mib 0.0001 is not from 1/1024 to 2^30" --buffer-mib 0.0001 -- touch ran.txt
expect_refused "--buffer-mib beyond 2^30" "--buffer-mib 2000000000 is not from 1/1024 to 2^30" --buffer-mib 2e9 -- touch ran.txt
expect_refused "--flush-seconds below 1e-6" "--flush-seconds 1e-07 is below 1e-6" --flush-seconds 1e-7 -- touch ran.txt
expect_refused "--sample-period beyond 1e15" "--sample-period 1000000000000001 is beyond 1000000000000000" \
  --sample-period 1000000000000001 -- touch ran.txt

# The program's own options after -- reach it, and the edges of the ranges are taken as given.
printf '#!/bin/sh\necho "$@" > args.txt\n' > show.sh && chmod +x show.sh
run_np 1 trace -o edge.h5 --buffer-mib 0.0009765625 --flush-seconds 1e-6 --sample-period 1000000000000000 --samples off -- \
  ./show.sh -o mine.h5 --samples x > edge.txt 2>&1 || fail "a run at the ranges' edges: $(cat edge.txt)"
[ "$(cat args.txt)" = "-o mine.h5 --samples x" ] && ! grep -q "settings ignored" edge.txt \
  && pass "options after -- are the program's; the ranges' edges taken as given" || fail "edges: $(cat args.txt edge.txt)"

# A program that never initialises MPI: rank 0 says once that no trace was written, the exit code
# is the program's (before: exit 0, not a word, no file), with coreutils' echo (which closes stderr
# in its own exit handler) and bash exiting 3.
rc=0; run_np 2 trace -o none.h5 -- /bin/echo hi > none.txt 2>&1 || rc=$?
[ "$rc" -eq 0 ] && [ ! -e none.h5 ] && [ "$(grep -c 'ripple trace: the program never initialised MPI (no MPI_Init): no trace written to .*none.h5' none.txt)" -eq 1 ] \
  && pass "a program without MPI_Init: said once, exit 0 kept" || fail "a program without MPI_Init (rc $rc): $(cat none.txt)"
rc=0; run_np 2 trace -o none3.h5 -- /bin/bash -c 'exit 3' > none3.txt 2>&1 || rc=$?
[ "$rc" -eq 3 ] && grep -q "never initialised MPI" none3.txt \
  && pass "a program without MPI_Init exiting 3: said, exit 3 kept" || fail "without MPI_Init, exit 3 (rc $rc): $(cat none3.txt)"
# A wrapper that runs the MPI program as its child: the child's trace, no such word.
printf '#!/bin/bash\n"$@"\n' > wrap.sh && chmod +x wrap.sh
run_np 2 trace -o wrapped.h5 -- ./wrap.sh "$RING_BIN" --iterations 3 > wrapped.txt 2>&1 && [ -e wrapped.h5 ] && ! grep -q "never initialised" wrapped.txt \
  && pass "a wrapper whose child traces MPI: no word" || fail "wrapper: $(cat wrapped.txt)"
finish
