#!/usr/bin/env bash
# Issue 30, acceptance 2 and 5: a run stopped and resumed again and again, on 1, 2 and 4 ranks
# (SIGTERM, SIGKILL after a flush, SIGUSR1), ends bitwise where one uninterrupted run ends; --resume
# with a changed configuration, without a checkpoint or with a damaged one (a flipped bit,
# truncated, not HDF5) exits 2 and changes nothing.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/sim_resume_lib.sh"

write_resume_config run.toml
run_np 2 sim run.toml --quiet --set 'output.file="ref.h5"' || fail "uninterrupted run"

check_chain() {  # NAME CONFIG_ARGS...: four pieces on 1, 2, 4 and 2 ranks
  local name=$1; shift
  start_paused 1 37 p1 run.toml --force "$@" || fail "$name: piece 1 ended early: $(cat p1.out)"
  signal_and_go p1 TERM 0
  [ "$sim_rc" -eq 75 ] && [ -e run.h5.checkpoint ] || fail "$name: SIGTERM: exit $sim_rc (want 75): $(cat p1.out)"
  # Flushing every step: the checkpoint SIGKILL leaves is the one before step 90.
  start_paused 2 90 p2 run.toml --resume --set output.flush_seconds=0 "$@" || fail "$name: piece 2 ended early: $(cat p2.out)"
  signal_and_go p2 KILL 1
  [ "$sim_rc" -ne 0 ] || fail "$name: SIGKILL: exit 0"
  start_paused 4 170 p3 run.toml --resume "$@" || fail "$name: piece 3 ended early: $(cat p3.out)"
  signal_and_go p3 USR1 1 3
  [ "$sim_rc" -eq 75 ] || fail "$name: SIGUSR1: exit $sim_rc (want 75): $(cat p3.out)"
  run_np 2 sim run.toml --quiet --resume "$@" > p4.out 2>&1 || fail "$name: last piece: $(cat p4.out)"
  [ ! -e run.h5.checkpoint ] || fail "$name: checkpoint left after the run completed"
}

check_chain "dopri5"
same_results ref.h5 run.h5 && pass "dopri5: TERM on 1 rank, KILL on 2, USR1 on 4, done on 2: bitwise the uninterrupted run" \
  || fail "dopri5: resumed run differs"

run_np 2 sim run.toml --quiet --force --set solver.method=rk4 --set solver.dt=1e-4 --set 'output.file="ref.h5"' \
  || fail "uninterrupted rk4 run"
check_chain "rk4" --set solver.method=rk4 --set solver.dt=1e-4
same_results ref.h5 run.h5 && pass "rk4: the same chain: bitwise the uninterrupted run" || fail "rk4: resumed run differs"

# The wait potential, whose kicks pause a process (the pause a function of the time alone).
wait=(--set model.potential=wait --set delay.mean=1e-4 --set delay.jitter=5e-5)
run_np 2 sim run.toml --quiet --force "${wait[@]}" --set 'output.file="ref.h5"' || fail "uninterrupted wait run"
check_chain "wait" "${wait[@]}"
same_results ref.h5 run.h5 && pass "wait: the same chain: bitwise the uninterrupted run" || fail "wait: resumed run differs"

# The mean field (all-to-all Kuramoto): no ghosts, no delay history, no iteration ends.
mean_field=(--set topology.kind=all --set model.potential=kuramoto --set delay.mean=0 --set delay.jitter=0
  --set output.iterations=false --set solver.method=rk4 --set solver.dt=1e-4)
run_np 2 sim run.toml --quiet --force "${mean_field[@]}" --set 'output.file="ref.h5"' || fail "uninterrupted mean-field run"
check_chain "mean field" "${mean_field[@]}"
same_results ref.h5 run.h5 && pass "mean field, rk4: the same chain: bitwise the uninterrupted run" \
  || fail "mean field: resumed run differs"

# Bad input: one line, exit 2, output and checkpoint unchanged.
start_paused 2 60 p5 run.toml --force || fail "bad input set-up: $(cat p5.out)"
signal_and_go p5 TERM 0 1
[ "$sim_rc" -eq 75 ] || fail "bad input set-up: exit $sim_rc"
cp run.h5 kept.h5
cp run.h5.checkpoint kept.checkpoint
unchanged() { cmp -s run.h5 kept.h5 && cmp -s run.h5.checkpoint kept.checkpoint; }
expect_one_error "changed config" "solver.rtol differs from the configuration the run started with" \
  sim run.toml --resume --set solver.rtol=1e-7 && unchanged && pass "changed config: $(grep '^ripple: error' err.txt)" \
  || fail "changed config: files changed"
# One bit of one phase flipped: HDF5 opens the file, the checksum finds it.
/usr/bin/python3 - run.h5.checkpoint <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    at = f["history_phase"].id.get_offset() + 8 * 41 + 3
with open(sys.argv[1], "r+b") as f:
    f.seek(at)
    b = f.read(1)
    f.seek(at)
    f.write(bytes([b[0] ^ 0x10]))
PY
cp run.h5.checkpoint flipped.checkpoint
expect_one_error "flipped bit" "checkpoint 'run.h5.checkpoint' is damaged: its data do not match its checksum" sim run.toml --resume \
  && cmp -s run.h5 kept.h5 && cmp -s run.h5.checkpoint flipped.checkpoint && pass "flipped bit: $(grep '^ripple: error' err.txt)" \
  || fail "flipped bit: files changed"
head -c 3000 kept.checkpoint > run.h5.checkpoint
cp run.h5.checkpoint kept.checkpoint
expect_one_error "truncated checkpoint" "checkpoint 'run.h5.checkpoint' is damaged" sim run.toml --resume && unchanged \
  && pass "truncated checkpoint: $(grep '^ripple: error' err.txt)" || fail "truncated checkpoint: files changed"
head -c 100000 /dev/urandom > run.h5.checkpoint
cp run.h5.checkpoint kept.checkpoint
expect_one_error "garbage checkpoint" "checkpoint 'run.h5.checkpoint' is damaged" sim run.toml --resume && unchanged \
  && pass "garbage checkpoint: $(grep '^ripple: error' err.txt)" || fail "garbage checkpoint: files changed"
rm run.h5.checkpoint
expect_one_error "no checkpoint" "no checkpoint 'run.h5.checkpoint'" sim run.toml --resume && cmp -s run.h5 kept.h5 \
  && [ ! -e run.h5.checkpoint ] && pass "no checkpoint: $(grep '^ripple: error' err.txt)" || fail "no checkpoint: files changed"
finish
