#!/usr/bin/env bash
# `ripple waves` and `ripple plot` on input they cannot use: one line naming the file and what to
# do, exit code 2, nothing else.
source "$(dirname "$0")/lib.sh"
: "${RING_BIN:?}" "${SUBJECTS_BIN:?}"

# refused NAME PATTERN ARGS...: `ripple ARGS` (one process) exits 2 with one error line matching PATTERN.
refused() {
  local name=$1 pattern=$2; shift 2
  local rc=0
  "$RIPPLE_BIN" "$@" > out.txt 2> err.txt || rc=$?
  if [ "$rc" -ne 2 ]; then fail "$name: exit code $rc (want 2): $(cat err.txt)"; return; fi
  if [ "$(wc -l < err.txt)" -ne 1 ] || ! grep -q '^ripple: error' err.txt; then fail "$name: not one error line: $(cat err.txt)"; return; fi
  if ! grep -q -- "$pattern" err.txt; then fail "$name: message lacks '$pattern': $(cat err.txt)"; return; fi
  if [ -s out.txt ]; then fail "$name: printed to stdout: $(cat out.txt)"; return; fi
  pass "$name: $(cat err.txt)"
}

run_np 2 trace -o ring.h5 -- "$RING_BIN" --iterations 5 --warmup 0 --slices 1000 --output ring-result.h5 > ring.txt 2>&1 \
  || fail "ring run: $(tail -n 3 ring.txt)"
run_np 2 trace -o plain.h5 -- "$SUBJECTS_BIN" types > plain.txt 2>&1 || fail "unmarked run: $(tail -n 3 plain.txt)"
cat > sim.toml <<'TOML'
[model]
oscillators = 8
t_comp = 9.0e-4
t_comm = 1.0e-4
[solver]
t_end = 0.01
[output]
file = "sim.h5"
TOML
run_np 1 sim sim.toml --quiet > sim.txt 2>&1 || fail "sim run: $(cat sim.txt)"
echo "not a trace" > text.txt
mkdir -p adir

refused "no markers" "no iteration markers (MPI_Pcontrol 7701) in this trace: name the call that ends each iteration, e.g. --iteration-call MPI_Waitall" waves plain.h5
refused "a call that never occurs" "--iteration-call MPI_Alltoallw never occurs in this trace" waves ring.h5 --iteration-call MPI_Alltoallw
refused "a call no MPI has" "--iteration-call MPI_Wiat: no such MPI call in this trace's call list" waves ring.h5 --iteration-call MPI_Wiat
refused "a simulation without crossings" "a simulation without iteration crossings: run ripple sim with \[output\] iterations = true" waves sim.h5
refused "another program's HDF5" "not a Ripple trace or simulation (schema 'ripple-ring')" waves ring-result.h5
refused "a text file" "text.txt: not a Ripple trace, simulation or proxy-app JSON summary" waves text.txt
refused "a directory" "adir" waves adir
refused "a missing file" "nowhere.h5" waves nowhere.h5
refused "--iteration-call on timings" "--iteration-call applies to traces only" waves sim.h5 --iteration-call MPI_Waitall
refused "plot: no markers" "no iteration markers" plot waves plain.h5 -o w.png
refused "plot: a figure type it cannot write" "-o w.gif: name a .png, .svg or .pdf file" plot waves ring.h5 -o w.gif
refused "plot sim: not a simulation" "not a ripple-sim file" plot sim ring.h5 -o s.png
[ ! -e w.png ] && [ ! -e s.png ] && pass "no figure left by a refused plot" || fail "a refused plot left a figure"

# ripple compare: a trace without communication to fit, one whose ranks never wait (its calls made
# instant: every wait 0), an unknown model.
run_np 2 trace -o lonely.h5 -- "$SUBJECTS_BIN" markers 50 > lonely.txt 2>&1 || fail "markers run: $(tail -n 3 lonely.txt)"
refused "compare: nothing to fit" "no point-to-point messages or collectives over all ranks in the timed iterations" compare lonely.h5
cp ring.h5 instant.h5 && /usr/bin/python3 -c "
import h5py
with h5py.File('instant.h5', 'r+') as f:
    e = f['/events'][:]
    e['t_exit'] = e['t_enter']
    f['/events'][:] = e
" || fail "making a trace whose ranks never wait"
refused "compare: ranks that never wait" "the ranks never wait" compare instant.h5
refused "compare: an unknown model" "--model: nonsense not in {maxplus,pom,both}" compare ring.h5 --model nonsense
refused "compare: a missing trace" "nowhere.h5" compare nowhere.h5
finish
