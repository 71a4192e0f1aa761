#!/usr/bin/env bash
# heat2d: decomposition- and halo-invariance (bitwise), analytic verification, delay injection,
# bad input.
source "$(dirname "$0")/lib.sh"
: "${HEAT2D_BIN:?}"
heat() { local np=$1; shift; timeout 300 "$MPIEXEC" -np "$np" --oversubscribe "$HEAT2D_BIN" "$@"; }
checksum() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checksum'])" "$1"; }

# 1. The same 64 x 64 global problem on 1x1, 2x1, 1x2 and 2x2 grids and with every halo mode.
common=(--iterations 40 --warmup 3 --problem hot)
heat 1 --tile 64 --grid 1x1 "${common[@]}" --json ref.json --output ref.h5 > /dev/null || fail "1x1 run"
want=$(checksum ref.json)
for spec in "2 32x64 2x1" "2 64x32 1x2" "4 32 2x2"; do
  read -r np tile grid <<< "$spec"
  for halo in mpi shm:ns shm:we shm:all; do
    name="g${grid}_${halo/:/_}"
    heat "$np" --tile "$tile" --grid "$grid" --halo "$halo" "${common[@]}" --json "$name.json" --output "$name.h5" > "$name.txt" \
      || { fail "$grid $halo exited $?"; continue; }
    got=$(checksum "$name.json")
    [ "$got" = "$want" ] || fail "$grid $halo: checksum $got differs from 1x1 $want"
    h5diff -q ref.h5 "$name.h5" /u /u || fail "$grid $halo: /u differs from 1x1"
  done
done
[ "$failures" -eq 0 ] && pass "final field bitwise identical for grids 1x1, 2x1, 1x2, 2x2 and halos mpi, shm:ns, shm:we, shm:all"

# 2. The eigenmode decays analytically (the app verifies to 1e-12, or 2 epsilon per sweep in long
# runs, and exits non-zero otherwise): a short run, and a long one (20000 sweeps, 1.1e-12 measured).
heat 4 --tile 48x40 --iterations 200 --warmup 0 --problem eigenmode --halo shm:all > eig.txt && grep -q "verification PASSED" eig.txt \
  && pass "eigenmode: $(grep verification eig.txt)" || fail "eigenmode verification: $(cat eig.txt)"
heat 4 --tile 32 --iterations 20000 --warmup 0 --problem eigenmode > eig-long.txt && grep -q "verification PASSED" eig-long.txt \
  && pass "eigenmode, 20000 sweeps: $(grep verification eig-long.txt)" || fail "long eigenmode verification: $(cat eig-long.txt)"

# 3. Injection: rank 3 computes 0.02 s longer in iteration 10; the others wait for it afterwards.
heat 8 --tile 32 --grid 4x2 --work sleep --compute-time 0.002 --delay 3:10:0.02 --iterations 30 --warmup 2 --json inject.json > /dev/null \
  || fail "injection run"
/usr/bin/python3 - inject.json <<'PY' && pass "injection: rank 3 iteration 10 is 0.02 s longer and neighbours idle after it" || fail "injection timings"
import json, statistics, sys
t = json.load(open(sys.argv[1]))["timings"]
c3 = t[3]["compute"]
extra = c3[10] - statistics.median(c3)
assert abs(extra - 0.02) < 0.006, f"rank 3 iteration 10 compute exceeds its median by {extra:.4f} s"
# Every other rank waits for the delayed one in iteration 10 or the few after it (the idle wave).
for r, row in enumerate(t):
    if r == 3:
        continue
    idle = max(row["comm"][10:16])
    assert idle > 0.01, f"rank {r} shows no idle time after the delay (max comm {idle:.4f} s)"
PY

# 4. Halo windows placed on a NUMA node (node 0 exists everywhere).
heat 4 --tile 32 --grid 2x2 --halo shm:all --shm-numa 0 "${common[@]}" --json numa.json > /dev/null && [ "$(checksum numa.json)" = "$want" ] \
  && pass "--shm-numa 0 gives the same field" || fail "--shm-numa 0"

# 5. Bad input: one line, exit code 2, every rank.
bad() {
  local name=$1 pattern=$2; shift 2
  set +e; heat 4 "$@" > out.txt 2> err.txt; local rc=$?; set -e
  if [ "$rc" -ne 2 ] || [ "$(grep -c '^ripple: error' err.txt)" -ne 1 ] || ! grep -q -- "$pattern" err.txt; then
    fail "$name: rc=$rc $(cat err.txt)"
  else
    pass "$name: $(grep '^ripple: error' err.txt)"
  fi
}
bad "grid mismatch" "--grid 3x1: 3 x 1 = 3 processes, but the run has 4 ranks" --grid 3x1
bad "tile 0" "--tile 0: extents must be positive" --tile 0
bad "unknown halo" "--halo shm:up: use mpi, shm:ns, shm:we or shm:all" --halo shm:up
bad "no such NUMA node" "--shm-numa 4096: no such NUMA node" --halo shm:all --shm-numa 4096
bad "grid overflow" "--grid 3x1431655766: 3 x 1431655766 = 4294967298 processes" --grid 3x1431655766
bad "eigenmode underflow" "the eigenmode would decay below 1e-250" --tile 32 --iterations 1000000
bad "output a directory" "cannot write HDF5 file '.': it is a directory" --tile 32 --iterations 3 --output .
bad "output a device" "cannot write HDF5 file '/dev/null': it is not a regular file" --tile 32 --iterations 3 --output /dev/null
bad "malformed delay" "--delay '3:x:0.1': expected\|is not an integer" --delay 3:x:0.1

# 6. No room for the outputs (a tmpfs; mounting needs root): the result file's space is reserved
# before it is written, so a disk without it refuses the write with the reason and leaves no file
# (before: on 4 ranks, exit 0 and a file with 3928 of its 16384 values zero, Open MPI's collective
# write having reported the failed part as written); a JSON summary on a full disk is an error with
# the reason and no empty file (before: exit 2, "check the directory is writable", an empty file).
mkdir -p small
if mount -t tmpfs -o size=300k tmpfs small 2> /dev/null; then
  set +e; heat 4 --tile 64 --iterations 5 --output small/u.h5 > out.txt 2> err.txt; rc=$?; set -e
  [ "$rc" -eq 1 ] && grep -q "^ripple: error: cannot write 'small/u.h5': the file system refuses it the .* MiB it needs: No space left" err.txt \
    && [ -z "$(ls small)" ] && pass "result file without room: rc 1, the reason, no file" \
    || fail "result file without room: rc=$rc $(cat err.txt) $(ls -l small)"
  dd if=/dev/zero of=small/fill bs=4k count=100 2> /dev/null || true  # fills it
  set +e; heat 4 --tile 32 --iterations 5 --json small/s.json > out.txt 2> err.txt; rc=$?; set -e
  [ "$rc" -eq 1 ] && grep -q "^ripple: error: --json: cannot write 'small/s.json': No space left on device" err.txt \
    && [ ! -e small/s.json ] && pass "JSON summary on a full disk: rc 1, the reason, no file" \
    || fail "JSON summary on a full disk: rc=$rc $(cat err.txt) $(ls -l small)"
  umount small
else
  echo "note: no-room cases not run (cannot mount a tmpfs here)"
fi
finish
