#!/usr/bin/env bash
# The wait potential's idle wave as `ripple waves` sees it, against the real run it models (a chain
# with 2 ms phases passes a 10 ms delay on at one rank per iteration, each rank waiting about 10 ms):
# one rank per iteration both ways, each hop's wait D - h (t_comm - tau) in a single iteration, the
# same one as the kicked rank's (docs/model.md, "The wait potential"); and the bad inputs of wait,
# one line each.
source "$(dirname "$0")/lib.sh"
cat > chain.toml <<'TOML'
[model]
oscillators = 16
t_comp = 2.0e-3
t_comm = 1.0e-4
potential = "wait"
[[kick]]
oscillator = 5
time = 0.02163
delay = 0.010
[solver]
t_end = 0.08
[output]
file = "chain.h5"
iterations = true
TOML
run_np 2 sim chain.toml --quiet > sim.txt 2>&1 || fail "sim: $(cat sim.txt)"
"$RIPPLE_BIN" waves chain.h5 --json waves.json > waves.txt 2>&1 || fail "waves: $(cat waves.txt)"
/usr/bin/python3 - <<'PY' && pass "wait chain: one rank per iteration both ways, each hop waits D - h (t_comm - tau)" || fail "wait chain's wave: $(cat waves.txt)"
from ripple_plots.reader import read_waves
w = read_waves("waves.json")
assert w["detection"]["matched"] == 1 and w["detection"]["false_alarms"] == 0, w["detection"]
x = w["waves"][0]
assert (x["source"]["rank"], x["source"]["iteration"]) == (5, 10), x["source"]
for direction, hops in (("down", 5), ("up", 10)):
    f = next(f for f in x["fronts"] if f["direction"] == direction)
    assert f["reached_hops"] == hops, (direction, f["reached_hops"])
    assert f["speed"]["ranks_per_iteration"] == 1.0, (direction, f["speed"])
    assert [a["iteration"] for a in f["arrivals"]] == list(range(10, 10 + hops)), f["arrivals"]
    # Hop h waits D - h (t_comm - tau) (tau = t_comm / 2 by default), plus at most h (1 + 1/8) / v_p
    # (v_p = 100 / T); 1e-7 s for the solver (default rtol 1e-8 of phases up to 240 rad).
    for h, a in enumerate(f["amplitude"], 1):
        assert -1e-7 <= a - (0.010 - h * 5e-5) <= h * 1.125 * 2.1e-5 + 1e-7, (direction, h, a)
PY
expect_error() {
  local name=$1 pattern=$2; shift 2
  if expect_one_error "$name" "$pattern" sim "$@"; then pass "$name: $(grep '^ripple: error' err.txt)"; fi
}
expect_error "wait with a sum's normalisation" '\[model\] normalization: potential = "wait" holds a process for its latest partner' \
  chain.toml --set model.normalization=N
expect_error "wait without a delay" '\[delay\] mean: potential = "wait" needs a positive delay' chain.toml --set delay.mean=0
finish
