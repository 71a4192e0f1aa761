#!/usr/bin/env bash
# The main demo, the validation loop on one machine: builds Ripple, then runs the demo campaign
# (jobs/campaigns/demo.toml: a traced ring and heat2d run on 16 oversubscribed ranks with one
# injected delay each, `ripple waves`, `ripple compare`), simulates the oscillator model that
# compare fitted to the ring, writes the report and prints the comparison table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh" > /tmp/ripple-build.log 2>&1 || { cat /tmp/ripple-build.log; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ripple=$root/build/cli/ripple
out=${RIPPLE_DEMO_DIR:-$root/demo-output}
rm -rf "$out"
echo "== the campaign: ring and heat2d, 16 ranks, a 10 ms delay at rank 5 (log: $out/campaign.log)"
mkdir -p "$out"
"$ripple" campaign "$root/jobs/campaigns/demo.toml" --local --dir "$out" > "$out/campaign.log" 2>&1 \
  || { tail -n 20 "$out/campaign.log"; exit 1; }
echo "== the oscillator model fitted to the ring (one-sided wait potential), simulated"
mkdir -p "$out/sim"
/usr/bin/python3 - "$out/points/000/compare.json" "$out/sim" <<'PY'
import json, sys
pom = json.load(open(sys.argv[1]))["pom"]
open(f"{sys.argv[2]}/pom-ring.toml", "w").write(pom["configs"][1])  # [tanh, wait]
open(f"{sys.argv[2]}/edges.txt", "w").write(pom["edges_txt"])
PY
(cd "$out/sim" && mpirun -np 2 --oversubscribe "$ripple" sim pom-ring.toml --force --quiet \
  --set 'output.file="pom-ring.h5"' --set output.iterations=true --summary pom-ring.json)
"$ripple" report "$out" -o "$out/report.html" > "$out/report.log"
for id in 000 001; do
  app=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["app"])' "$out/points/$id/app.json")
  echo
  echo "== $app: the traced run against the max-plus model and the oscillator model"
  sed -n '/^  model  *end error/,/^  (end error/p' "$out/points/$id/point.log" | sed '$d'
done
echo
echo "lag error: how far each model's lags lie from the trace's, relative to the 10 ms delay (docs/compare.md)"
echo "report: $out/report.html   campaign table: $out/table.csv"
