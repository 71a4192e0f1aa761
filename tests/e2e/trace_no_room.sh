#!/usr/bin/env bash
# When the trace file cannot be written: a full disk, a file-size limit, a write error in the middle
# of the write, a file system that cannot reserve space. The application's exit code stays 0, every
# rank's spool stays (nothing that reached it is lost), one message says what to do, and `recover`
# builds the file once there is room; `recover` itself refuses a disk without room with a message,
# never a crash. Mounting needs root; where it is not allowed a case is reported as not run.
source "$(dirname "$0")/lib.sh"
: "${RING_BIN:?}" "${MPIIO_FAULTS_LIB:?}"

# A full disk at MPI_Finalize: rank 0 cannot reserve the file's space; the spool stays, and
# `recover` works where there is room, and on the full disk refuses with the reason. Needs
# a small tmpfs (root); where mounting is not allowed the case is reported as not run.
mkdir -p small
if mount -t tmpfs -o size=400k tmpfs small 2> /dev/null; then
  set +e
  timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$RIPPLE_BIN" trace -o small/full.h5 --samples off -- "$RING_BIN" --iterations 2000 --warmup 0 \
    > full.txt 2>&1
  rc=$?
  set -e
  spooled=$(du -sb small/full.h5.spool 2> /dev/null | cut -f1)
  if [ "$rc" -eq 0 ] && grep -q "cannot write '.*full.h5': the file system refuses it the .* MiB it needs: No space left" full.txt \
    && grep -q "every rank's events stay in" full.txt && [ "${spooled:-0}" -gt 0 ] && [ ! -e small/full.h5 ]; then
    cp -r small/full.h5.spool full.h5.spool && "$RIPPLE_BIN" trace recover full.h5 > /dev/null \
      && "$RIPPLE_BIN" trace info full.h5 > /dev/null && pass "full disk: exit 0, spool kept, message, recovered elsewhere" \
      || fail "full disk: recover from the kept spool"
  else
    fail "full disk: rc=$rc spool=${spooled:-none} $(grep 'ripple trace' full.txt | tail -3)"
  fi
  # recover on that disk, with no byte free (the spool filled it): the reason, not "check the
  # directory is writable" (HDF5 writes its first bytes in the create), and no file left.
  set +e
  "$RIPPLE_BIN" trace recover small/full.h5 > recover-none.txt 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 1 ] && grep -q "cannot write 'small/full.h5': the file system refuses it .*No space left on device" recover-none.txt \
    && [ ! -e small/full.h5 ] && pass "recover on a disk without a free byte: rc 1, the reason, no file" \
    || fail "recover on a disk without a free byte: rc=$rc $(cat recover-none.txt)"
  # recover on that disk, given room for HDF5's first bytes but not for the file: refused before
  # HDF5 writes (HDF5 1.10 crashed in its cleanup at exit after a failed write: rc 139 before).
  mount -o remount,size=1m small
  before=$(cd small/full.h5.spool && md5sum rank-* | md5sum)
  set +e
  "$RIPPLE_BIN" trace recover small/full.h5 > recover-full.txt 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 1 ] && grep -q "cannot write 'small/full.h5': the file system refuses it .*; the spools in small/full.h5.spool are untouched" \
    recover-full.txt && [ ! -e small/full.h5 ] && [ "$(cd small/full.h5.spool && md5sum rank-* | md5sum)" = "$before" ] \
    && pass "recover on a full disk: rc 1, the reason, no file, the spools as they were" \
    || fail "recover on a full disk: rc=$rc $(cat recover-full.txt)"
  umount small
else
  echo "note: full-disk case not run (cannot mount a tmpfs here)"
fi

# A disk that fills in the middle of the write (the check switched off, as where the file system
# cannot reserve and another job fills it): with the spool on it, 700 KiB leave room for the
# spool but not the file. Every rank stops together, the incomplete file goes, the application
# exits 0 (before, it hung in the collective close, or crashed in HDF5's shutdown: rc 139).
mkdir -p filling
if mount -t tmpfs -o size=700k tmpfs filling 2> /dev/null; then
  set +e
  timeout 120 "$MPIEXEC" -np 2 --oversubscribe -x RIPPLE_TRACE_ROOM_CHECK=off "$RIPPLE_BIN" trace -o filling/f.h5 --samples off -- "$RING_BIN" \
    --iterations 2000 --warmup 0 > filling.txt 2>&1
  rc=$?
  set -e
  if [ "$rc" -eq 0 ] && grep -q "could not write .*filling/f.h5: rank [01] could not write to the file: MPI-IO " filling.txt && [ ! -e filling/f.h5 ] \
    && cp -r filling/f.h5.spool filling.h5.spool && "$RIPPLE_BIN" trace recover filling.h5 > /dev/null; then
    pass "a disk that fills mid-write: exit 0, every rank stops, the incomplete file removed, the spool recovered"
  else
    fail "a disk that fills mid-write: rc=$rc (124: it hung; 139: HDF5's shutdown crashed) $(grep 'ripple trace' filling.txt | tail -2)"
  fi
  umount filling
else
  echo "note: mid-write full-disk case not run (cannot mount a tmpfs here)"
fi

# A file-size limit on one rank (rank 0 may not grow a file beyond 256 KiB: room for its spool,
# not for its part of the file; with 64 KiB its spool could keep none of its events, when the
# flusher took them all in one append, and it then had nothing to write): MPI_Finalize sees it
# before HDF5 does, and every rank leaves the write; exit 0, the messages, the spool kept.
limited_run() {  # $1: the output's name; more: environment for both ranks
  local out=$1
  shift
  set +e
  timeout 120 "$MPIEXEC" -np 1 env "$@" sh -c "trap '' XFSZ; ulimit -f 256; exec '$RIPPLE_BIN' trace -o $out.h5 -- '$RING_BIN' --iterations 2000 --warmup 0" \
    : -np 1 env "$@" "$RIPPLE_BIN" trace -o "$out.h5" -- "$RING_BIN" --iterations 2000 --warmup 0 > "$out.txt" 2>&1
  rc=$?
  set -e
}
limited_run limited RIPPLE_TRACE_ROOM_CHECK=on
if [ "$rc" -eq 0 ] && grep -q "rank 0 may not write files beyond" limited.txt && grep -q "every rank's events stay in" limited.txt \
  && [ -d limited.h5.spool ] && [ ! -e limited.h5 ]; then
  "$RIPPLE_BIN" trace recover limited.h5 -o limited-recovered.h5 > /dev/null \
    && pass "a file-size limit on one rank: seen before HDF5, exit 0, message, spool kept and recovered" \
    || fail "recover after a one-rank file-size limit"
else
  fail "a file-size limit on one rank: rc=$rc $(grep 'ripple trace' limited.txt | tail -2)"
fi
# The same limit met in the middle of the collective write (the check switched off): every rank
# must stop at the same point instead of waiting in HDF5's next collective forever (it hung before
# the writes were agreed), and the application must not crash in HDF5's shutdown inside
# MPI_Finalize (signal 11 in H5F__close_cb, on the file it failed to close: rc 139 on every run
# before the tracer gave the file up, trace_writer.cpp).
limited_run midwrite RIPPLE_TRACE_ROOM_CHECK=off
if [ "$rc" -eq 0 ] && grep -q "could not write .*midwrite.h5: rank 0 could not write to the file: MPI-IO " midwrite.txt \
  && grep -q "every rank's events stay in" midwrite.txt && [ -d midwrite.h5.spool ] && [ ! -e midwrite.h5 ]; then
  "$RIPPLE_BIN" trace recover midwrite.h5 -o midwrite-recovered.h5 > /dev/null \
    && pass "a write error in the middle of the write: exit 0, message, the incomplete file removed, spool kept and recovered" \
    || fail "recover after a mid-write error"
else
  fail "a write error in the middle of the write: rc=$rc (124: it hung; 139: HDF5's shutdown crashed) $(grep 'ripple trace' midwrite.txt | tail -2)"
fi
# I/O errors that show on one rank only, where the room check cannot see them (tests/e2e/
# mpiio_faults.c, preloaded after the tracer): a close that fails on one rank (before: that rank
# crashed in HDF5's shutdown, rc 139, and the incomplete file stayed), and metadata writes that fail
# on one rank while HDF5's close extends the file collectively (before: the other rank waited in that
# collective forever). Exit 0, the reason, the file removed, the spools kept.
faulty_run() {  # $1: the case's name; more: the faults
  local out=$1
  shift
  set +e
  timeout 120 "$MPIEXEC" -np 2 --oversubscribe -x LD_PRELOAD="$MPIIO_FAULTS_LIB" $(printf -- '-x %s ' "$@") \
    "$RIPPLE_BIN" trace -o "$out.h5" --samples off -- "$RING_BIN" --iterations 200 --warmup 0 > "$out.txt" 2>&1
  rc=$?
  set -e
}
for fault in "close MPIIO_FAULTS_CLOSE_RANK=1" "close MPIIO_FAULTS_CLOSE_RANK=0" \
  "metadata MPIIO_FAULTS_WRITE_RANK=1 MPIIO_FAULTS_SHORT_SIZE=1"; do
  read -r what knobs <<< "$fault"
  name=faults-$what-$(echo "$knobs" | tr -dc '0-9')
  # shellcheck disable=SC2086
  faulty_run "$name" $knobs
  failing=$(echo "$knobs" | sed 's/.*_RANK=\([0-9]\).*/\1/')
  if [ "$rc" -eq 0 ] && grep -q "could not write .*$name.h5: rank $failing could not write to the file: MPI-IO failed" "$name.txt" \
    && [ ! -e "$name.h5" ] && "$RIPPLE_BIN" trace recover "$name.h5" > /dev/null; then
    pass "an I/O error on rank $failing only ($what: $knobs): exit 0, the reason, the file removed, the spool recovered"
  else
    fail "an I/O error on rank $failing only ($what: $knobs): rc=$rc (124: it hung; 139: HDF5's shutdown crashed) $(grep 'ripple trace\|mpiio_faults' "$name.txt" | tail -3)"
  fi
done

# The check switched off on one rank only (environments may differ per rank): the ranks still
# agree, and the file is written.
set +e
timeout 120 "$MPIEXEC" -np 1 env RIPPLE_TRACE_ROOM_CHECK=off "$RIPPLE_BIN" trace -o skew.h5 -- "$RING_BIN" --iterations 200 \
  --warmup 0 : -np 1 "$RIPPLE_BIN" trace -o skew.h5 -- "$RING_BIN" --iterations 200 --warmup 0 > skew.txt 2>&1
rc=$?
set -e
[ "$rc" -eq 0 ] && "$RIPPLE_BIN" trace info skew.h5 > /dev/null && [ ! -d skew.h5.spool ] \
  && pass "the room check off on one rank only: no hang, the file written" \
  || fail "room check off on one rank: rc=$rc (124: it hung); its output: $(tail -5 skew.txt)"

# recover under a file-size limit below the file: refused with the reason, not ended by SIGXFSZ
# (rc 153), the spools untouched.
set +e
sh -c "ulimit -f 256; exec '$RIPPLE_BIN' trace recover midwrite.h5 -o limited-recover.h5" > recover-limited.txt 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q "may not write files beyond [0-9]* KiB (ulimit -f)" recover-limited.txt && [ ! -e limited-recover.h5 ] \
  && [ -d midwrite.h5.spool ] && pass "recover under a file-size limit: rc 1, the reason" \
  || fail "recover under a file-size limit: rc=$rc $(cat recover-limited.txt)"

# A file system that cannot reserve space and reports no size (ramfs: 0 blocks, like some FUSE and
# network file systems): the trace is written (it was refused as "0.0 MiB free" before).
mkdir -p ram
if mount -t ramfs ramfs ram 2> /dev/null; then
  set +e
  timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$RIPPLE_BIN" trace -o ram/r.h5 -- "$RING_BIN" --iterations 200 --warmup 0 \
    > ram.txt 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 0 ] && "$RIPPLE_BIN" trace info ram/r.h5 > /dev/null && [ ! -d ram/r.h5.spool ] \
    && pass "a file system without reservations or sizes (ramfs): the file written" \
    || fail "ramfs: rc=$rc $(grep 'ripple trace' ram.txt | tail -3)"
  umount ram
else
  echo "note: ramfs case not run (cannot mount ramfs here)"
fi

# The spool itself out of room while the run records. Truth: the ring's events per rank grow
# linearly with its iterations (the same calls each time), measured on two short runs with room.
ring_args=(--warmup 0 --slices 1)
run_np 2 trace -o ref1000.h5 --samples off -- "$RING_BIN" --iterations 1000 "${ring_args[@]}" > ref.txt 2>&1 \
  && run_np 2 trace -o ref2000.h5 --samples off -- "$RING_BIN" --iterations 2000 "${ring_args[@]}" >> ref.txt 2>&1 \
  || fail "the reference runs: $(tail -3 ref.txt)"
recorded() {  # $1: iterations; prints each rank's events, as the reference runs say
  /usr/bin/python3 -c "
import sys, h5py
a, b = (h5py.File(p, 'r')['/ranks/count'][:] for p in ('ref1000.h5', 'ref2000.h5'))
print(' '.join(str(x + (y - x) * ($1 - 1000) // 1000) for x, y in zip(a, b)))"
}
# A disk that fills while the ranks spool (a 2 MiB tmpfs, a 1 MiB ring, about 10^6 events per
# rank): their spool writes fail from then on, and no later block's number shows what they lost.
# The spool's header keeps the stream's count, so `recover`, elsewhere, counts them: its events
# and /ranks/lost make every event each rank recorded (before, 0 lost: the losses at the end of
# the stream did not show).
mkdir -p tiny
if mount -t tmpfs -o size=2m tmpfs tiny 2> /dev/null; then
  set +e
  timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$RIPPLE_BIN" trace -o tiny/t.h5 --samples off --buffer-mib 1 -- "$RING_BIN" \
    --iterations 200000 "${ring_args[@]}" > tiny.txt 2>&1
  rc=$?
  set -e
  rm -rf tiny.h5.spool && cp -r tiny/t.h5.spool tiny.h5.spool 2> /dev/null || true
  umount tiny
  truth=$(recorded 200000)
  if [ "$rc" -eq 0 ] && grep -q "every rank's events stay in" tiny.txt && "$RIPPLE_BIN" trace recover tiny.h5 > tiny-recover.txt 2>&1; then
    /usr/bin/python3 - tiny.h5 $truth <<'PY' && pass "a spool's disk full while recording: recover counts the events lost at the stream's end ($truth per rank)" \
      || fail "a spool's disk full while recording: $(cat tiny-recover.txt)"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
truth = [int(x) for x in sys.argv[2:]]
count, lost = f["/ranks/count"][:], f["/ranks/lost"][:]
assert (lost > 0).all() and list(count + lost) == truth, (count, lost, truth)
PY
  else
    fail "a spool's disk full while recording: rc=$rc $(grep 'ripple trace' tiny.txt tiny-recover.txt | tail -3)"
  fi
else
  echo "note: spool disk-full case not run (cannot mount a tmpfs here)"
fi

# A file-size limit (8 MiB, what MPI itself needs here) that the spools reach while the ranks
# record, SIGXFSZ at its default (as a shell leaves it; Python, which ignores it, restores it for
# the child): the spool writes that would cross it fail like any other and are counted, instead
# of the kernel's SIGXFSZ ending the application (before: signal 25, rc 153; untraced it exits 0).
# The file cannot be had either; the spools stay, each no larger than the limit, each header's
# count every event its rank recorded. (Not recovered here: 2 x 10^6 events would make 350 MB.)
set +e
/usr/bin/python3 - "$MPIEXEC" "$RIPPLE_BIN" "$RING_BIN" "${ring_args[@]}" > fsize.txt 2>&1 <<'PY'
import resource, subprocess, sys
mpiexec, ripple, ring, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def limited():
    resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 20, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
sys.exit(subprocess.run(["timeout", "120", mpiexec, "-np", "2", "--oversubscribe", ripple, "trace", "-o", "fsize.h5", "--samples", "off",
                         "--", ring, "--iterations", "500000"] + args, preexec_fn=limited).returncode)
PY
rc=$?
set -e
truth=$(recorded 500000)
if [ "$rc" -eq 0 ] && grep -q "may not write files beyond 8192 KiB" fsize.txt && [ -d fsize.h5.spool ] && [ ! -e fsize.h5 ]; then
  /usr/bin/python3 - fsize.h5.spool $truth <<'PY' && pass "spools that reach the file-size limit: no SIGXFSZ, exit 0, every event counted" \
    || fail "spools that reach the file-size limit"
import os, struct, sys
truth = [int(x) for x in sys.argv[2:]]
for rank, events in enumerate(truth):
    path = f"{sys.argv[1]}/rank-{rank:06d}.bin"
    head = open(path, "rb").read(16384)
    assert 16384 + 4096 < os.path.getsize(path) <= 8 << 20, os.path.getsize(path)
    assert struct.unpack_from("<i", head, 92)[0] == 1 and head[16368:16376] == b"RPLCOUNT", head[16368:16384]
    assert struct.unpack_from("<q", head, 16376)[0] == events, (rank, struct.unpack_from("<q", head, 16376), events)
PY
else
  fail "spools that reach the file-size limit: rc=$rc (153: SIGXFSZ) $(grep 'ripple trace\|signal' fsize.txt | tail -3)"
fi

finish
