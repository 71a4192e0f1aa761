#!/usr/bin/env bash
# Issue 27, jobs/: every batch template under a real (private, local) Slurm, with tiny parameters (4
# ranks oversubscribed on the node's 4 CPUs, --work sleep, a few iterations): each job completes and
# writes its outputs (the trace, the apps' JSON, `ripple waves` and `compare` JSON that parses, the
# machine file, the CXL table) and its provenance.txt (the job's id, its nodes, `ripple info`). One
# template also runs without Slurm (mpirun). No timings are checked.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/local_slurm.sh"
: "${HEAT2D_BIN:?}" "${RING_BIN:?}"
slurm_can_run || { echo "skipped: no local Slurm here"; exit 77; }
jobs_dir=$(cd "$e2e_dir/../../jobs" && pwd)
slurm_start "$RIPPLE_WORK_DIR/slurm" 4 || { echo "FAIL: cannot start a local Slurm"; exit 1; }
mkdir bin && ln -s "$RING_BIN" "$HEAT2D_BIN" bin/  # the templates find the apps on PATH
export PATH=$PWD/bin:$PATH RIPPLE=$RIPPLE_BIN
# More ranks than cores: under srun Open MPI does not know it is oversubscribed (mpirun does), and
# its waiting ranks would spin (a 5 ms ping-pong made calibrate's bandwidth fit fail).
export OMPI_MCA_mpi_yield_when_idle=1
sleepy=(--work sleep --compute-time 0.002 --warmup 2)

submit() { sbatch --parsable --oversubscribe --output="$1.out" "${@:2}"; }
tp=$(submit tp --ntasks=4 "$jobs_dir/trace-proxy.sbatch" --out tp ring "${sleepy[@]}" --iterations 20 --delay 1:5:0.01 --noise exp:0.0002)
cal=$(submit cal --ntasks=2 "$jobs_dir/calibrate.sbatch" --out cal --repetitions 1)
iw=$(submit iw --ntasks=4 "$jobs_dir/idle-waves.sbatch" --out iw ring "${sleepy[@]}" --iterations 30)
cxl=$(submit cxl --ntasks=4 --dependency=afterok:"$cal" "$jobs_dir/cxl-sweep.sbatch" --out cxl --machine cal/machine-node.toml \
  --tiles 32,64 --halos shm:ns,shm:all --iterations 20 --grid 2x2 "${sleepy[@]}")
for _ in $(seq 1800); do [ -z "$(squeue -h 2> /dev/null)" ] && break; sleep 0.1; done
[ -z "$(squeue -h 2> /dev/null)" ] || fail "jobs still queued: $(squeue)"

# done NAME JOB: the job completed with exit code 0 and wrote NAME/provenance.txt with its id and the build.
done_ok() {
  local name=$1 job=$2 state
  state=$(scontrol show job -o "$job" | grep -o 'JobState=[A-Z]* .*ExitCode=[0-9:]*' | sed 's/ .* / /')
  [ "$state" = "JobState=COMPLETED ExitCode=0:0" ] || { fail "$name: job $job $state: $(tail -n 8 "$name.out")"; return 1; }
  grep -qx "slurm_job_id: $job" "$name/provenance.txt" && grep -q '^build: ripple .* (git ' "$name/provenance.txt" \
    && grep -q "^nodes: 1 (" "$name/provenance.txt" && grep -q '^launcher: srun --mpi=pmix' "$name/provenance.txt" \
    || { fail "$name: provenance: $(cat "$name/provenance.txt")"; return 1; }
}
done_ok tp "$tp" && /usr/bin/python3 - tp <<'PY' && pass "trace-proxy: the trace of 4 ranks, the app's JSON, provenance" || fail "trace-proxy outputs"
import json, sys
from trace_file import Trace
d = sys.argv[1]
t = Trace(f"{d}/trace.h5")
assert len(t.count) == 4 and (t.count > 0).all(), t.count
a = json.load(open(f"{d}/app.json"))
assert a["ranks"] == 4 and a["iterations"] == 20 and a["work"] == "sleep", a
PY
done_ok cal "$cal" && grep -q '^\[LOCAL_MEM_LAT\]' cal/machine-node.toml && grep -q '^\[MPI_RECV_LAT\]' cal/machine-node.toml \
  && [ ! -e cal/machine-2nodes.toml ] && pass "calibrate: the machine file of one node" || fail "calibrate outputs"
done_ok iw "$iw" && /usr/bin/python3 - iw <<'PY' && pass "idle-waves: trace, waves and compare JSON" || fail "idle-waves outputs: $(tail -n 8 iw.out)"
import json, sys
d = sys.argv[1]
w, c = json.load(open(f"{d}/waves.json")), json.load(open(f"{d}/compare.json"))
assert w and c["runs"], c
assert json.load(open(f"{d}/app.json"))["iterations"] == 30
PY
done_ok cxl "$cxl" && /usr/bin/python3 - cxl <<'PY' && pass "cxl-sweep: 2 tiles x 2 modes, measured and predicted" || fail "cxl-sweep outputs: $(cat cxl.out)"
import csv, json, math, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/table.csv")))
assert [(r["tile"], r["halo"]) for r in rows] == [(t, h) for t in ("32", "64") for h in ("shm:ns", "shm:all")], rows
for r in rows:
    assert float(r["seconds"]) > 0 and float(r["predicted_speedup"]) > 0 and math.isfinite(float(r["measured_speedup"])), r
for t in (32, 64):
    assert json.load(open(f"{d}/cxl-{t}.json"))["groups"]
PY

# Without Slurm: mpirun, and the provenance says so.
(unset SLURM_CONF; RIPPLE_NP=2 timeout 120 bash "$jobs_dir/trace-proxy.sbatch" --out local ring "${sleepy[@]}" --iterations 5 > local.out 2>&1) \
  && [ -s local/trace.h5 ] && grep -qx 'slurm_job_id: none' local/provenance.txt && grep -Eq '^launcher: (.*/)?mpi(run|exec)$' local/provenance.txt \
  && pass "trace-proxy without Slurm: mpirun" || fail "without Slurm: $(tail -n 5 local.out; cat local/provenance.txt)"
finish
