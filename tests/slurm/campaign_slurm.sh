#!/usr/bin/env bash
# Issue 27, acceptance 1 and 2: the idle-wave campaign (jobs/campaigns/idle-waves.toml, 8 points, at
# 8 ranks and 20 iterations here) under a real (private, local) Slurm: one job array with its %
# throttle (1, so that the points' timings are not disturbed by each other) plus an afterok
# aggregation job. One point's task is cancelled before it runs: the others
# complete, the aggregation waits for good, `status` says so, and --resume resubmits that point
# alone (and a new aggregation job) and leaves the others' results as they were. `status` is
# checked at each stage. The same campaign --local gives the same table up to timings.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/local_slurm.sh"
: "${RING_BIN:?}"
slurm_can_run || { echo "skipped: no local Slurm here"; exit 77; }
slurm_start "$RIPPLE_WORK_DIR/slurm" 16 || { echo "FAIL: cannot start a local Slurm"; exit 1; }
export RIPPLE=$RIPPLE_BIN RIPPLE_APPS=$(dirname "$RING_BIN")
# 8 ranks on 2 cores: under srun Open MPI does not know that it is oversubscribed (mpirun does) and
# its waiting ranks would spin, slowing the 2 ms phases to 10-30 ms and burying the injected delay.
export OMPI_MCA_mpi_yield_when_idle=1
sed -e 's/^ranks = 16/ranks = 8/' -e 's/^iterations = 40/iterations = 20/' -e 's/^throttle = 4/throttle = 1/' \
  "$e2e_dir/../../jobs/campaigns/idle-waves.toml" > iw.toml
grep -q "^ranks = 8" iw.toml && grep -q '^throttle = 1' iw.toml || fail "the campaign file changed: fix this test's sed"

# wait_queue JOBS...: until none of those jobs is pending or running (at most 5 minutes).
wait_queue() {
  for _ in $(seq 3000); do
    [ -z "$(squeue -h -t PD,R,CG -j "$(IFS=,; echo "$*")" 2> /dev/null)" ] && return 0
    sleep 0.1
  done
  fail "jobs $* still queued: $(squeue)"
}
"$RIPPLE_BIN" campaign iw.toml --slurm --dir s > submit.txt 2>&1 || fail "submit: $(cat submit.txt)"
array=$(/usr/bin/python3 -c 'import json; s = json.load(open("s/slurm.json"))[-1]; print(s["arrays"][0]["job"], s["aggregate"])')
read -r array aggregate <<< "$array"
grep -q "submitted job array $array (8 points), at most 1 at once; aggregation job $aggregate after them (afterok)" submit.txt \
  && pass "8 points as one job array, throttled, and an afterok aggregation job" || fail "submit: $(cat submit.txt)"
scancel "${array}_7"  # point 007, still pending behind the throttle
"$RIPPLE_BIN" campaign s status > status1.txt
grep -q '^aggregation job .*: pending' status1.txt && grep -Eq '^  007  lost' status1.txt \
  && [ "$(grep -Ec '^  00[0-6]  (pending|running|done) ' status1.txt)" -eq 7 ] \
  && pass "status after the submission: 007 lost (cancelled), the rest pending, running or done" || fail "status 1: $(cat status1.txt)"
wait_queue "$array"
"$RIPPLE_BIN" campaign s status > status2.txt
grep -q '(idle-waves, 8 points): 7 done, 1 lost' status2.txt \
  && grep -q "^aggregation job $aggregate: pending (.*): it will not run, 1 point(s) ended without a result; --resume" status2.txt \
  && pass "status once the array ended: 7 done, 1 lost, the aggregation will not run" || fail "status 2: $(cat status2.txt)"
[ ! -e s/table.csv ] || fail "an aggregation ran although a task was cancelled"
for i in 0 1 2 3 4 5 6; do cp "s/points/00$i/result.json" "kept-$i.json"; done

"$RIPPLE_BIN" campaign s --resume --slurm > resume.txt 2>&1 || fail "resume: $(cat resume.txt)"
read -r array2 aggregate2 <<< "$(/usr/bin/python3 -c 'import json; s = json.load(open("s/slurm.json"))[-1]; print(s["arrays"][0]["job"], s["aggregate"])')"
grep -q "submitted job array $array2 (1 points)" resume.txt && /usr/bin/python3 -c 'import json, sys; assert json.load(open("s/slurm.json"))[-1]["arrays"][0]["ids"] == ["007"]' \
  && pass "--resume: a job array of point 007 alone" || fail "resume: $(cat resume.txt)"
wait_queue "$array2" "$aggregate2"
# scontrol through a shim that logs its calls: points with a result need no lookup, only the
# aggregation job does (a campaign of thousands of points must not make thousands of calls).
mkdir -p shim && printf '#!/bin/sh\necho "$*" >> "%s/scontrol.log"\nexec %s "$@"\n' "$PWD" "$(command -v scontrol)" > shim/scontrol && chmod +x shim/scontrol
PATH="$PWD/shim:$PATH" "$RIPPLE_BIN" campaign s status > status3.txt
grep -q '(idle-waves, 8 points): 8 done' status3.txt && grep -q "^aggregation job $aggregate2: completed" status3.txt \
  && [ "$(cat scontrol.log)" = "show job -o $aggregate2" ] \
  && pass "status at the end: 8 done, aggregation completed, one scontrol call" || fail "status 3: $(cat status3.txt) scontrol: $(cat scontrol.log)"
ok=1
for i in 0 1 2 3 4 5 6; do cmp -s "kept-$i.json" "s/points/00$i/result.json" || ok=0; done
[ "$ok" = 1 ] && grep -q "\"job\": \"${array2}_7\"" s/points/007/result.json && pass "the other points were not run again" \
  || fail "points rerun: $(grep -h '"job"' s/points/*/result.json)"
scontrol show job -o "$aggregate" 2> /dev/null | grep -q 'JobState=CANCELLED' && pass "the stale aggregation job was cancelled" \
  || fail "old aggregation job: $(scontrol show job -o "$aggregate")"

# --local: the same table up to timings (the parameters, every column, the delay's source).
"$RIPPLE_BIN" campaign iw.toml --local --dir l > local.txt 2>&1 || fail "local: $(tail -n 5 local.txt)"
/usr/bin/python3 - s/table.csv l/table.csv <<'PY' && pass "--local and --slurm: the same table up to timings" || fail "tables differ"
import csv, sys
s, l = (list(csv.DictReader(open(f))) for f in sys.argv[1:])
assert list(s[0]) == list(l[0]), (list(s[0]), list(l[0]))
same = ["id", "status", "app", "delay", "distances", "bytes", "iterations", "wave_rank", "wave_iteration", "error"]
for a, b in zip(s, l):
    assert [a[k] for k in same] == [b[k] for k in same], (a, b)
    assert a["status"] == "done" and a["wave_rank"] == "5" and a["wave_iteration"] == "10", a
PY
finish
