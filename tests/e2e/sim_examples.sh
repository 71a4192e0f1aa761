#!/usr/bin/env bash
# Every shipped example runs on 2 ranks and writes its file and a summary with the promised keys.
source "$(dirname "$0")/lib.sh"
for cfg in "$RIPPLE_SOURCE_DIR"/model/examples/*.toml; do
  name=$(basename "$cfg" .toml)
  run_np 2 sim "$cfg" --quiet --set "output.file=\"$name.h5\"" --summary "$name.json" || { fail "$name exited $?"; continue; }
  for key in oscillators ranks steps rhs_evaluations wall_seconds ns_per_oscillator_step final_order_parameter final_phase_spread peak_rss_bytes; do
    grep -q "\"$key\"" "$name.json" || fail "$name: summary lacks $key"
  done
  h5dump -a /schema "$name.h5" > "$name.schema.txt" && grep -q ripple-sim "$name.schema.txt" || fail "$name: no schema attribute"
  pass "$name"
done
# Per-oscillator times make a configuration attribute larger than 64 KiB.
awk 'BEGIN { printf "[model]\noscillators = 6000\nt_comp = ["; for (i = 0; i < 6000; i++) printf "%s%.9f", (i ? ", " : ""), 0.001 + i * 1e-9; print "]\n[solver]\nt_end = 0.002\n[output]\nfile = \"big_config.h5\"" }' > big_config.toml
if run_np 2 sim big_config.toml --quiet && h5dump -a /config big_config.h5 > big_config.txt && grep -q 'oscillators = 6000' big_config.txt; then
  pass "large configuration attribute"
else
  fail "large configuration attribute"
fi
"$RIPPLE_BIN" --help > help.txt && grep -q sim help.txt || fail "ripple --help lists no sim"
"$RIPPLE_BIN" sim --help > sim_help.txt && grep -q -- --summary sim_help.txt || fail "ripple sim --help lacks --summary"
finish
