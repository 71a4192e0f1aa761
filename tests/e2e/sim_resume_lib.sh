# Helpers of the kill and resume tests of `ripple sim` (sourced after lib.sh).
# A small run with everything a checkpoint holds: noise, a jittered delay, kicks early and late,
# iteration ends. About 230 dopri5 steps in 27 noise intervals.
write_resume_config() {
  cat > "$1" <<'TOML'
[model]
oscillators = 40
t_comp = 1.0e-3
t_comm = 1.0e-4
frequency_spread = 0.05
potential = "tanh"
[topology]
kind = "ring"
distances = [-1, 1, -2]
[noise]
kind = "exponential"
amplitude = 0.05
[delay]
mean = 2.0e-4
jitter = 5.0e-5
[[kick]]
oscillator = 5
time = 0.002
delay = 5.0e-4
[[kick]]
oscillator = 20
time = 0.02
delay = 1.0e-3
[initial]
kind = "random"
spread = 0.5
[solver]
t_end = 0.03
[output]
file = "run.h5"
interval = 0.001
iterations = true
TOML
}

# start_paused NP STEP NAME ARGS...: `ripple sim ARGS --test-pause STEP:NAME` on NP ranks in the
# background (its PID in $sim_pid, output in NAME.out); returns once it is paused at step STEP
# (NAME.paused), or 1 if it ended before.
start_paused() {
  local np=$1 step=$2 name=$3; shift 3
  rm -f "$name" "$name".*
  run_np "$np" sim "$@" --quiet --test-pause "$step:$name" > "$name.out" 2>&1 &
  sim_pid=$!
  while [ ! -e "$name.paused" ]; do
    kill -0 "$sim_pid" 2> /dev/null || return 1
    sleep 0.05
  done
}

# signal_and_go NAME SIGNAL RANKS...: sends SIGNAL to the given ranks of the paused run, lets it go on
# and waits for it; its exit code in $sim_rc.
signal_and_go() {
  local name=$1 sig=$2 r; shift 2
  for r in "$@"; do kill "-$sig" "$(cat "$name.pid.$r")"; done
  if [ "$sig" = KILL ]; then echo > "$name.tmp"; else echo "$@" > "$name.tmp"; fi
  mv "$name.tmp" "$name"
  sim_rc=0
  wait "$sim_pid" || sim_rc=$?
}

# same_results A B: /phase, /time, /order_parameter, /omega and /iteration_end (if any) bitwise equal, and B complete.
same_results() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert b.attrs["complete"] == 1, "not complete"
for name in ["phase", "time", "order_parameter", "omega", "iteration_end"]:
    if name not in a and name not in b:
        continue
    x, y = a[name][...], b[name][...]
    assert x.shape == y.shape, (name, x.shape, y.shape)
    assert np.array_equal(x.view(np.uint64), y.view(np.uint64)), f"{name} differs: max |diff| {np.nanmax(np.abs(x - y))}"
PY
}
