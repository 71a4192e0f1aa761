#!/usr/bin/env bash
# The main demo: builds Ripple, then simulates an idle wave on 2 MPI ranks and shows how the delay
# spreads along the chain and decays (a scalable code resynchronises).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh" > /tmp/ripple-build.log 2>&1 || { cat /tmp/ripple-build.log; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${RIPPLE_DEMO_DIR:-$root/demo-output}
mkdir -p "$out"
cd "$out"
mpirun -np 2 --oversubscribe "$root/build/cli/ripple" sim "$root/model/examples/idle_wave_tanh.toml" --force \
  --summary idle_wave_tanh.json
/usr/bin/python3 "$root/model/examples/show_lag.py" idle_wave_tanh.h5
echo "HDF5 output: $out/idle_wave_tanh.h5   summary: $out/idle_wave_tanh.json"
