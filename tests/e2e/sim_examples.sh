#!/usr/bin/env bash
# Every shipped example runs on 2 ranks and writes its file and a summary with the promised keys.
source "$(dirname "$0")/lib.sh"
for cfg in "$RIPPLE_SOURCE_DIR"/model/examples/*.toml; do
  name=$(basename "$cfg" .toml)
  run_np 2 sim "$cfg" --quiet --set "output.file=\"$name.h5\"" --summary "$name.json" || { fail "$name exited $?"; continue; }
  for key in oscillators ranks steps rhs_evaluations wall_seconds ns_per_oscillator_step final_order_parameter final_phase_spread peak_rss_bytes; do
    grep -q "\"$key\"" "$name.json" || fail "$name: summary lacks $key"
  done
  h5dump -a /schema "$name.h5" | grep -q ripple-sim || fail "$name: no schema attribute"
  pass "$name"
done
"$RIPPLE_BIN" --help | grep -q sim || fail "ripple --help lists no sim"
"$RIPPLE_BIN" sim --help | grep -q -- --summary || fail "ripple sim --help lacks --summary"
finish
