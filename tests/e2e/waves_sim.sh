#!/usr/bin/env bash
# `ripple waves` on simulations: the table is the file's own crossings; a kicked free oscillator's
# kick is its compute in the iteration it hit and nobody waits (no coupling, no wave); in a coupled
# symmetric chain the kick is found (injected and detected) and its wave runs the same both ways.
source "$(dirname "$0")/lib.sh"
config() {  # NAME STRENGTH: 33 oscillators, a kick of 5 periods at oscillator 16
  cat > "$1.toml" <<TOML
[model]
oscillators = 33
t_comp = 9.0e-4
t_comm = 1.0e-4
potential = "tanh"
strength = $2
normalization = "none"
[topology]
kind = "chain"
[[kick]]
oscillator = 16
time = 0.0103
delay = 0.005
[solver]
t_end = 0.08
[output]
file = "$1.h5"
iterations = true
TOML
}
config free 0 && config coupled 2000
for name in free coupled; do
  run_np 2 sim "$name.toml" --quiet > "$name.txt" 2>&1 || fail "$name sim: $(cat "$name.txt")"
  "$RIPPLE_BIN" waves "$name.h5" --json "$name.json" > "$name.waves.txt" 2>&1 || fail "waves on $name.h5: $(cat "$name.waves.txt")"
done
/usr/bin/python3 - <<'PY' && pass "free oscillators: the table holds the file's crossings, the kick is compute in iteration 10, no one waits" || fail "free oscillators' table"
import numpy as np
from ripple_plots.reader import Sim, read_waves
s, w = Sim("free.h5"), read_waves("free.json")
ends = s.iteration_end()
table = w["table"]
assert w["source"] == "simulation" and w["ranks"] == 33 and w["iterations"] == ends.shape[1]
assert np.array_equal(np.array(table["end"], dtype=float), ends, equal_nan=True)
wait, compute = np.array(table["wait"], dtype=float), np.array(table["compute"], dtype=float)
assert np.nanmax(np.abs(wait)) < 1e-12, np.nanmax(np.abs(wait))
period = 2 * np.pi / s.omega[0]
assert abs(compute[16, 10] - (period + 0.005)) < 1e-12 and np.nanmax(np.abs(np.delete(compute.ravel(), 16 * compute.shape[1] + 10) - period)) < 1e-12
assert table["injected"] == [[16, 10, 0.005]], table["injected"]
assert len(w["waves"]) == 1 and all(f["reached_hops"] == 0 for f in w["waves"][0]["fronts"])
PY
/usr/bin/python3 - <<'PY' && pass "coupled chain: the kick found (injected and detected), its wave the same both ways, dying out" || fail "coupled chain's wave"
from ripple_plots.reader import read_waves
w = read_waves("coupled.json")
assert w["detection"] == {"has_truth": True, "injected": 1, "detected": 1, "matched": 1, "false_alarms": 0, "missed": 0}, w["detection"]
x = w["waves"][0]
assert (x["source"]["rank"], x["source"]["iteration"]) == (16, 10), x["source"]
down, up = (next(f for f in x["fronts"] if f["direction"] == d) for d in ("down", "up"))
assert down["reached_hops"] >= 3 and down["reached_hops"] == up["reached_hops"], (down["reached_hops"], up["reached_hops"])
assert [a["iteration"] for a in down["arrivals"]] == [a["iteration"] for a in up["arrivals"]]
assert down["speed"]["ranks_per_iteration"] == up["speed"]["ranks_per_iteration"] > 0
assert down["amplitude"][0] > down["amplitude"][-1], down["amplitude"]
assert x["resync"]["iteration"] is not None and x["resync"]["iteration"] > 10 and x["resync"]["seconds"] > 0, x["resync"]
PY
finish
