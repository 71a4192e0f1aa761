#!/usr/bin/env bash
# `srun ... ripple trace ...` under a real (private, local) Slurm: a 4-rank heat2d traced through
# srun --mpi=pmix gives one file with every rank's events and the job's id; a step in which one rank
# is killed leaves spools that `ripple trace recover` turns into a file with all four ranks.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/local_slurm.sh"
: "${HEAT2D_BIN:?}" "${RING_BIN:?}"
slurm_can_run || { echo "skipped: no local Slurm here"; exit 77; }
slurm_start "$RIPPLE_WORK_DIR/slurm" 4 || { echo "FAIL: cannot start a local Slurm"; exit 1; }

timeout 120 srun -n 4 --mpi=pmix "$RIPPLE_BIN" trace -o srun.h5 -- "$HEAT2D_BIN" --tile 32 --iterations 20 --warmup 0 \
  > srun.txt 2>&1 || fail "traced srun step: $(tail -n 5 srun.txt)"
/usr/bin/python3 - srun.h5 <<'PY' && pass "srun --mpi=pmix: one trace of all 4 ranks, with the Slurm job id" || fail "srun trace"
import sys
from trace_file import Trace
t = Trace(sys.argv[1])
assert len(t.count) == 4 and t.file.attrs["ranks"] == 4, t.count
job = t.file.attrs["slurm_job_id"].decode()
assert job.isdigit(), job
for r in range(4):
    e = t.rank(r)
    # 20 iterations: one marker (level 7701) and one Waitall each, two neighbours each in the 2x2 grid
    # (periodic or not: at least one); then the loop-end marker (7703)
    marks = t.calls("MPI_Pcontrol", e)["tag"]
    assert (marks == 7701).sum() == 20 and list(marks[-1:]) == [7703] and len(t.calls("MPI_Waitall", e)) >= 20, r
    assert len(t.calls("MPI_Isend", e)) == len(t.calls("MPI_Irecv", e)) > 0, r
PY

# A rank killed in the middle of a step: srun ends the step, the spools stay, recover rebuilds it.
# (The victim: a rank of this step, the ring program itself by its command line's start, with a
# compute time of its own; never srun or timeout, whose command lines contain the same words.)
timeout 120 srun -n 4 --mpi=pmix --kill-on-bad-exit=1 "$RIPPLE_BIN" trace -o killed.h5 -- "$RING_BIN" --work sleep \
  --compute-time 0.0217 --iterations 100000 --warmup 0 > killed.txt 2>&1 &
step=$!
# Until every rank has spooled events (each spool past its first 4 KiB block; a fixed sleep lost the
# race on a loaded machine, where MPI_Init under srun took longer: nothing to recover), at most 60 s.
for _ in $(seq 600); do
  n=0
  for f in killed.h5.spool/rank-*.bin; do [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 4096 ] && n=$((n + 1)); done
  [ "$n" -eq 4 ] && break
  sleep 0.1
done
sleep 1  # and one more flush: more than ten iterations each
victim=$(pgrep -f "^$RING_BIN --work sleep --compute-time 0.0217 " | sed -n 2p)
if [ -n "$victim" ] && [ "$(readlink "/proc/$victim/exe")" = "$(readlink -f "$RING_BIN")" ]; then
  kill -KILL "$victim"
else
  fail "no rank of the step to kill (found '${victim}')"
fi
set +e
wait "$step"
set -e
[ -d killed.h5.spool ] || fail "no spool after the killed step"
"$RIPPLE_BIN" trace recover killed.h5 > recover.txt 2>&1 || fail "recover after the killed step: $(cat recover.txt)"
/usr/bin/python3 - killed.h5 <<'PY' && pass "a rank killed under srun: recovered, all 4 ranks' events" || fail "recovered srun trace"
import sys
from trace_file import Trace
t = Trace(sys.argv[1])
assert "recovered" in t.file.attrs
assert len(t.count) == 4 and (t.count > 0).all(), t.count
for r in range(4):
    assert len(t.calls("MPI_Pcontrol", t.rank(r))) > 10, r
PY
pids=$slurm_pids
slurm_stop
slurm_pids=$pids
slurm_running && fail "Slurm daemons left running: $pids" || pass "local Slurm stopped (PIDs $pids)"
finish
