#!/usr/bin/env bash
# Acceptance 8: bad input gives one line naming the key or file, exit code 2 on every rank, no hang.
source "$(dirname "$0")/lib.sh"

cat > good.toml <<'TOML'
[model]
oscillators = 16
t_comp = 1.0e-3
[solver]
t_end = 0.002
[output]
file = "out.h5"
TOML

# expect_error NAME PATTERN ARGS...: `ripple sim ARGS` on 2 ranks: exit code 2, exactly one error line that matches.
expect_error() {
  local name=$1 pattern=$2; shift 2
  if expect_one_error "$name" "$pattern" sim "$@"; then pass "$name: $(grep '^ripple: error' err.txt)"; fi
}

expect_error "unknown key" "\[model\] oscilators: unknown key" good.toml --set model.oscilators=3
expect_error "wrong type" "\[model\] oscillators: expected an integer" good.toml --set 'model.oscillators="many"'
expect_error "N <= 0" "\[model\] oscillators: must be a positive" good.toml --set model.oscillators=0
expect_error "negative time" "\[model\] t_comm: times must not be negative" good.toml --set model.t_comm=-1e-4
expect_error "NaN" "\[model\] t_comp: must be a finite number" good.toml --set model.t_comp=nan
expect_error "dims product" "\[topology\] dims: product 12 differs" good.toml --set topology.kind=grid2d --set 'topology.dims=[3,4]'
printf '0 1\n1 16\n' > bad_edges.txt
expect_error "edge index" "bad_edges.txt:2: index out of range" good.toml --set topology.kind=file --set 'topology.file="bad_edges.txt"'
{ cat good.toml; printf '[[kick]]\noscillator = 1\ntime = 0.5\ndelay = 0.001\n'; } > late_kick.toml
expect_error "kick after t_end" "\[\[kick\]\] #1 time: 0.5 is not in \[0, t_end" late_kick.toml
expect_error "too many stored states" "\[output\] interval: gives" good.toml --set output.interval=1e-12
expect_error "missing config" "cannot read configuration file 'nope.toml'" nope.toml
expect_error "unwritable output" "cannot write HDF5 file '/nonexistent/dir/out.h5': its directory '/nonexistent/dir' does not exist" good.toml --set 'output.file="/nonexistent/dir/out.h5"'
run_np 2 sim good.toml --quiet || fail "good config failed"
expect_error "existing output" "file 'out.h5' exists: pass --force" good.toml
run_np 2 sim good.toml --quiet --force && pass "--force overwrites" || fail "--force did not overwrite"
rc=0; run_np 2 sim --bogus-option good.toml > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] && pass "unknown option exits 2" || fail "unknown option exit code $rc"
# An output file system without room for the file: one line naming it and the reason, exit code 1,
# before the run (the file's space is reserved when it is created; before, rank 1 met the full disk
# in its first write, mid-run, and aborted). Needs a small tmpfs (root).
mkdir -p small
if mount -t tmpfs -o size=400k tmpfs small 2> /dev/null; then
  rc=0
  run_np 2 sim good.toml --set model.oscillators=20000 --set 'output.file="small/out.h5"' > out.txt 2> err.txt || rc=$?
  [ "$rc" -eq 1 ] && [ "$(grep -c '^ripple: error' err.txt)" -eq 1 ] \
    && grep -q "cannot write 'small/out.h5': the file system refuses it the .* MiB it needs: No space left on device" err.txt \
    && [ ! -e small/out.h5 ] && pass "no room for the output: $(grep '^ripple: error' err.txt)" \
    || fail "no room for the output: rc=$rc $(cat err.txt)"
  # The JSON summary on a full disk (the output elsewhere): the reason, exit code 1, no empty file
  # (before: exit 0 and an empty summary, the stream's write failing unseen in its destructor).
  dd if=/dev/zero of=small/fill bs=4k count=200 2> /dev/null || true
  rc=0
  run_np 2 sim good.toml --force --summary small/summary.json > out.txt 2> err.txt || rc=$?
  [ "$rc" -eq 1 ] && [ "$(grep -c '^ripple: error' err.txt)" -eq 1 ] \
    && grep -q "^ripple: error: --summary: cannot write 'small/summary.json': No space left on device" err.txt \
    && [ ! -e small/summary.json ] && pass "summary on a full disk: $(grep '^ripple: error' err.txt)" \
    || fail "summary on a full disk: rc=$rc $(cat err.txt)"
  umount small
  # No inode left for the summary: the create itself is refused by the system, an error (exit 1),
  # not bad input (exit 2).
  if mount -t tmpfs -o size=1m,nr_inodes=2 tmpfs small 2> /dev/null; then
    touch small/taken 2> /dev/null || true  # the last inode
    rc=0
    run_np 2 sim good.toml --force --summary small/summary.json > out.txt 2> err.txt || rc=$?
    [ "$rc" -eq 1 ] && grep -q "^ripple: error: --summary: cannot write 'small/summary.json': No space left on device" err.txt \
      && pass "summary without an inode: $(grep '^ripple: error' err.txt)" || fail "summary without an inode: rc=$rc $(cat err.txt)"
    umount small
  fi
else
  echo "note: full-disk case not run (cannot mount a tmpfs here)"
fi
# The progress line never passes 100 % nor shows a negative ETA (a step may end past t_end; before:
# "556%", "eta -2 s"), and the JSON summary stays valid with a quote in the output path (it was
# written by hand).
cat > prog.toml <<'TOML'
[model]
oscillators = 8
t_comp = 1.0e-3
[[kick]]
oscillator = 3
time = 0.004
delay = 0.002
[solver]
t_end = 0.02
[output]
interval = 0.005
TOML
run_np 2 sim prog.toml --progress-seconds 0 --set 'output.file="q\"uote.h5"' --summary 'sum"mary.json' > prog.txt 2>&1 \
  && /usr/bin/python3 - <<'PY' && pass "progress within 0-100 %, ETA >= 0; summary JSON valid with a quote in the path" || fail "progress or summary: $(tail -3 prog.txt)"
import json, re
lines = [l for l in open("prog.txt") if l.startswith("ripple sim: t = ")]
assert lines, "no progress lines"
for l in lines:
    t, end, pct, eta = re.match(r"ripple sim: t = (\S+) of (\S+) s \((\d+)%\), .* eta (-?\d+) s", l).groups()
    assert float(t) <= float(end) and int(pct) <= 100 and int(eta) >= 0, l
assert json.load(open('sum"mary.json'))["output_file"].endswith('q"uote.h5')
PY
finish
