#!/usr/bin/env bash
# The tracer on heat2d, 4 ranks (2x2), 50 iterations: exact call counts per rank, every send matched
# by a receive with the same bytes and tag, enter <= exit, monotone timestamps; `trace info`; bad input.
source "$(dirname "$0")/lib.sh"
: "${HEAT2D_BIN:?}"
timeout 300 "$MPIEXEC" -np 4 --oversubscribe "$RIPPLE_BIN" trace -o heat.h5 -- "$HEAT2D_BIN" --tile 32 --grid 2x2 --iterations 50 --warmup 0 \
  > run.txt 2>&1 || fail "traced heat2d: $(cat run.txt)"
/usr/bin/python3 - heat.h5 <<'PY' && pass "heat2d trace: counts, matching sends and receives, ordered timestamps, causality across ranks" || fail "heat2d trace checks"
import sys
from collections import Counter
from trace_file import Trace
t = Trace(sys.argv[1])
names = t.names
assert len(t.offset) == 4 and sum(t.file["/ranks/lost"][:]) == 0
sends, recvs = Counter(), Counter()
for rank in range(4):
    e = t.rank(rank)
    calls = Counter(names[c] for c in e["call"])
    # On a 2x2 grid every rank has two neighbours; 50 iterations plus the exchange before the first.
    assert calls["MPI_Isend"] == 2 * 51 and calls["MPI_Irecv"] == 2 * 51, (rank, calls)
    marks = t.calls("MPI_Pcontrol", e)["tag"]
    # 50 iteration markers (level 7701) and the loop's end (7703); no delay was injected (7702)
    assert calls["MPI_Waitall"] == 51 and (marks == 7701).sum() == 50 and list(marks[-1:]) == [7703], (rank, calls, marks)
    assert len(marks) == 51, marks
    assert (e["t_enter"] <= e["t_exit"]).all(), rank
    assert (e["t_enter"][1:] >= e["t_enter"][:-1]).all(), f"rank {rank}: enter times not monotone"
    assert sorted(set(t.calls("MPI_Pcontrol", e)["iteration"])) == list(range(50))
    for x in e:
        name = names[x["call"]]
        if name == "MPI_Isend":
            sends[(rank, int(x["peer"]), int(x["tag"]), int(x["bytes"]))] += 1
            assert x["same_node"] == 1 and x["buffer"] != 0 and x["request"] >= 0
        elif name == "MPI_Irecv":
            recvs[(int(x["peer"]), rank, int(x["tag"]), int(x["bytes"]))] += 1
assert sends == recvs, (sends - recvs, recvs - sends)
# Causality across ranks, a check of the clock synchronisation: the nth message from A to B with tag
# T (MPI does not overtake) is received (the call completing its MPI_Irecv returns) only after A
# entered its MPI_Isend, within the two ranks' clock errors.
err = t.file["/ranks/clock_error"][:]
sent, received = {}, {}
for rank in range(4):
    e = t.rank(rank)
    done = {int(x["request"]): float(x["t_exit"]) for x in t.calls("completion", e)}
    for x in t.calls("MPI_Isend", e):
        sent.setdefault((rank, int(x["peer"]), int(x["tag"])), []).append(float(x["t_enter"]))
    for x in t.calls("MPI_Irecv", e):
        received.setdefault((int(x["peer"]), rank, int(x["tag"])), []).append(done[int(x["request"])])
assert sent.keys() == received.keys()
worst = min(r - s_ + err[a] + err[b] for (a, b, tag), ts in sent.items() for s_, r in zip(ts, received[(a, b, tag)]))
assert worst >= 0, f"a message received {-worst:.3g} s before it was sent, beyond the clock errors"
PY
# The Python example of docs/trace-format.md reads the same file (h5py): a line per rank with its calls.
example="$(dirname "$0")/../../analysis/examples/read_trace.py"
/usr/bin/python3 "$example" heat.h5 > example.txt 2>&1 && [ "$(grep -c '^rank [0-3]: .*MPI_Irecv 102, MPI_Isend 102, .*MPI_Waitall 51' example.txt)" -eq 4 ] \
  && pass "analysis/examples/read_trace.py: each rank's call counts" || fail "read_trace.py: $(head -c 300 example.txt)"
timeout 300 "$MPIEXEC" -np 4 --oversubscribe -x RIPPLE_TRACE_CLOCK=monotonic "$RIPPLE_BIN" trace -o mono.h5 -- "$HEAT2D_BIN" \
  --tile 32 --grid 2x2 --iterations 50 --warmup 0 > mono.txt 2>&1 || fail "traced heat2d on CLOCK_MONOTONIC: $(cat mono.txt)"
/usr/bin/python3 - heat.h5 mono.h5 <<'PY' && pass "clock source: TSC where usable, CLOCK_MONOTONIC when asked; both ordered" || fail "clock source checks"
import platform, sys
from trace_file import Trace
flags = set(next(l for l in open("/proc/cpuinfo") if l.startswith("flags")).split(":")[1].split())
# The TSC wherever it is invariant and the kernel offers it, whatever clocksource it uses (kvm-clock).
offered = open("/sys/devices/system/clocksource/clocksource0/available_clocksource").read().split()
tsc = platform.machine() == "x86_64" and {"constant_tsc", "nonstop_tsc"} <= flags and "tsc" in offered
for path, want in [(sys.argv[1], "TSC at" if tsc else "CLOCK_MONOTONIC ("),
                   (sys.argv[2], "CLOCK_MONOTONIC (RIPPLE_TRACE_CLOCK=monotonic)")]:
    t = Trace(path)
    got = t.file.attrs["clock_source"].decode()
    assert got.startswith(want), (path, got, want)
    for rank in range(4):
        e = t.rank(rank)
        assert (e["t_enter"] <= e["t_exit"]).all() and (e["t_enter"][1:] >= e["t_enter"][:-1]).all(), (path, rank)
        # seconds since rank 0's start: a rank's first event may precede it by the clock offset's error
        assert -1e-3 < e["t_enter"][0] < 5 and e["t_exit"][-1] < 60, (path, rank, e["t_enter"][0], e["t_exit"][-1])
PY
/usr/bin/python3 - heat.h5 <<'PY' && pass "placement and node topology (hwloc) against /sys and the host name" || fail "placement checks"
import glob, os, socket, sys
import xml.etree.ElementTree as ET
import h5py
f = h5py.File(sys.argv[1], "r")
p = f["/ranks/placement"][:]
assert len(p) == 4
def cpus(text):  # hwloc list syntax: "0-3,8"
    out = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out
for r in p:
    assert r["host"].decode() == socket.gethostname(), r
    assert r["node"] == 0 and r["pu"] in cpus(r["binding"].decode()), r
    sysfs = f"/sys/devices/system/cpu/cpu{r['pu']}"
    want_pkg = sorted({int(open(c).read()) for c in glob.glob("/sys/devices/system/cpu/cpu*/topology/physical_package_id")})
    assert r["package"] == want_pkg.index(int(open(sysfs + "/topology/physical_package_id").read())), r
    nodes = [int(n.rsplit("node", 1)[1]) for n in glob.glob(sysfs + "/node*")]
    assert not nodes or r["numa"] == nodes[0], (r, nodes)
assert p["node_leader"].tolist() == [1, 0, 0, 0]  # the lowest world rank of the node
for pkg in set(p["package"]):
    assert (p["socket_leader"][p["package"] == pkg] == 1).sum() == 1
off = f["/topology/xml_offset"][:]
assert len(off) == 2 and off[0] == 0 and off[1] == len(f["/topology/xml"])
root = ET.fromstring(f["/topology/xml"][off[0]:off[1]].tobytes())
assert len(root.findall(".//object[@type='PU']")) == len(os.sched_getaffinity(0))  # hwloc shows the allowed CPUs
assert "hwloc" in f.attrs["sources"].decode()
# Open MPI's eager limits, read through MPI_T at MPI_Init: shared memory (vader) and TCP
import json
limits = json.loads(f.attrs["sources"].decode())["eager_limits"]
assert isinstance(limits["btl_vader_eager_limit"], int) and limits["btl_vader_eager_limit"] > 0, limits
assert isinstance(limits["btl_tcp_eager_limit"], int) and limits["btl_tcp_eager_limit"] > 0, limits
PY
"$RIPPLE_BIN" trace info heat.h5 --json > info.json && /usr/bin/python3 - info.json <<'PY' && pass "trace info --json" || fail "trace info --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ranks"] == 4 and d["nodes"] == 1 and d["lost_events"] == 0
for r in d["per_rank"]:
    assert r["host"] and r["node"] == 0 and r["core"] >= 0, r
    assert r["iterations"] == 50 and r["calls"]["MPI_Isend"]["count"] == 102 and r["calls"]["MPI_Isend"]["bytes"] == 102 * 32 * 8
    # one thread per rank: its calls do not overlap, so their times cannot add up to more than the run
    assert sum(c["time"] for c in r["calls"].values()) <= d["duration"], r["calls"]
    assert r["calls"]["completion"]["count"] == 2 * 102 and r["calls"]["completion"]["time"] == 0
PY
"$RIPPLE_BIN" trace info heat.h5 > info.txt && grep -q "MPI_Waitall" info.txt && pass "trace info table" || fail "trace info table"
# The sources one per line, a status shared by several counters said once (the JSON is in --json).
"$RIPPLE_BIN" trace info heat.h5 --json > info.json && /usr/bin/python3 - <<'PY' && pass "trace info: sources one per line, shared statuses once" || fail "trace info sources: $(sed -n 2,12p info.txt)"
import json
sources = json.load(open("info.json"))["sources"]
text = open("info.txt").read().split("\n\n")[0].splitlines()
assert text[1] == "sources:" and not any(line.startswith("sources: {") for line in text), text
for name, value in sources.items():
    assert any(line.split()[:1] == [name] for line in text[2:]), (name, text)
counters = sources.get("counters", {})
for status in set(counters.values()):
    names = [k for k, v in counters.items() if v == status]
    assert sum(1 for line in text if line.rstrip().endswith(": " + status)) == 1, (status, text)
    assert any(", ".join(names) in line or len(names) == 1 for line in text), (names, text)
PY

# hpcg on 2 ranks (2x1x1, one neighbour): every CG iteration exchanges halos 11 times (the SpMV of
# CG; in the V-cycle pre-smoothing, residual SpMV and post-smoothing on 3 levels and one smoothing on
# the coarsest), each as MPI_Irecv + MPI_Send + MPI_Wait, and reduces 3 dot products.
: "${HPCG_BIN:?}"
timeout 300 "$MPIEXEC" -np 2 --oversubscribe "$RIPPLE_BIN" trace -o hpcg.h5 -- "$HPCG_BIN" > hpcg.txt 2>&1 || fail "traced hpcg: $(cat hpcg.txt)"
/usr/bin/python3 - hpcg.h5 <<'PY' && pass "hpcg trace: 11 halo exchanges (Irecv+Send+Wait) and 3 Allreduce per CG iteration" || fail "hpcg trace pattern"
import sys
from collections import Counter
from trace_file import Trace
t = Trace(sys.argv[1])
names = t.names
for rank in range(2):
    e = t.rank(rank)
    for it in range(49):  # the last iteration also holds what follows the solve (checks, report)
        c = Counter(names[x] for x in e[e["iteration"] == it]["call"])
        want = {"MPI_Irecv": 11, "MPI_Send": 11, "MPI_Wait": 11, "MPI_Allreduce": 3, "MPI_Pcontrol": 1, "completion": 11}
        got = {k: c[k] for k in want}
        assert got == want, (rank, it, dict(c))
    sends = t.calls("MPI_Send", e)
    assert (sends["peer"] == 1 - rank).all() and (sends["tag"] == 99).all()
PY
"$RIPPLE_BIN" trace info hpcg.h5 > hpcg_info.txt && grep -q "50 iterations seen" hpcg_info.txt && pass "trace info shows hpcg's 50 iterations" || fail "hpcg trace info"

# A flush interval below the flusher's shortest pause and a ring of the least size (1024 events,
# which the ranks fill and spool themselves many times): the same calls as with the defaults.
timeout 300 "$MPIEXEC" -np 4 --oversubscribe "$RIPPLE_BIN" trace -o tiny.h5 --flush-seconds 0.002 --buffer-mib 0.01 -- \
  "$HEAT2D_BIN" --tile 32 --grid 2x2 --iterations 50 --warmup 0 > tiny.txt 2>&1 || fail "heat2d with a tiny ring: $(cat tiny.txt)"
/usr/bin/python3 - heat.h5 tiny.h5 <<'PY' && pass "a 2 ms flush interval and a 1024-event ring: the same calls, none lost" || fail "tiny ring"
import sys
import numpy as np
from trace_file import Trace
a, b = Trace(sys.argv[1]), Trace(sys.argv[2])
assert (b.file["/ranks/lost"][:] == 0).all() and (a.count == b.count).all(), (a.count, b.count)
for r in range(4):
    assert (a.rank(r)["call"] == b.rank(r)["call"]).all() and (np.diff(b.rank(r)["t_enter"]) >= 0).all(), r
PY

# Bad input: clear message, non-zero exit, no crash.
set +e
"$RIPPLE_BIN" trace --bogus -- true > /dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] && pass "unknown option exits 2" || fail "unknown option rc=$rc"
# Under the launcher, once per job (before: CLI11's two lines from every rank).
timeout 60 "$MPIEXEC" -np 3 --oversubscribe "$RIPPLE_BIN" trace --buffer-mib abc -- true > /dev/null 2> err.txt; rc=$?
[ "$rc" -ne 0 ] && [ "$(grep -c '^ripple: error' err.txt)" -eq 1 ] \
  && grep -q "^ripple: error: Could not convert: --buffer-mib = abc (see ripple trace --help)$" err.txt \
  && pass "a bad option under mpirun: one line, $(grep '^ripple: error' err.txt)" || fail "a bad option under mpirun: rc=$rc $(cat err.txt)"
for v in nan -1 0; do  # NaN passed the check before and became the default of 1 s unseen
  "$RIPPLE_BIN" trace --flush-seconds "$v" -- true 2> err.txt; rc=$?
  [ "$rc" -eq 2 ] && grep -q "must be positive" err.txt && pass "--flush-seconds $v refused" || fail "--flush-seconds $v: rc=$rc $(cat err.txt)"
done
# A directory or a device as the output: refused before the program runs (before: it ran, and its
# events waited in the spool for `recover` after "cannot create HDF5 file").
for o in . /dev/null; do
  rm -f ran.txt
  "$RIPPLE_BIN" trace -o "$o" -- touch ran.txt 2> err.txt; rc=$?
  [ "$rc" -eq 2 ] && [ ! -e ran.txt ] && grep -q "cannot write the trace to '.*': it is \(a directory\|not a regular file\)" err.txt \
    && pass "-o $o: $(cat err.txt)" || fail "-o $o: rc=$rc $(cat err.txt)"
done
timeout 60 "$MPIEXEC" -np 3 --oversubscribe "$RIPPLE_BIN" trace -o . -- true > /dev/null 2> err.txt; rc=$?
[ "$rc" -ne 0 ] && [ "$(grep -c '^ripple: error' err.txt)" -eq 1 ] && pass "-o . under mpirun: one line" \
  || fail "-o . under mpirun: rc=$rc $(cat err.txt)"
"$RIPPLE_BIN" trace -o /nonexistent/dir/t.h5 -- true 2> err.txt; rc=$?
[ "$rc" -eq 2 ] && grep -q "does not exist" err.txt && pass "unwritable output: $(cat err.txt)" || fail "unwritable output rc=$rc $(cat err.txt)"
head -c 3000 heat.h5 > truncated.h5; "$RIPPLE_BIN" trace info truncated.h5 2> err.txt; rc=$?
[ "$rc" -eq 2 ] && grep -q "truncated.h5" err.txt && pass "truncated file: $(cat err.txt)" || fail "truncated file rc=$rc $(cat err.txt)"
printf 'not hdf5' > junk.h5; "$RIPPLE_BIN" trace info junk.h5 2> err.txt; rc=$?
[ "$rc" -eq 2 ] && pass "junk file: $(cat err.txt)" || fail "junk file rc=$rc"
/usr/bin/python3 -c "import h5py; f = h5py.File('foreign.h5', 'w'); f.attrs['schema'] = 'ripple-sim'; f.attrs['schema_version'] = 1"
"$RIPPLE_BIN" trace info foreign.h5 2> err.txt; rc=$?
[ "$rc" -eq 2 ] && grep -q "foreign.h5" err.txt && pass "foreign file: $(cat err.txt)" || fail "foreign file rc=$rc $(cat err.txt)"
# Output that cannot be written (`> out.json` on a full disk): exit code 1 and why, not 0 and an
# empty file.
if [ -w /dev/full ]; then
  "$RIPPLE_BIN" trace info heat.h5 --json > /dev/full 2> err.txt; rc=$?
  [ "$rc" -eq 1 ] && grep -q "^ripple: error: cannot write the standard output: " err.txt \
    && pass "info --json to a full disk: $(cat err.txt)" || fail "info --json to a full disk: rc=$rc $(cat err.txt)"
fi
set -e
finish
