#!/usr/bin/env bash
# How the tracer starts and ends in programs it has never seen: a program that changes directory
# before MPI_Finalize, two runs at once (the same output, and different ones), MPI_Finalize from
# another thread, exit codes after it, MPI_Abort, SIGTERM, helper processes, shell wrappers, odd
# paths and long command lines, and what a run leaves in the process.
source "$(dirname "$0")/lib.sh"
: "${LIFECYCLE_BIN:?}" "${LIFECYCLE_LINKED_BIN:?}"
export RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK RIPPLE_UNCORE_EVENTS=none  # a software counter: no PMU needed
traced() { local np=$1 out=$2; shift 2; timeout 120 "$MPIEXEC" -np "$np" "$RIPPLE_BIN" trace -o "$out" --samples off -- "$@"; }
# The events of rank r in FILE and their last call: "count last-call" per rank, one line each.
summary() {
  /usr/bin/python3 - "$1" <<'PY'
import sys
from trace_file import Trace
t = Trace(sys.argv[1])
for r in range(len(t.count)):
    e = t.rank(r)
    print(len(e), t.names[e["call"][-1]] if len(e) else "-", int(t.file["/ranks/lost"][r]))
PY
}

# A linked program with a relative RIPPLE_TRACE_OUTPUT that changes directory before MPI_Finalize: the
# output is where MPI_Init ran, whole, and its spool is gone. Before, the file went to the new
# directory without a single event (the spool was looked for there), and the spool stayed behind.
mkdir -p elsewhere
RIPPLE_TRACE_OUTPUT=moved.h5 timeout 120 "$MPIEXEC" -np 2 -x RIPPLE_TRACE_OUTPUT -x RIPPLE_PAPI_EVENTS -x RIPPLE_UNCORE_EVENTS \
  "$LIFECYCLE_LINKED_BIN" chdir elsewhere > chdir.txt 2>&1 || fail "chdir run: $(cat chdir.txt)"
if [ -f moved.h5 ] && [ ! -e moved.h5.spool ] && [ ! -e elsewhere/moved.h5 ] &&
  summary moved.h5 | awk '$1 < 10 || $2 != "MPI_Finalize" || $3 != 0 { bad = 1 } END { exit bad }'; then
  pass "relative output, chdir before MPI_Finalize: the file where MPI_Init ran, every event, no spool left"
else
  fail "relative output after chdir: $(ls -R . | tr '\n' ' ') $(cat chdir.txt)"
fi

# The same output twice at once: the second run, finding the first one's spool directory in use,
# records nothing and says so; the first run's trace is whole. Before, the second moved the live
# spool aside, and the first wrote its trace without events (or read the second's spools).
traced 2 same.h5 "$LIFECYCLE_BIN" traffic 3 > first.txt 2>&1 &
first=$!
for _ in $(seq 100); do [ -f same.h5.spool/rank-000001.bin ] && break; sleep 0.05; done
traced 2 same.h5 "$LIFECYCLE_BIN" traffic 0.3 > second.txt 2>&1 || fail "second run's exit code: $(cat second.txt)"
wait "$first" || fail "first run: $(cat first.txt)"
grep -q "in use by another run that writes the same trace" second.txt || fail "the second run did not say why: $(cat second.txt)"
if [ ! -e same.h5.spool ] && [ ! -e same.h5.spool.1 ] &&
  summary same.h5 | awk '$1 < 1000 || $2 != "MPI_Finalize" || $3 != 0 { bad = 1 } END { exit bad }' &&
  /usr/bin/python3 -c "import h5py, sys; sys.exit(int(h5py.File('same.h5')['/ranks/count'][:].sum() < 2000))"; then
  pass "the same output traced twice at once: the second run refused, the first one's trace whole"
else
  fail "same output twice: $(ls -d same.h5*) $(summary same.h5 | tr '\n' ' ') $(cat first.txt second.txt)"
fi
# Different outputs in one directory at once: both whole.
traced 2 one.h5 "$LIFECYCLE_BIN" traffic 1 > one.txt 2>&1 &
one=$!
traced 2 two.h5 "$LIFECYCLE_BIN" traffic 1 > two.txt 2>&1 || fail "run two: $(cat two.txt)"
wait "$one" || fail "run one: $(cat one.txt)"
for f in one.h5 two.h5; do
  summary "$f" | awk '$1 < 100 || $2 != "MPI_Finalize" || $3 != 0 { bad = 1 } END { exit bad }' || fail "$f: $(summary "$f")"
done
[ ! -e one.h5.spool ] && [ ! -e two.h5.spool ] && pass "two outputs in one directory at once: both whole" || fail "spools left"

# MPI_Finalize from a thread other than MPI_Init's (MPI_THREAD_MULTIPLE): the trace is written.
traced 2 thread.h5 "$LIFECYCLE_BIN" thread-finalize > thread.txt 2>&1 || fail "thread-finalize run: $(cat thread.txt)"
summary thread.h5 | awk '$2 != "MPI_Finalize" || $3 != 0 { bad = 1 } END { exit bad }' &&
  pass "MPI_Finalize from another thread; MPI_Initialized, MPI_Finalized, MPI_Get_version around the run" ||
  fail "thread-finalize trace"

# MPI_Finalize from an atexit handler the program registered before MPI_Init (after the tracer's own).
traced 2 atexit.h5 "$LIFECYCLE_BIN" atexit > atexit.txt 2>&1 || fail "atexit run: $(cat atexit.txt)"
[ ! -e atexit.h5.spool ] && summary atexit.h5 | awk '$2 != "MPI_Finalize" || $3 != 0 { bad = 1 } END { exit bad }' &&
  pass "MPI_Finalize from an atexit handler" || fail "atexit trace: $(cat atexit.txt)"

# The exit code after MPI_Finalize is the program's, under mpirun and as a singleton.
set +e
traced 2 exit.h5 "$LIFECYCLE_BIN" exit 7 > exit.txt 2>&1
code=$?
timeout 120 "$RIPPLE_BIN" trace -o single.h5 --samples off -- "$LIFECYCLE_BIN" exit 5 > single.txt 2>&1
single=$?
set -e
[ "$code" = 7 ] && [ "$single" = 5 ] && summary exit.h5 > /dev/null && [ "$(summary single.h5 | wc -l)" = 1 ] &&
  pass "exit codes after MPI_Finalize kept (7 under mpirun, 5 as a singleton), traces written" ||
  fail "exit codes $code, $single: $(cat exit.txt single.txt)"

# A shell script that runs the MPI program, /bin/sh -c, and a helper process by system(): the
# shells carry the preloaded tracer without MPI, the program is traced, the helper runs.
printf '#!/bin/sh\nexec "$@"\n' > wrap.sh
chmod +x wrap.sh
traced 2 script.h5 ./wrap.sh "$LIFECYCLE_BIN" traffic 0.1 > script.txt 2>&1 || fail "script run: $(cat script.txt)"
traced 2 shell.h5 /bin/sh -c "\"$LIFECYCLE_BIN\" traffic 0.1 && echo shell-done" > shell.txt 2>&1 || fail "sh -c run: $(cat shell.txt)"
traced 2 helper.h5 "$LIFECYCLE_BIN" system 'echo helper-ran' > helper.txt 2>&1 || fail "system() run: $(cat helper.txt)"
[ "$(grep -c shell-done shell.txt)" = 2 ] && [ "$(grep -c helper-ran helper.txt)" = 2 ] &&
  for f in script.h5 shell.h5 helper.h5; do summary "$f" | awk '$1 < 10 || $2 != "MPI_Finalize" { bad = 1 } END { exit bad }'; done &&
  pass "a shell script, sh -c and a system() helper around the traced program" || fail "shells and helpers"

# A program in a directory whose name has spaces and quotes, an output there too, a long command
# line, and mpirun's --bind-to none --map-by node.
odd="dir with 'quotes' \"and\" spaces"
mkdir -p "$odd"
cp "$LIFECYCLE_BIN" "$odd/the app"
timeout 120 "$MPIEXEC" -np 2 --bind-to none --map-by node "$RIPPLE_BIN" trace -o "$odd/the trace.h5" --samples off -- \
  "./$odd/the app" traffic 0.1 $(seq 1 20000) > odd.txt 2>&1 || fail "odd path run: $(cat odd.txt)"
summary "$odd/the trace.h5" | awk '$2 != "MPI_Finalize" { bad = 1 } END { exit bad }' &&
  pass "paths with spaces and quotes, 20000 arguments, --bind-to none --map-by node" || fail "odd path trace"

# The tracer library named by a relative RIPPLE_TRACE_LIBRARY, the program started by a script that
# changes directory first: traced. Before, the loader looked for it from there, or (a name without a
# slash) only in the system's directories, and the program ran untraced.
lib=$(dirname "$(dirname "$RIPPLE_BIN")")/tracer/libripple-trace.so
mkdir -p libs sub
cp "$lib" libs/libripple-trace.so
RIPPLE_TRACE_LIBRARY=libs/libripple-trace.so timeout 120 "$RIPPLE_BIN" trace -o relative-lib.h5 --samples off -- \
  /bin/sh -c "cd sub && exec \"$LIFECYCLE_BIN\" traffic 0.1" > relative-lib.txt 2>&1 || fail "relative library run: $(cat relative-lib.txt)"
[ -f relative-lib.h5 ] && ! grep -q "cannot be preloaded" relative-lib.txt && pass "a relative RIPPLE_TRACE_LIBRARY, the program started elsewhere: traced" ||
  fail "relative library: $(cat relative-lib.txt)"
# One whose path has a space, which LD_PRELOAD would split: refused before the run (exit code 2),
# in one line. Before, the program ran untraced with exit code 0.
mkdir -p "lib dir"
cp "$lib" "lib dir/libripple-trace.so"
set +e
RIPPLE_TRACE_LIBRARY="$PWD/lib dir/libripple-trace.so" timeout 120 "$MPIEXEC" -np 2 "$RIPPLE_BIN" trace -o spaced-lib.h5 \
  --samples off -- "$LIFECYCLE_BIN" traffic 0.1 > spaced-lib.txt 2>&1
code=$?
set -e
[ "$code" = 2 ] && [ "$(grep -c "has a space or colon, which LD_PRELOAD cannot hold" spaced-lib.txt)" = 1 ] &&
  pass "a tracer library path with a space: refused in one line, exit code 2" || fail "spaced library ($code): $(cat spaced-lib.txt)"

# SIGTERM (what srun sends at the time limit) mid-run: the spools are whole for recover.
set +e
timeout -s TERM 2 "$MPIEXEC" -np 2 "$RIPPLE_BIN" trace -o term.h5 --samples off --flush-seconds 0.2 -- \
  "$LIFECYCLE_BIN" traffic 60 > term.txt 2>&1
set -e
sleep 1
"$RIPPLE_BIN" trace recover term.h5 > term-recover.txt 2>&1 || fail "recover after SIGTERM: $(cat term-recover.txt)"
summary term.h5 | awk '$1 < 100 || $3 != 0 { bad = 1 } END { exit bad }' &&
  pass "SIGTERM mid-run: every rank's spool recovered, nothing lost" || fail "SIGTERM trace: $(summary term.h5)"

# MPI_Abort from rank 1 and from rank 0 while the other waits in a barrier: the job's exit code is
# the abort's, and the aborting rank's spool ends with it.
for r in 1 0; do
  set +e
  traced 2 abort$r.h5 "$LIFECYCLE_BIN" abort $r > abort$r.txt 2>&1
  code=$?
  set -e
  "$RIPPLE_BIN" trace recover abort$r.h5 > /dev/null 2>> abort$r.txt || fail "recover abort$r: $(cat abort$r.txt)"
  [ "$code" = 9 ] && [ "$(summary abort$r.h5 | sed -n "$((r + 1))p" | cut -d' ' -f2)" = MPI_Abort ] &&
    pass "MPI_Abort from rank $r: exit code 9, its spool ends with MPI_Abort" || fail "abort $r: $code $(summary abort$r.h5)"
done

# What a run leaves in the process after MPI_Finalize: the descriptors and threads of an untraced run.
LIFECYCLE_REPORT=1 timeout 120 "$MPIEXEC" -np 2 -x LIFECYCLE_REPORT "$LIFECYCLE_BIN" traffic 0.2 2> /dev/null | sort > plain.txt
LIFECYCLE_REPORT=1 timeout 120 "$MPIEXEC" -np 2 -x LIFECYCLE_REPORT "$RIPPLE_BIN" trace -o left.h5 --samples page-faults -- \
  "$LIFECYCLE_BIN" traffic 0.2 2> /dev/null | sort > traced.txt
[ -s plain.txt ] && diff plain.txt traced.txt > /dev/null && pass "no descriptor or thread of the tracer left after MPI_Finalize" ||
  fail "left after MPI_Finalize: $(cat plain.txt traced.txt)"
finish
