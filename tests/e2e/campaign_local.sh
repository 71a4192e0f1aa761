#!/usr/bin/env bash
# Issue 27, acceptance 4 and --resume without Slurm: `ripple campaign --local`. Bad input (an unknown
# parameter, an empty grid, a template that does not exist, a configuration key `ripple sim` does not
# take) is one line and exit code 2, before anything runs. A point that fails has its error in the
# table and the others are kept; --resume runs only the points without a complete result.
source "$(dirname "$0")/lib.sh"
: "${RING_BIN:?}"
campaigns=$(cd "$e2e_dir/../../jobs/campaigns" && pwd)
export RIPPLE=$RIPPLE_BIN RIPPLE_APPS=$(dirname "$RING_BIN")

# bad NAME PATTERN FILE: `ripple campaign FILE --local` exits 2 with one error line matching PATTERN
# and leaves no campaign folder behind.
bad() {
  local name=$1 pattern=$2 file=$3 rc=0
  "$RIPPLE_BIN" campaign "$file" --local --dir "bad-$name" > out.txt 2> err.txt || rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q -- "$pattern" err.txt && [ ! -e "bad-$name" ] \
    && pass "$name: one line, exit 2: $(cat err.txt)" || fail "$name: exit $rc: $(cat out.txt err.txt)"
}
ring() { printf 'template = "idle-waves"\nranks = 2\n[fixed]\napp = "ring"\nwork = "sleep"\ncompute-time = 0.002\nslices = 1000\niterations = 5\nwarmup = 1\n%s\n' "$1"; }
ring '[grid]
bogus-option = [1, 2]' > unknown.toml
bad "unknown parameter" "unknown parameter 'bogus-option'" unknown.toml
ring '[grid]
delay = []' > empty.toml
bad "empty list" "\[grid\] delay: give a non-empty list" empty.toml
ring '' > nogrid.toml
bad "no grid" "the grid is empty" nogrid.toml
sed 's/^template = .*/template = "no-such-template"/' unknown.toml > notemplate.toml
bad "no template" "template 'no-such-template' does not exist" notemplate.toml
printf 'template = "sim"\n[fixed]\nconfig = "%s"\n[grid]\n"model.bogus" = [1]\n' "$e2e_dir/../../model/examples/idle_wave_tanh.toml" > badkey.toml
bad "sim key" "\[model\] bogus: unknown key" badkey.toml
bad "no file" "no such campaign file" missing.toml
printf 'template = "idle-waves"\nbogus = 1\n[grid]\ndelay = ["1:2:0.01"]\n' > topkey.toml
bad "unknown key" "unknown key 'bogus'" topkey.toml

# A point that fails (the app refuses its --delay): its error in the table, the other point kept.
ring '[grid]
delay = ["1:2:0.01", "1:2:not-a-number"]' > mixed.toml
rc=0
"$RIPPLE_BIN" campaign mixed.toml --local --dir mixed > run.txt 2>&1 || rc=$?
/usr/bin/python3 - mixed <<'PY' && [ "$rc" -eq 1 ] && pass "a failing point: exit 1, its error in the table, the other done" || fail "failing point (exit $rc): $(cat run.txt)"
import csv, json, sys, h5py
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/table.csv")))
assert [(r["id"], r["status"]) for r in rows] == [("000", "done"), ("001", "failed")], rows
assert "delay" in rows[1]["error"] and rows[0]["error"] == "", rows
assert rows[0]["wave_rank"] == "1" and rows[0]["wave_iteration"] == "2", rows[0]
with h5py.File(f"{d}/table.h5") as f:
    assert f.attrs["schema"] == "ripple-campaign-table"
    assert [s.decode() for s in f["table/status"][:]] == ["done", "failed"]
    assert f["table/wave_rank"][0] == 1.0
PY
grep -q '^point 001 failed: exit code [0-9]*: .*delay' run.txt && pass "the failure said in one line" || fail "no failure line: $(cat run.txt)"

# --resume: only the failed point runs again; the done one keeps its result.
cp mixed/points/000/result.json kept.json
"$RIPPLE_BIN" campaign mixed --resume --local > resume.txt 2>&1 || true
grep -q '^point 001 ' resume.txt && ! grep -q '^point 000 ' resume.txt && cmp -s kept.json mixed/points/000/result.json \
  && pass "--resume ran only the point without a complete result" || fail "--resume: $(cat resume.txt)"
"$RIPPLE_BIN" campaign mixed.toml --local --dir mixed > again.txt 2>&1 && fail "a second run over a campaign folder" \
  || grep -q "already holds this campaign: --resume" again.txt && pass "a second run without --resume is refused" || fail "second run: $(cat again.txt)"
"$RIPPLE_BIN" campaign mixed status > status.txt && grep -q "2 points): 1 done, 1 failed" status.txt \
  && grep -Eq '^  001  failed .*exit code' status.txt && pass "status: 1 done, 1 failed" || fail "status: $(cat status.txt)"

# The sim template: the lag peak is the kick (5 periods) and the resynchronisation time of a
# synthetic exponential decay is its analytic value, tau ln 20 (95 % of the way back).
printf 'template = "sim"\nranks = 2\n[fixed]\nconfig = "%s"\n[grid]\n"model.strength" = [2000.0, 8000.0]\n"solver.rtol" = [1e-8, 1e-6]\n' \
  "$e2e_dir/../../model/examples/idle_wave_tanh.toml" > sim.toml
"$RIPPLE_BIN" campaign sim.toml --local --dir sim > sim.txt 2>&1 || fail "sim campaign: $(tail -n 5 sim.txt)"
PYTHONPATH="$e2e_dir/../../jobs:$PYTHONPATH" /usr/bin/python3 - sim/table.csv <<'PY' && pass "sim points: lag peak 5 periods, resynchronisation faster with stronger coupling, tau ln 20 exact" || fail "sim results"
import csv, math, sys
import numpy as np
from ripple_jobs.results import resynchronisation
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["status"] for r in rows] == ["done"] * 4, rows
for r in rows:
    assert abs(float(r["lag_peak_periods"]) - 5) < 0.05, r
    assert 0 < float(r["resync_seconds"]) < 0.19, r
assert float(rows[2]["resync_seconds"]) < float(rows[0]["resync_seconds"]), rows
t = np.arange(0, 1, 1e-4)
tau, kick = 0.05, 0.2
s = np.where(t < kick, 0.1, 0.1 + 4 * np.exp(-(t - kick) / tau))
peak, final, resync = resynchronisation(t, s, kick)
assert abs(peak - 4.1) < 1e-12 and abs(final - 0.1) < 1e-5, (peak, final)
assert abs(resync - tau * math.log(20)) <= 1e-4, (resync, tau * math.log(20))
PY
"$RIPPLE_BIN" report sim -o sim/report.html > report.txt 2>&1 && grep -q 'resync_periods, final_order_parameter, lag_peak_periods over model.strength and solver.rtol' sim/report.html \
  && [ "$(grep -c '<svg' sim/report.html)" -ge 5 ] && pass "the report maps the results over the two parameters" || fail "report: $(cat report.txt)"
finish
