#!/usr/bin/env bash
# Issue 30, acceptance 3: jobs/sim.sbatch under a real (private, local) Slurm, with a time limit of
# one minute and --signal=USR1@50. The run waits at step 100 for Slurm's SIGUSR1 (--test-pause: the
# signal's moment does not matter; one that comes earlier stops the run earlier), checkpoints and
# exits 75; the job requeues itself, its next start resumes, and the output is bitwise that of an
# uninterrupted run.
source "$(dirname "$0")/../e2e/lib.sh"
source "$(dirname "$0")/local_slurm.sh"
source "$(dirname "$0")/../e2e/sim_resume_lib.sh"
slurm_can_run || { echo "skipped: no local Slurm here"; exit 77; }
sbatch_file="$e2e_dir/../../jobs/sim.sbatch"
slurm_start "$RIPPLE_WORK_DIR/slurm" 4 || { echo "FAIL: cannot start a local Slurm"; exit 1; }

write_resume_config run.toml
run_np 2 sim run.toml --quiet --set 'output.file="ref.h5"' || fail "uninterrupted run"
export RIPPLE=$RIPPLE_BIN
echo 0 1 > p  # both ranks wait at step 100 until Slurm's SIGUSR1 has reached them
job=$(sbatch --parsable --ntasks=2 --time=1 --signal=USR1@50 --output=job.out "$sbatch_file" run.toml --force --quiet \
  --test-pause 100:p)
for _ in $(seq 6000); do [ -z "$(squeue -h -j "$job" 2> /dev/null)" ] && break; sleep 0.1; done
[ -z "$(squeue -h -j "$job" 2> /dev/null)" ] || fail "job $job still queued: $(squeue -j "$job"; cat job.out)"
grep -q "start 1:" job.out && grep -q "requeueing job $job" job.out && grep -q "start 2: ripple sim run.toml --resume --quiet" job.out \
  && pass "job $job: SIGUSR1, checkpoint, requeued, resumed" || fail "job log: $(cat job.out)"
same_results ref.h5 run.h5 && pass "across two jobs: bitwise the uninterrupted run" || fail "requeued run differs: $(cat job.out)"
finish
