#!/usr/bin/env bash
# `ripple plot`: every figure renders from small fixtures (a traced 8-rank ring with one delay, its
# waves JSON, its JSON timings, a simulation of 8 oscillators with a kick), in PNG, SVG and PDF, and
# says what it shows (titles, axis labels, legends, read back from the SVG's text).
source "$(dirname "$0")/lib.sh"
: "${RING_BIN:?}"
run_np 8 trace -o ring.h5 -- "$RING_BIN" --work sleep --compute-time 0.002 --slices 1000 --iterations 20 --warmup 1 \
  --delay 3:5:0.01 --json ring.json > ring.txt 2>&1 || fail "ring run: $(tail -n 3 ring.txt)"
"$RIPPLE_BIN" waves ring.h5 --json waves.json > /dev/null || fail "waves"
cat > sim.toml <<'TOML'
[model]
oscillators = 8
t_comp = 9.0e-4
t_comm = 1.0e-4
potential = "tanh"
[topology]
kind = "chain"
[[kick]]
oscillator = 3
time = 0.003
delay = 0.002
[solver]
t_end = 0.02
[output]
file = "sim.h5"
interval = 2e-4
iterations = true
TOML
run_np 2 sim sim.toml --quiet > sim.txt 2>&1 || fail "sim run: $(cat sim.txt)"

"$RIPPLE_BIN" compare ring.h5 -o compare.h5 > compare.txt 2>&1 || fail "compare: $(cat compare.txt)"
for args in "compare compare.h5 -o compare.svg" "compare compare.h5 -o lags.png --view lags" "waves ring.h5 -o from-trace.png" "waves waves.json -o waves.svg" "waves ring.json -o heat.pdf --view heatmap" \
  "waves waves.json -o arrivals.svg --view arrivals" "waves sim.h5 -o sim-waves.svg" "sim sim.h5 -o sim.svg" \
  "sim sim.h5 -o lag.png --view lag" "sim sim.h5 -o circle.pdf --view circle"; do
  # shellcheck disable=SC2086
  "$RIPPLE_BIN" plot $args > plot.txt 2>&1 || fail "ripple plot $args: $(cat plot.txt)"
done
/usr/bin/python3 - <<'PY' && pass "every figure written: PNG, SVG and PDF" || fail "figure files"
for name, magic in [("compare.svg", b"<?xml"), ("lags.png", b"\x89PNG"), ("from-trace.png", b"\x89PNG"), ("lag.png", b"\x89PNG"), ("heat.pdf", b"%PDF"), ("circle.pdf", b"%PDF"),
                    ("waves.svg", b"<?xml"), ("arrivals.svg", b"<?xml"), ("sim.svg", b"<?xml"), ("sim-waves.svg", b"<?xml")]:
    data = open(name, "rb").read()
    assert data.startswith(magic) and len(data) > 5000, (name, len(data))
PY
/usr/bin/python3 - <<'PY' && pass "figure text: titles, axes, colour bars and legends" || fail "figure text"
import re
def texts(name):
    svg = open(name).read()
    return " | ".join(re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<text[^>]*>.*?</text>", svg, re.S))
w = texts("waves.svg")
for want in ["idle time per rank and iteration", "iteration", "rank", "idle time (in MPI) [ms]", "delay source (injected)",
             "idle-wave arrival and speed", "arrival iteration", "rank offset from the source (lower ranks &lt; 0 &lt; higher ranks)",
             "ring.h5: 8 ranks, 20 iterations (trace)"]:
    assert want in w, (want, w)
# the legend names each front that arrived anywhere with its speed, as the result has it
from ripple_plots.reader import read_waves
fronts = [f for f in read_waves("waves.json")["waves"][0]["fronts"] if f["direction"] in ("down", "up") and f["arrivals"]]
assert fronts, "the delay made no wave"
for f in fronts:
    speed = f["speed"]["ranks_per_iteration"]
    label = f"wave 0 (rank 3, it. 5) {f['direction']}: " + (f"{speed:.2f} ranks/iteration" if speed is not None else "all in one iteration")
    assert label in w, (label, w)
a = texts("arrivals.svg")
assert "arrival iteration" in a and "idle time per rank" not in a, a
s = texts("sim-waves.svg")
assert "idle time per oscillator and iteration" in s and "delay against free running [ms]" in s and "oscillator" in s, s
s = texts("sim.svg")
for want in ["lag timeline", "ahead of the slowest oscillator [ms]", "time [s]", "circle diagram at t = 0.02 s", "cos θ", "sin θ",
             "natural frequency ω [rad/s] (blue fast, yellow slow)", "potential timeline (tanh)", "Σ_j V(θ_i − θ_j) over partners",
             "Kuramoto order parameter r(t) (1 = in step)", "order parameter r", "r(t)", "sim.h5: 8 oscillators"]:
    assert want in s, (want, s)
c = texts("compare.svg")
for want in ["trace", "max-plus predict, lag error", "POM ", "(v_p ", "idle time [ms] (one scale for all)", "iteration", "rank",
             "lag timelines (solid: trace, dashed: max-plus, dotted: oscillator model)",
             "lag behind the iteration's earliest end [ms]", "ring.h5: the run against its models"]:
    assert want in c, (want, c)
PY
finish
