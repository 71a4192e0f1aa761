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
finish
