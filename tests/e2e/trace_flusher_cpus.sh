#!/usr/bin/env bash
# Where the tracer's own thread (the flusher, which encodes and writes the spool) runs: on CPUs of
# the node that no rank is bound to, where there are any, so that its work takes no rank's time;
# else on the rank's own CPUs, as with RIPPLE_TRACE_FLUSHER_CPUS=rank. What the kernel says of the
# running thread (/proc/PID/task/TID: its name ripple-flusher and its affinity) is held against what
# the trace says (sources.hwloc, each rank's in /ranks/sources) and the rank's binding.
source "$(dirname "$0")/lib.sh"
: "${RING_BIN:?}"

# One traced run of `np` ranks (mpirun options in `bind`) that sleeps through 13 iterations of
# 0.15 s (arguments no other test uses, to find its processes); prints, per rank process, the
# Cpus_allowed_list of its main thread and of its ripple-flusher thread, once that exists.
traced_affinities() {
  local name=$1 np=$2 bind=$3
  shift 3
  timeout 120 $MPIEXEC -np "$np" $bind "$@" "$RIPPLE_BIN" trace -o "$name.h5" --samples off -- "$RING_BIN" --work sleep \
    --compute-time 0.15 --iterations 13 --warmup 0 > "$name.txt" 2>&1 &
  local launcher=$! found=""
  for _ in $(seq 100); do
    found=""
    for pid in $(pgrep -f "^$RING_BIN --work sleep --compute-time 0.15 --iterations 13 " || true); do
      for task in /proc/$pid/task/*; do
        [ "$(cat "$task/comm" 2> /dev/null)" = ripple-flusher ] || continue
        found+="$(grep Cpus_allowed_list /proc/$pid/status | cut -f2) $(grep Cpus_allowed_list "$task/status" | cut -f2)"$'\n'
      done
    done
    [ "$(printf %s "$found" | grep -c .)" -eq "$np" ] && break
    sleep 0.1
  done
  printf %s "$found" > "$name.cpus"
  wait "$launcher" || fail "$name: the run: $(tail -n 3 "$name.txt")"
}

check() {  # name, expected: free (another CPU than the rank's) or rank (the rank's own)
  /usr/bin/python3 - "$1.h5" "$1.cpus" "$2" << 'PY'
import json, re, sys
import h5py

def cpus(text):  # "0-2,5" -> {0, 1, 2, 5}
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out |= set(range(int(lo), int(hi or lo) + 1))
    return out

f = h5py.File(sys.argv[1], "r")
seen = [line.split() for line in open(sys.argv[2]) if line.strip()]
want = sys.argv[3]
ranks = len(f["/ranks/count"])
assert len(seen) == ranks, (seen, ranks)  # every rank's flusher was found, by its name
status = [json.loads(s)["hwloc"] for s in f["/ranks/sources"][:]]
binding = [cpus(b.decode()) for b in f["/ranks/placement"]["binding"]]
for main, flusher in seen:
    main, flusher = cpus(main), cpus(flusher)
    assert main in binding, (main, binding)
    if want == "free":
        assert not flusher & set().union(*binding), (flusher, binding)  # no rank's CPU
        said = [re.search(r"the tracer's thread on CPUs? ([0-9,-]+), bound to no rank of the node", s) for s in status]
        assert flusher in [cpus(m.group(1)) for m in said if m], (status, flusher)
    else:
        assert flusher == main, (flusher, main)
for s in status:
    assert s.startswith("hwloc ") and "; the tracer's thread on " in s, s
    if want == "rank":
        assert "the tracer's thread on the rank's CPUs (" in s, s
PY
}

if [ "$(nproc)" -ge 2 ]; then
  traced_affinities one 1 "--bind-to core"
  check one free && pass "one rank bound to a core: its flusher runs on the node's other CPUs, as the trace says" \
    || fail "flusher off the rank's core: $(cat one.cpus)"
  # A launch restricted to CPU 0 (taskset on mpirun, the rank's parent): CPU 1 is bound to no rank
  # but outside the launcher's affinity, so the flusher stays.
  MPIEXEC="taskset -c 0 $MPIEXEC" traced_affinities restricted 1 "--bind-to core"
  check restricted rank && grep -q "the CPUs bound to no rank are outside the launcher's affinity" <(h5dump -a /sources restricted.h5) \
    && pass "a launch restricted by taskset: the flusher stays within it" || fail "flusher of a restricted launch: $(cat restricted.cpus)"
  traced_affinities kept 1 "--bind-to core" -x RIPPLE_TRACE_FLUSHER_CPUS=rank
  check kept rank && grep -q "RIPPLE_TRACE_FLUSHER_CPUS=rank)" <(h5dump -a /sources kept.h5) \
    && pass "RIPPLE_TRACE_FLUSHER_CPUS=rank: the flusher stays on the rank's core" || fail "flusher kept on the rank's core: $(cat kept.cpus)"
else
  echo "note: one CPU: no CPU is free of ranks, the cases that move the flusher are not run"
fi
# Unbound ranks are bound to every CPU: none is free, the flusher shares the rank's CPUs.
traced_affinities unbound 2 "--bind-to none"
check unbound rank && grep -q "every CPU of the node is bound to a rank" <(h5dump -a /sources unbound.h5) \
  && pass "unbound ranks: no CPU is free of ranks, each flusher on its rank's CPUs" || fail "flusher of unbound ranks: $(cat unbound.cpus)"
finish
