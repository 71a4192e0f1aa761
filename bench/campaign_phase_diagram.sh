#!/usr/bin/env bash
# Issue 27, acceptance 5: the POM phase diagram campaign (jobs/campaigns/phase-diagram.toml: 64
# points of 10^5 oscillators, coupling x noise) run with `ripple campaign --local` on this machine;
# prints points per hour (wall time of the whole campaign, checks and table included) and the
# resynchronisation times as a strength x noise grid.
#   bash bench/campaign_phase_diagram.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-/tmp/ripple-phase-diagram}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out"
start=$(date +%s.%N)
"$build/cli/ripple" campaign "$root/jobs/campaigns/phase-diagram.toml" --local --dir "$out" > "$out.log" 2>&1 \
  || { tail -n 20 "$out.log"; exit 1; }
end=$(date +%s.%N)
/usr/bin/python3 - "$out/table.csv" "$start" "$end" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
wall = float(sys.argv[3]) - float(sys.argv[2])
done = sum(r["status"] == "done" for r in rows)
print(f"{done} of {len(rows)} points done in {wall:.0f} s: {3600 * done / wall:.0f} points per hour "
      f"(the points' own runs: {sum(float(r['point_seconds']) for r in rows):.0f} s)")
strengths = sorted({float(r["model.strength"]) for r in rows})
noises = sorted({float(r["noise.amplitude"]) for r in rows})
cell = {(float(r["model.strength"]), float(r["noise.amplitude"])): r for r in rows}
for title, key, fmt in (("resynchronisation after the kick [periods]", "resync_periods", "{:7.1f}"),
                        ("final order parameter r", "final_order_parameter", "{:7.3f}")):
    print(f"\n{title}: v_p [1/s] down, noise amplitude across")
    print("        " + "".join(f"{n:7g}" for n in noises))
    for s in strengths:
        vals = [cell[(s, n)].get(key, "") for n in noises]
        print(f"{s:7g} " + "".join(fmt.format(float(v)) if v not in ("", "nan") else "      -" for v in vals))
PY
