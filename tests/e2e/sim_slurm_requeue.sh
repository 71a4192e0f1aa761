#!/usr/bin/env bash
# Issue 30, acceptance 3: jobs/sim.sbatch under a real (private, local) Slurm. The job's tasks get
# SIGUSR1 as --signal sends it before a time limit (here from scancel, at a point of the run's
# progress rather than of the clock); the run checkpoints and exits 75, the job requeues itself,
# its second start resumes, and the output is bitwise that of an uninterrupted run.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/local_slurm.sh"
source "$(dirname "$0")/sim_resume_lib.sh"
slurm_can_run || { echo "skipped: no local Slurm here"; exit 77; }
sbatch_file="$e2e_dir/../../jobs/sim.sbatch"
slurm_start "$RIPPLE_WORK_DIR/slurm" 4 || { echo "FAIL: cannot start a local Slurm"; exit 1; }

write_resume_config run.toml
run_np 2 sim run.toml --quiet --set 'output.file="ref.h5"' || fail "uninterrupted run"
export RIPPLE=$RIPPLE_BIN
job=$(sbatch --parsable --ntasks=2 --time=10 --output=job.out "$sbatch_file" run.toml --force --quiet --test-pause 100:p)
for _ in $(seq 1200); do [ -e p.paused ] && break; sleep 0.1; done
[ -e p.paused ] || fail "the job's run did not reach step 100: $(cat job.out)"
scancel --signal=USR1 "$job"
echo 0 1 > p
for _ in $(seq 1800); do [ -z "$(squeue -h -j "$job" 2> /dev/null)" ] && break; sleep 0.1; done
[ -z "$(squeue -h -j "$job" 2> /dev/null)" ] || fail "job $job still queued: $(squeue -j "$job"; cat job.out)"
grep -q "start 1:" job.out && grep -q "requeueing job $job" job.out && grep -q "start 2: ripple sim run.toml --resume --quiet" job.out \
  && pass "job $job: SIGUSR1, checkpoint, requeued, resumed" || fail "job log: $(cat job.out)"
same_results ref.h5 run.h5 && pass "across two jobs: bitwise the uninterrupted run" || fail "requeued run differs: $(cat job.out)"
finish
