#!/usr/bin/env bash
# Acceptance 7: the same run on 1, 2 and 4 ranks writes bitwise identical datasets, /iteration_end
# ([output] iterations) included.
source "$(dirname "$0")/lib.sh"

cat > chain.toml <<'TOML'
[model]
oscillators = 10000
t_comp = 9.0e-4
t_comm = 1.0e-4
frequency_spread = 0.01
frequency_distribution = "normal"
potential = "tanh"
[topology]
kind = "chain"
distances = [-1, 1, -2]
[noise]
kind = "exponential"
amplitude = 0.05
[delay]
mean = 2.0e-4
jitter = 1.0e-4
[[kick]]
oscillator = 4999
time = 0.002
delay = 0.001
[[kick]]
oscillator = 5000
time = 0.004
delay = 0.0005
[solver]
t_end = 0.008
[output]
interval = 5e-4
TOML

cat > grid.toml <<'TOML'
[model]
oscillators = 1500
t_comp = 9.0e-4
t_comm = 1.0e-4
potential = "bottleneck"
sigma = 1.0
normalization = "degree"
[topology]
kind = "grid3d"
dims = [15, 10, 10]
periodic = true
[noise]
kind = "uniform"
amplitude = 0.1
[[kick]]
oscillator = 777
time = 0.003
delay = 0.002
[solver]
t_end = 0.02
[output]
interval = 1e-3
TOML

cat > grid2d.toml <<'TOML'
[model]
oscillators = 2048
t_comp = 1.0e-3
potential = "tanh"
[topology]
kind = "grid2d"
dims = [64, 32]
[initial]
kind = "random"
spread = 0.5
[solver]
method = "rk4"
dt = 5e-5
t_end = 0.01
[output]
interval = 1e-3
TOML

cat > mean_field.toml <<'TOML'
[model]
oscillators = 3001
t_comp = 1.0
frequency_spread = 0.02
frequency_distribution = "normal"
potential = "kuramoto"
strength = 2.0
[topology]
kind = "all"
[initial]
kind = "random"
spread = 3.0
[solver]
t_end = 5.0
[output]
interval = 0.25
TOML

awk 'BEGIN { for (i = 0; i < 300; i++) { j = (i * 37 + 11) % 300; print i, j; print j, i; print i, (i + 1) % 300 } }' > edges.txt
cat > graph.toml <<'TOML'
[model]
oscillators = 300
t_comp = 1.0e-3
potential = "tanh"
normalization = "degree"
[topology]
kind = "file"
file = "edges.txt"
[initial]
kind = "random"
spread = 1.0
[solver]
t_end = 0.01
[output]
interval = 1e-3
TOML

sed -e 's/^t_end = 0.008/t_end = 0.005\nnorm = "rms"/' -e '/^\[delay\]/,/^jitter/d' chain.toml > chain_rms.toml

# The one-sided wait potential: the max over partners, noise, kicks (pauses) and the default delay
# of half t_comm (uniform, so each column is interpolated once), on a chain, a torus and an edge list.
cat > chain_wait.toml <<'TOML'
[model]
oscillators = 3000
t_comp = 9.0e-4
t_comm = 1.0e-4
frequency_spread = 0.01
frequency_distribution = "normal"
potential = "wait"
[topology]
kind = "chain"
distances = [-1, 1, -2]
[noise]
kind = "exponential"
amplitude = 0.05
[[kick]]
oscillator = 1499
time = 0.002
delay = 0.003
[[kick]]
oscillator = 1500
time = 0.004
delay = 0.0005
[solver]
t_end = 0.008
[output]
interval = 5e-4
TOML

# Per-oscillator communication times: the post point differs from row to row.
cat > grid_wait.toml <<TOML
[model]
oscillators = 1200
t_comp = 9.0e-4
t_comm = [$(awk 'BEGIN { for (i = 0; i < 1200; i++) printf "%s%g", (i ? ", " : ""), 1.0e-4 * (1 + (i % 3) / 2) }')]
potential = "wait"
[topology]
kind = "grid2d"
dims = [40, 30]
periodic = true
[noise]
kind = "uniform"
amplitude = 0.05
[[kick]]
oscillator = 617
time = 0.003
delay = 0.004
[solver]
t_end = 0.01
[output]
interval = 1e-3
TOML

{ sed -e 's/^potential = "tanh"/t_comm = 1.0e-4\npotential = "wait"/' -e '/^normalization/d' graph.toml
  printf '[[kick]]\noscillator = 17\ntime = 0.002\ndelay = 0.003\n'; } > graph_wait.toml

for case in chain chain_rms grid grid2d mean_field graph chain_wait grid_wait graph_wait; do
  before=$failures
  for np in 1 2 4; do
    run_np "$np" sim "$case.toml" --quiet --set "output.file=\"${case}_np${np}.h5\"" --set output.iterations=true ||
      fail "$case on $np ranks exited $?"
  done
  for np in 2 4; do
    for ds in /phase /omega /time /order_parameter /iteration_end; do
      if h5diff -q "${case}_np1.h5" "${case}_np${np}.h5" "$ds" "$ds"; then :; else fail "$case: $ds differs between 1 and $np ranks"; fi
    done
  done
  [ "$failures" -eq "$before" ] && pass "$case: identical on 1, 2 and 4 ranks"
done
finish
