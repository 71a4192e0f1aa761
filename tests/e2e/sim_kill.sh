#!/usr/bin/env bash
# Issue 30, acceptance 1: a run stopped by SIGTERM, SIGINT or SIGKILL at 24 seeded points of its
# progress leaves an output that opens, says it is incomplete and where it stopped, and holds every
# stored state up to its last flush, bitwise those of an uninterrupted run. SIGTERM and SIGINT exit
# with 75 (resumable) after a checkpoint.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/sim_resume_lib.sh"

write_resume_config run.toml
run_np 2 sim run.toml --quiet --set 'output.file="ref.h5"' || fail "uninterrupted run"
# The kills: (signal, step, rank), seeded. Flushes every step, so that a SIGKILL finds one just before.
/usr/bin/python3 -c '
import random
r = random.Random(30)
for k in range(24):
    print(["TERM", "INT", "KILL"][k % 3], r.randrange(1, 225), r.randrange(2))' > kills.txt
n=0
while read -r sig step rank <&3; do
  n=$((n + 1))
  if ! start_paused 2 "$step" k run.toml --force --set output.flush_seconds=0; then
    fail "kill $n ($sig at step $step): the run ended before: $(cat k.out)"
    continue
  fi
  signal_and_go k "$sig" "$rank"
  want=75
  [ "$sig" = KILL ] && want=137
  if [ "$sig" != KILL ] && [ "$sim_rc" -ne 75 ]; then fail "kill $n ($sig at step $step): exit $sim_rc (want 75): $(cat k.out)"; fi
  [ "$sig" = KILL ] && [ "$sim_rc" -eq 0 ] && fail "kill $n: SIGKILL, exit 0"
  /usr/bin/python3 - ref.h5 run.h5 "$sig" <<'PY' > check.txt 2>&1 && pass "kill $n: $sig to rank $rank at step $step: $(cat check.txt)" \
    || fail "kill $n ($sig at step $step): $(cat check.txt)"
import sys, h5py, numpy as np
ref, out = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert out.attrs["complete"] == 0, "says it is complete"
rows = int(out.attrs["stored_states"])
reached = float(out.attrs["time_reached"])
assert rows >= 1 and out["time"][rows - 1] <= reached < 0.03, (rows, reached)
for name in ["phase", "time", "order_parameter"]:
    x, y = ref[name][:rows], out[name][:rows]
    assert np.array_equal(x.view(np.uint64), y.view(np.uint64)), f"{name} differs in the first {rows} rows"
# /iteration_end: every value written so far is the uninterrupted run's.
k = out["iteration_end"].shape[1]
a, b = ref["iteration_end"][:, :k], out["iteration_end"][...]
done = ~np.isnan(b)
assert np.array_equal(a[done].view(np.uint64), b[done].view(np.uint64)), "iteration_end differs"
# Ripple's Python reader (ripple plot) takes the final rows only.
from ripple_plots.reader import Sim
sim = Sim(sys.argv[2])
assert sim.rows == rows and len(sim.time) == rows and sim.phases().shape[0] == rows, sim.rows
print(f"opens, incomplete, {rows} stored states to t = {reached:.6g} s, {done.sum()} iteration ends, all as uninterrupted")
PY
done 3< kills.txt
[ "$n" -ge 20 ] || fail "only $n kills"
finish
