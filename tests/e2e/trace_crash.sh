#!/usr/bin/env bash
# A traced 4-rank run in which one rank is killed with SIGKILL mid-run: `ripple trace recover` builds
# a valid file holding every rank's events up to at most the flush interval (1 s) before the kill.
source "$(dirname "$0")/lib.sh"
: "${RING_BIN:?}" "${SPOOL_DAMAGE_LIB:?}"
set +e
export RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK  # a software counter: its samples must survive the kill too
# Page-fault samples (a software event, so they exist in VMs) must survive it as well.
"$MPIEXEC" -np 4 --oversubscribe -x RIPPLE_PAPI_EVENTS "$RIPPLE_BIN" trace -o crash.h5 --flush-seconds 1 --samples page-faults \
  --sample-period 1 -- "$RING_BIN" --work sleep --compute-time 0.02 \
  --iterations 100000 --warmup 0 > run.txt 2>&1 &
launcher=$!
# At least 4 s, and until every rank's spool holds two event blocks past its 16 KiB header (a loaded
# machine may start the ranks late): the checks below damage and cut these blocks.
sleep 4
for _ in $(seq 600); do
  small=0
  for r in 0 1 2 3; do
    [ "$(stat -c %s crash.h5.spool/rank-00000$r.bin 2> /dev/null || echo 0)" -ge $((16384 + 2 * 4096)) ] || small=1
  done
  [ "$small" -eq 0 ] && break
  sleep 0.2
done
victim=$(pgrep -f "^$RING_BIN --work sleep --compute-time 0.02 " | sed -n 2p)  # a rank (not mpiexec, nor another test's)
kill_time=$(date +%s.%N)
kill -KILL "$victim"
wait "$launcher"
set -e
unset RIPPLE_PAPI_EVENTS
[ -d crash.h5.spool ] || fail "no spool left behind"
"$RIPPLE_BIN" trace recover crash.h5 > recover.txt || fail "recover: $(cat recover.txt)"
"$RIPPLE_BIN" trace info crash.h5 --json > info.json || fail "info on the recovered file"
/usr/bin/python3 - crash.h5 "$kill_time" <<'PY' && pass "recovered: every rank's events up to <= 1 s before the kill" || fail "recovered trace"
import sys
import h5py
f = h5py.File(sys.argv[1], "r")
kill = float(sys.argv[2])
assert "recovered" in f.attrs
last = f["/ranks/last_event_wall_time"][:]
counts = f["/ranks/count"][:]
assert len(last) == 4 and all(c > 0 for c in counts), counts
for rank, t in enumerate(last):
    assert kill - t <= 1.5, f"rank {rank}: last recovered event {kill - t:.2f} s before the kill"
PY
# One layout (tracer/format/include/ripple/trace/trace_layout.hpp) for both writers: a run of the
# same kind that reaches MPI_Finalize has the very groups, datasets (of the same types) and
# attributes the recovered trace has, but for what trace_layout.hpp names: kRecoveredOnly, and
# kConditional where the spools lack it. Before, /ranks/clock_* were in finalized traces only and
# /ranks/last_event_wall_time in recovered ones only.
RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK timeout 300 "$MPIEXEC" -np 4 --oversubscribe -x RIPPLE_PAPI_EVENTS "$RIPPLE_BIN" trace \
  -o finalized.h5 --samples page-faults --sample-period 1 -- "$RING_BIN" --work sleep --compute-time 0.02 --iterations 20 \
  --warmup 0 > finalized.txt 2>&1 || fail "a finalized run: $(tail -3 finalized.txt)"
/usr/bin/python3 - finalized.h5 crash.h5 "$RIPPLE_SOURCE_DIR" <<'PY' && pass "finalized and recovered traces: one layout" || fail "the two writers' layouts differ"
import re, sys
import h5py
src = sys.argv[3] + "/tracer/format/include/ripple/trace/"
schema = dict(re.findall(r'constexpr const char\* (k\w+) =\s*"([^"]*)"', open(src + "trace_schema.hpp").read()))
layout = open(src + "trace_layout.hpp").read()
def listed(array):
    body = re.search(array + r"\[\] = \{(.*?)\};", layout, re.S).group(1)
    return {schema[t[8:]] if t.startswith("schema::") else t.strip('"') for t in re.findall(r'schema::\w+|"[^"]*"', body)}
recovered_only, conditional = listed("kRecoveredOnly"), listed("kConditional")
columns = {schema[n] for n in re.findall(r"RankColumn::\w+, schema::(\w+)", layout)}
assert len(columns) == 12, columns
def names(path):
    f = h5py.File(path, "r")
    out = {"/@" + a for a in f.attrs}
    def visit(name, obj):
        out.add("/" + name)
        out.update(f"/{name}@{a}" for a in obj.attrs)
    f.visititems(visit)
    return f, out
fin, fin_names = names(sys.argv[1])
rec, rec_names = names(sys.argv[2])
assert columns <= fin_names and columns <= rec_names, (columns - fin_names, columns - rec_names)
assert rec_names - fin_names - conditional == recovered_only, rec_names - fin_names
assert not fin_names - rec_names - conditional, fin_names - rec_names
for name in fin_names & rec_names:
    if "@" in name or not isinstance(fin[name], h5py.Dataset):
        continue
    a, b = fin[name], rec[name]
    assert a.ndim == b.ndim and (a.dtype == b.dtype or a.dtype.kind == b.dtype.kind == "S"), (name, a.dtype, b.dtype)
for column in columns:
    assert fin[column].shape == rec[column].shape == (4,), column
PY
# Where the ranks ran comes back from the placement spools written at MPI_Init: the host the test
# runs on, one node with one leader whose hwloc XML parses, and `info` counts the node.
/usr/bin/python3 - crash.h5 <<'PY' && pass "recovered: every rank's placement and the node's hwloc topology" || fail "recovered placement"
import json, os, socket, sys
import xml.etree.ElementTree as ET
import h5py
f = h5py.File(sys.argv[1], "r")
p = f["/ranks/placement"][:]
assert len(p) == 4
assert all(h.decode() == socket.gethostname() for h in p["host"]), p["host"]
assert (p["node"] == 0).all() and p["node_leader"].sum() == 1 and p["node_leader"][0] == 1, p
assert ((p["pu"] >= 0) & (p["pu"] < os.cpu_count())).all(), p["pu"]
offsets = f["/topology/xml_offset"][:]
xml = f["/topology/xml"][:].tobytes()
assert list(offsets) == [0, len(xml)] and len(xml) > 1000, offsets
assert ET.fromstring(xml).tag == "topology"
sources = json.loads(f.attrs["sources"])
assert sources["hwloc"].startswith("hwloc ") and sources["hwloc"].endswith("(recovered from the placement spools)"), sources
PY
# Each rank's sources come back from its side spools, in the form MPI_Finalize writes: the counter
# that ran, the sampler's status, hwloc's; the root attribute is rank 0's.
/usr/bin/python3 - crash.h5 info.json <<'PY' && pass "recovered: every rank's sources from its spools" || fail "recovered sources"
import json, sys
import h5py
f = h5py.File(sys.argv[1], "r")
rows = [json.loads(r) for r in f["/ranks/sources"][:]]
assert len(rows) == 4 and json.loads(f.attrs["sources"]) == rows[0], (rows, f.attrs["sources"])
info = json.load(open(sys.argv[2]))
for r, s in enumerate(rows):
    assert s["mpi"] == "active (recovered)" and s["counters"]["perf::TASK-CLOCK"].startswith("active via"), s
    assert s["perf"].startswith("active: page-faults (software event), period 1, the thread that called MPI_Init"), s
    assert s["hwloc"].endswith("(recovered from the placement spools)"), s
    assert info["per_rank"][r]["sources"] == s, (r, info["per_rank"][r])
PY
# The first line says the file was recovered and that its losses are unknown (lost_events = -1),
# in text and JSON, though every rank's /ranks/lost is 0 (nothing that reached the spools is missing).
"$RIPPLE_BIN" trace info crash.h5 > info.txt && "$RIPPLE_BIN" trace info crash.h5 --json > info.json \
  && head -1 info.txt | grep -q "(recovered from the spools of a run that did not reach MPI_Finalize): 4 ranks on 1 node(s), [0-9]* events (an unknown number lost)" \
  && /usr/bin/python3 -c "import json, sys; assert json.load(open(sys.argv[1]))['lost_events'] == -1" info.json \
  && pass "info on the recovered file: $(head -1 info.txt)" || fail "info on the recovered file: $(head -1 info.txt)"
/usr/bin/python3 - crash.h5 <<'PY' && pass "recovered: every rank's page-fault samples (spooled at each flush)" || fail "recovered samples"
import sys
import numpy as np
from trace_file import Trace
t = Trace(sys.argv[1])
f = t.file
g = f["/samples"]
assert g.attrs["status"].decode().startswith("active"), g.attrs["status"]
s = g["records"][:]
assert (f["/ranks/samples_lost"][:] == -1).all()  # unknown after a kill
for r in range(4):
    mine = s[s["rank"] == r]
    e = t.rank(r)
    assert len(mine) > 0, r
    assert (mine["addr"] != 0).all() and (np.diff(mine["time"]) >= 0).all(), r
    assert e["t_enter"][0] - 1 < mine["time"][0] and mine["time"][-1] < e["t_exit"][-1] + 1.5, r
    assert (np.diff(mine["iteration"]) >= 0).all() and mine["iteration"].min() >= -1, r
PY
/usr/bin/python3 - crash.h5 <<'PY' && pass "recovered: every rank's counter samples (spooled at each flush)" || fail "recovered counters"
import sys
import numpy as np
from trace_file import Trace
t = Trace(sys.argv[1])
c = t.file["/counters"]
assert c.attrs["events"].decode().split("\n")[0] == "perf::TASK-CLOCK", c.attrs["events"]  # then the default uncore events
assert "perf::TASK-CLOCK: active" in c.attrs["status"].decode()
ranks, iters, times, values = c["rank"][:], c["iteration"][:], c["time"][:], c["values"][:]
for r in range(4):
    mine = ranks == r
    e = t.rank(r)
    # MPI_Init's sample and one per iteration marker; the markers are those of the recovered events at least
    markers = len(t.calls("MPI_Pcontrol", e))
    assert mine.sum() >= markers + 1 and markers > 10, (r, mine.sum(), markers)
    assert iters[mine][0] == -1 and (np.diff(iters[mine]) == 1).all(), (r, iters[mine][:5])
    assert (np.diff(times[mine]) > 0).all() and (np.diff(values[mine][:, 0]) >= 0).all(), r
    assert e["t_enter"][0] - 1 < times[mine][0] < times[mine][-1] < e["t_exit"][-1] + 1.5, r
PY
# Each spool keeps the call list of the build that wrote it (a later list may renumber the calls):
# recovered with a build whose list differs (here the spools' lists reversed), every event is named
# with its spool's list; spools from two different builds are refused.
cp -r crash.h5.spool reversed.spool && cp -r crash.h5.spool mixed.spool
/usr/bin/python3 - reversed.spool mixed.spool <<'PY' || fail "rewriting the spools' call lists"
import glob, struct, sys
def reverse_names(path):
    with open(path, "r+b") as f:
        head = f.read(96)
        assert head[:8] == b"RPLSPOOL" and struct.unpack_from("<i", head, 8)[0] == 6  # the version this build writes
        n = struct.unpack_from("<i", head, 88)[0]  # names_bytes (spool_format.hpp)
        names = f.read(n).split(b"\n")
        assert len(names) > 100 and b"MPI_Init" in names, names[:3]
        f.seek(96)
        f.write(b"\n".join(reversed(names)))
for path in glob.glob(sys.argv[1] + "/rank-*.bin"):
    reverse_names(path)
reverse_names(sys.argv[2] + "/rank-000001.bin")
PY
"$RIPPLE_BIN" trace recover reversed.spool -o reversed.h5 > /dev/null || fail "recover with reversed call lists"
/usr/bin/python3 - crash.h5 reversed.h5 <<'PY' && pass "recover names each call with the list of the build that recorded it" || fail "recovered call names"
import sys
import h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = a.attrs["call_names"].decode().split("\n")
assert b.attrs["call_names"].decode().split("\n") == names[::-1]
assert (a["/events"]["call"][:] == b["/events"]["call"][:]).all()
PY
"$RIPPLE_BIN" trace recover mixed.spool -o mixed.h5 2> mixed.txt && fail "spools of two builds recovered" \
  || { grep -q "different lists of MPI calls" mixed.txt && pass "spools of two builds: refused, with why" || fail "mixed spools: $(cat mixed.txt)"; }
# Spools of an older version than this build writes (a development build's: no release wrote one)
# are refused in one line, an event spool's and a sample spool's alike. A spool without its call
# list (names_bytes 0: read with this build's list) beside spools with theirs is refused: one run's
# ranks share one build. A spool that ends inside its header block (it never got its first events)
# is recovered empty, with a warning, and the other ranks as before.
cp -r crash.h5.spool old.spool && cp -r crash.h5.spool oldsamples.spool && cp -r crash.h5.spool nonames.spool \
  && cp -r crash.h5.spool cut.spool
/usr/bin/python3 - old.spool oldsamples.spool nonames.spool cut.spool <<'PY' || fail "rewriting spool versions"
import os, struct, sys
def put(path, at, value):
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(struct.pack("<i", value))
put(sys.argv[1] + "/rank-000001.bin", 8, 5)  # the event spool's version (spool_format.hpp)
put(sys.argv[2] + "/rank-000001.samples", 8, 1)  # the sample spool's
put(sys.argv[3] + "/rank-000001.bin", 88, 0)  # names_bytes: its call list not kept
os.truncate(sys.argv[4] + "/rank-000002.bin", 1000)
PY
for kind in old oldsamples; do
  set +e; "$RIPPLE_BIN" trace recover $kind.spool -o $kind.h5 2> $kind.txt; rc=$?; set -e
  [ "$rc" -eq 2 ] && [ "$(wc -l < $kind.txt)" -eq 1 ] && grep -q "spool version [15] was written by an older development build; this ripple reads version [62]" $kind.txt \
    && [ ! -e $kind.h5 ] && pass "an older development build's spool refused: $(cat $kind.txt)" || fail "older spool ($kind): rc=$rc $(cat $kind.txt)"
done
"$RIPPLE_BIN" trace recover cut.spool -o cut.h5 > /dev/null 2> cut.txt || fail "recover with a cut header block: $(cat cut.txt)"
/usr/bin/python3 - crash.h5 cut.h5 cut.txt <<'PY' && pass "a spool cut in its header block recovered empty, said" || fail "cut spools"
import sys
import h5py
a, cut = (h5py.File(p, "r") for p in sys.argv[1:3])
assert a["/events"].shape[0] > 1000
ca, cc = a["/ranks/count"][:], cut["/ranks/count"][:]
assert cc[2] == 0 and (cc[[0, 1, 3]] == ca[[0, 1, 3]]).all(), (ca, cc)
assert "rank 2's spool ends inside its header" in open(sys.argv[3]).read()
assert cut["/ranks/lost"][2] == -1 and cut.attrs["lost_events"] == -1, (cut["/ranks/lost"][:], cut.attrs["lost_events"])
PY
# trace info takes a rank whose losses are unknown: the total is unknown (-1), the text says so.
"$RIPPLE_BIN" trace info cut.h5 --json > cut.json && /usr/bin/python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); assert d['lost_events'] == -1 and d['per_rank'][2]['lost']['events'] == -1, d" cut.json \
  && "$RIPPLE_BIN" trace info cut.h5 > cut.info && grep -q "an unknown number" cut.info \
  && pass "trace info: a rank whose losses are unknown" || fail "trace info of unknown losses: $(head -c 300 cut.json)"
"$RIPPLE_BIN" trace recover nonames.spool -o nonames.h5 2> mixed.txt && fail "spools with and without call lists recovered" \
  || { grep -q "3 spools keep their list of MPI calls and 1 do not" mixed.txt && pass "spools with and without call lists: refused, with why" \
    || fail "spools with and without call lists: $(cat mixed.txt)"; }
cp -r crash.h5.spool badnames.spool
/usr/bin/python3 -c "
import struct, sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(88)
    f.write(struct.pack('<i', 1 << 20))  # names_bytes beyond the events' start
" badnames.spool/rank-000002.bin
set +e; "$RIPPLE_BIN" trace recover badnames.spool -o badnames.h5 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "call names do not fit" err.txt && pass "impossible call-name length: $(cat err.txt)" \
  || fail "impossible call-name length: rc=$rc $(cat err.txt)"
# The output on a file system that one rank does not share (node-local /tmp on a cluster; here a
# private tmpfs over the directory, in rank 1's own mount namespace), once empty and once with an
# earlier run's spool directory in it: at MPI_Finalize the collective write would hang (it did in
# the second case). No rank records, the failing rank says why, the run goes on. Needs root.
mkdir -p local
if unshare -m true 2> /dev/null; then
  for stale in "" "&& mkdir $PWD/local/t.h5.spool"; do
    set +e
    timeout 120 "$MPIEXEC" -np 1 "$RIPPLE_BIN" trace -o "$PWD/local/t.h5" -- "$RING_BIN" --iterations 200 --warmup 0 \
      : -np 1 unshare -m sh -c "mount -t tmpfs tmpfs $PWD/local $stale && exec '$RIPPLE_BIN' trace -o '$PWD/local/t.h5' -- '$RING_BIN' --iterations 200 --warmup 0" \
      > local.txt 2>&1
    rc=$?
    set -e
    if [ "$rc" -eq 0 ] && grep -q "not recording: rank 1 does not see the spool directory" local.txt \
      && grep -q "verification PASSED" local.txt && [ ! -e local/t.h5 ] && [ ! -e local/t.h5.spool ]; then
      pass "output not shared by every rank${stale:+ (with a stale spool directory where rank 1 looks)}: no hang, untraced, why"
    else
      fail "output not shared by every rank: rc=$rc (124: it hung) $(grep 'ripple trace' local.txt | tail -2)"
    fi
    rm -rf local/*
  done
else
  echo "note: unshared-output case not run (no mount namespaces here)"
fi
# The spool directory's place taken by a file: rank 0 cannot make it, says so, and the run goes on
# untraced. An earlier run's spool directory (one that never became a trace) is moved aside, never
# deleted: both runs stay recoverable.
printf 'in the way' > blocked.h5.spool
set +e
timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$RIPPLE_BIN" trace -o blocked.h5 -- "$RING_BIN" --iterations 200 --warmup 0 > blocked.txt 2>&1
rc=$?
set -e
[ "$rc" -eq 0 ] && grep -q "not recording: rank 0 cannot make the spool directory '.*blocked.h5.spool': Not a directory" blocked.txt \
  && [ "$(cat blocked.h5.spool)" = "in the way" ] && pass "no room for the spool directory: untraced, why" \
  || fail "no room for the spool directory: rc=$rc $(grep 'ripple trace' blocked.txt | tail -2)"
cp -r crash.h5.spool again.h5.spool
set +e
timeout 120 "$MPIEXEC" -np 2 --oversubscribe "$RIPPLE_BIN" trace -o again.h5 -- "$RING_BIN" --iterations 200 --warmup 0 > again.txt 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ] && grep -q "an earlier run's spool directory was in the way; it is now '.*again.h5.spool.1'" again.txt \
  && [ ! -e again.h5.spool ] && "$RIPPLE_BIN" trace info again.h5 > /dev/null \
  && "$RIPPLE_BIN" trace recover again.h5.spool.1 -o again-earlier.h5 > /dev/null; then
  /usr/bin/python3 - crash.h5 again-earlier.h5 <<'PY' && pass "an earlier run's spool moved aside: the new trace written, the earlier one recovered whole" || fail "the earlier run's spool, moved aside"
import sys
import h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
assert (a["/ranks/count"][:] == b["/ranks/count"][:]).all() and (a["/events"]["call"][:] == b["/events"]["call"][:]).all()
PY
else
  fail "an earlier run's spool in the way: rc=$rc $(grep 'ripple trace' again.txt | tail -2)"
fi

# Damaged spools: a clear message and exit code 2, never a crash.
mkdir -p bad.spool && printf 'garbage-not-a-spool-header-at-all-but-long-enough-to-read' > bad.spool/rank-000000.bin
set +e; "$RIPPLE_BIN" trace recover bad.spool 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "not a Ripple spool file" err.txt && pass "damaged spool: $(cat err.txt)" || fail "damaged spool rc=$rc $(cat err.txt)"
cp -r crash.h5.spool badsamples.spool && printf 'garbage, not a sample spool header, long enough' > badsamples.spool/rank-000002.samples
set +e; "$RIPPLE_BIN" trace recover badsamples.spool 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "not a Ripple sample spool" err.txt && pass "damaged sample spool: $(cat err.txt)" \
  || fail "damaged sample spool rc=$rc $(cat err.txt)"
# Many samples (three of recover's 64 Ki-record rounds) in rank 1's sample spool, written here: every
# record comes back once, in order, with its iteration, moved onto rank 0's clock by one constant.
rm -rf many.spool && cp -r crash.h5.spool many.spool
/usr/bin/python3 - many.spool/rank-000001.samples <<'PY'
import struct, sys
import numpy as np
path = sys.argv[1]
head = open(path, "rb").read()
magic, _, size, rank, ranks, status_bytes, _ = struct.unpack("<8s6i", head[:32])
assert magic == b"RPLSMPLS" and size == 64 and rank == 1
rec = np.dtype([("time", "<f8"), ("ip", "<u8"), ("addr", "<u8"), ("weight", "<u8"), ("data_src", "<u8"), ("rank", "<i4"),
                ("iteration", "<i4"), ("cpu", "<i4"), ("tid", "<i4"), ("level", "<i4"), ("hit", "<i4")])
n = 150000
r = np.zeros(n, rec)
r["time"] = np.linspace(0.001, 3.5, n)
r["ip"] = np.arange(n)
r["addr"] = 2 * np.arange(n) + 1
r["rank"] = 1
r["iteration"] = np.arange(n) % 1000
with open(path, "wb") as f:
    f.write(struct.pack("<8s6i", magic, 2, size, rank, ranks, status_bytes, 0) + head[32:32 + status_bytes] + r.tobytes())
PY
"$RIPPLE_BIN" trace recover many.spool -o many.h5 > /dev/null || fail "recover with many samples"
/usr/bin/python3 - many.h5 <<'PY' && pass "150 000 samples of one rank: each once, in order, one clock shift" || fail "many samples"
import sys
import numpy as np
from trace_file import Trace
t = Trace(sys.argv[1])
s = t.file["/samples/records"][:]
mine = s[s["rank"] == 1]
n = 150000
assert len(mine) == n, len(mine)
assert (mine["ip"] == np.arange(n)).all()
assert (mine["addr"] == 2 * np.arange(n) + 1).all()
shift = mine["time"] - np.linspace(0.001, 3.5, n)
assert shift.max() - shift.min() < 1e-9, (shift.min(), shift.max())
assert (mine["iteration"] == np.arange(n) % 1000).all()
PY
# info counts them piece by piece (64 Ki samples at a time), all of them.
"$RIPPLE_BIN" trace info many.h5 --json > many.json && /usr/bin/python3 -c "
import json
d = json.load(open('many.json'))
assert d['per_rank'][1]['memory_samples'] == 150000, d['per_rank'][1]
" && pass "info counts 150 000 samples of one rank in pieces" || fail "info on many samples: $(head -c 300 many.json)"
cp many.h5 'a "quoted" \ name.h5'
"$RIPPLE_BIN" trace info 'a "quoted" \ name.h5' --json > quoted.json && /usr/bin/python3 -c "
import json
assert json.load(open('quoted.json'))['file'] == 'a \"quoted\" \\\\ name.h5'
" && pass "info --json: a file name with quotes and a backslash stays valid JSON" || fail "info --json quoting: $(head -c 200 quoted.json)"
# The same for counter samples: 150 000 in rank 1's counter spool come back each once, in order.
rm -rf manyc.spool && cp -r crash.h5.spool manyc.spool
/usr/bin/python3 - manyc.spool/rank-000001.counters <<'PY'
import struct, sys
import numpy as np
path = sys.argv[1]
head = open(path, "rb").read()
magic, version, values, rank, ranks, names, status = struct.unpack("<8s6i", head[:32])
assert magic == b"RPLCNTRS" and rank == 1
n = 150000
rec = np.zeros(n, np.dtype([("time", "<f8"), ("iteration", "<i4"), ("unused", "<i4"), ("values", "<i8", (values,))]))
rec["time"] = np.linspace(0.001, 3.5, n)
rec["iteration"] = np.arange(n) - 1
rec["values"] = np.arange(n)[:, None] * (np.arange(values) + 1)
open(path, "wb").write(head[:32 + names + status] + rec.tobytes())
PY
"$RIPPLE_BIN" trace recover manyc.spool -o manyc.h5 > /dev/null || fail "recover with many counter samples"
/usr/bin/python3 - manyc.h5 <<'PY' && pass "150 000 counter samples of one rank: each once, in order, one clock shift" || fail "many counter samples"
import sys
import numpy as np
import h5py
c = h5py.File(sys.argv[1], "r")["/counters"]
mine = c["rank"][:] == 1
n = 150000
assert mine.sum() == n, mine.sum()
assert (c["iteration"][:][mine] == np.arange(n) - 1).all()
v = c["values"][:][mine]
assert (v == np.arange(n)[:, None] * (np.arange(v.shape[1]) + 1)).all()
shift = c["time"][:][mine] - np.linspace(0.001, 3.5, n)
assert shift.max() - shift.min() < 1e-9
PY
# Ranks whose counter spools name different events: recovered without the value table, saying why.
rm -rf mixedc.spool && cp -r crash.h5.spool mixedc.spool
sed -i 's/perf::TASK-CLOCK/perf::TASK-CLOCX/' mixedc.spool/rank-000002.counters
"$RIPPLE_BIN" trace recover mixedc.spool -o mixedc.h5 > /dev/null && /usr/bin/python3 -c "
import h5py
c = h5py.File('mixedc.h5', 'r')['/counters']
assert 'values' not in c and b'different event lists' in c.attrs['values_missing'] and set(c['rank'][:]) == {0, 1, 2, 3}
" && pass "counter spools of different event lists: recovered without values, why" || fail "recover of mixed counter lists"
# Two sample or counter spools for one rank (a copy under another name): refused, not merged into
# rows of nobody; other entries in the spool directory (a subdirectory, a dangling link) are ignored.
for kind in samples counters; do
  rm -rf twice.spool && cp -r crash.h5.spool twice.spool && cp "twice.spool/rank-000001.$kind" "twice.spool/copy.$kind"
  set +e; "$RIPPLE_BIN" trace recover twice.spool -o twice.h5 2> err.txt; rc=$?; set -e
  [ "$rc" -eq 2 ] && grep -q "two ${kind%s} spools for rank 1" err.txt && [ ! -e twice.h5 ] \
    && pass "two $kind spools for one rank: refused, no file: $(cat err.txt)" || fail "two $kind spools: rc=$rc $(cat err.txt)"
done
rm -rf other.spool && cp -r crash.h5.spool other.spool && mkdir other.spool/notes.d && ln -s /nonexistent other.spool/gone.samples2
"$RIPPLE_BIN" trace recover other.spool -o other.h5 > /dev/null 2> err.txt && "$RIPPLE_BIN" trace info other.h5 > /dev/null \
  && pass "other entries in the spool directory: ignored" || fail "other entries in the spool directory: $(cat err.txt)"
# An output that is not a regular file is never removed when recover fails (it removed /dev/null).
set +e; "$RIPPLE_BIN" trace recover crash.h5.spool -o /dev/null > /dev/null 2> err.txt; rc=$?; set -e
if [ -c /dev/null ]; then
  [ "$rc" -ne 0 ] && pass "recover -o /dev/null: rc $rc, /dev/null still there" || fail "recover -o /dev/null: rc=$rc"
else
  mknod -m 666 /dev/null c 1 3 && fail "recover -o /dev/null removed /dev/null (made again)"
fi
cp -r crash.h5.spool badcounters.spool && printf 'garbage, not a counter spool header, long enough' > badcounters.spool/rank-000001.counters
set +e; "$RIPPLE_BIN" trace recover badcounters.spool 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "not a Ripple counter spool" err.txt && pass "damaged counter spool: $(cat err.txt)" \
  || fail "damaged counter spool rc=$rc $(cat err.txt)"
cp -r crash.h5.spool badclock.spool && printf 'garbage, not a clock spool header, long enough' > badclock.spool/rank-000003.clock
set +e; "$RIPPLE_BIN" trace recover badclock.spool 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "not a Ripple clock spool" err.txt && pass "damaged clock spool: $(cat err.txt)" \
  || fail "damaged clock spool rc=$rc $(cat err.txt)"
cp -r crash.h5.spool badplace.spool && printf 'garbage, not a placement spool header, long enough' > badplace.spool/rank-000001.placement
set +e; "$RIPPLE_BIN" trace recover badplace.spool 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "not a Ripple placement spool" err.txt && pass "damaged placement spool: $(cat err.txt)" \
  || fail "damaged placement spool rc=$rc $(cat err.txt)"
# A placement spool naming a rank the run does not have (its header's rank field, bytes 16-19).
cp -r crash.h5.spool farplace.spool
printf '\x09\x00\x00\x00' | dd of=farplace.spool/rank-000001.placement bs=1 seek=16 conv=notrunc status=none
set +e; "$RIPPLE_BIN" trace recover farplace.spool 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "impossible placement spool header (version 1, 220-byte record, rank 9 of 4" err.txt \
  && pass "impossible placement spool: $(cat err.txt)" || fail "impossible placement spool rc=$rc $(cat err.txt)"
# A placement spool whose header claims 1 GiB of XML it does not hold: taken as cut short (below),
# without allocating the gigabyte.
cp -r crash.h5.spool hugeplace.spool
printf '\x00\x00\x00\x40\x00\x00\x00\x00' | dd of=hugeplace.spool/rank-000003.placement bs=1 seek=24 conv=notrunc status=none
rss=$(/usr/bin/python3 - "$RIPPLE_BIN" <<'PY'
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "trace", "recover", "hugeplace.spool", "-o", "hugeplace.h5"], capture_output=True, text=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, of the recover alone
assert r.returncode == 0 and "rank-000003.placement is cut short" in r.stderr, r.stderr
assert rss < 200000, rss
print(rss)
PY
) && pass "a placement spool claiming 1 GiB it lacks: cut short, $rss KiB resident" || fail "huge placement claim"
# A placement spool cut short: said, that rank's row unknown, the rest recovered.
cp -r crash.h5.spool cutplace.spool && truncate -s 100 cutplace.spool/rank-000002.placement
"$RIPPLE_BIN" trace recover cutplace.spool -o cutplace.h5 > /dev/null 2> cutplace.txt \
  && grep -q "rank-000002.placement is cut short: rank 2's placement is missing" cutplace.txt \
  && /usr/bin/python3 -c "
import h5py, sys
p = h5py.File('cutplace.h5', 'r')['/ranks/placement'][:]
assert p['node'][2] == -1 and p['host'][2] == b'' and (p['node'][[0, 1, 3]] == 0).all(), p
" && pass "a placement spool cut short: said, its row unknown" || fail "cut placement spool: $(cat cutplace.txt)"
# A rank whose clock map never reached the disk: its times from the start's tick rate, with a warning.
cp -r crash.h5.spool noclock.spool && rm noclock.spool/rank-000002.clock
"$RIPPLE_BIN" trace recover noclock.spool -o noclock.h5 > /dev/null 2> noclock.txt || fail "recover without a clock map: $(cat noclock.txt)"
/usr/bin/python3 - crash.h5 noclock.h5 <<'PY' && grep -q "has no clock map" noclock.txt && pass "no clock map: times from the start's rate (within 1 ms), a warning" || fail "no clock map"
import sys
import numpy as np
from trace_file import Trace
a, b = Trace(sys.argv[1]), Trace(sys.argv[2])
assert a.count[2] > 100 and b.count[2] == a.count[2]
assert np.abs(a.rank(2)["t_enter"] - b.rank(2)["t_enter"]).max() < 1e-3
PY
# An event block that never reached the disk (zeros in mid-file, as after a node crash with later
# O_DIRECT blocks on disk; the events start at 16 KiB): exactly its events are missing and counted
# in /ranks/lost (from the next block's number), the rest recovered as before, with a warning.
cp -r crash.h5.spool hole.spool
holed=$(/usr/bin/python3 -c "
import sys
from spool_blocks import read_spool
_, offset, blocks = read_spool(sys.argv[1])
assert len(blocks) >= 2, len(blocks)
print(len(blocks[0][1]))
" hole.spool/rank-000001.bin) || fail "reading rank 1's blocks"
dd if=/dev/zero of=hole.spool/rank-000001.bin bs=4096 seek=4 count=1 conv=notrunc status=none
"$RIPPLE_BIN" trace recover hole.spool -o hole.h5 > /dev/null 2> hole.txt || fail "recover with a hole"
/usr/bin/python3 - crash.h5 hole.h5 "$holed" <<'PY' && grep -q "rank 1: 1 of its event blocks skipped" hole.txt \
  && pass "a zeroed spool block: exactly its $holed events missing, counted lost, said" || fail "zeroed spool block: $(cat hole.txt)"
import sys
from trace_file import Trace
a, b, holed = Trace(sys.argv[1]), Trace(sys.argv[2]), int(sys.argv[3])
ca, cb, lb = a.count, b.count, b.file["/ranks/lost"][:]
assert ca[1] - cb[1] == holed and lb[1] == holed + a.file["/ranks/lost"][1], (ca, cb, lb, holed)
assert (ca[[0, 2, 3]] == cb[[0, 2, 3]]).all()
assert (b.rank(1) == a.rank(1)[holed:]).all(), "the block held the first events"
PY
# What a killed or damaged run may leave, recovered under a timeout (rc 124: it hung): exit 0 with a
# file that trace info accepts, and what was dropped said (in NAME.txt).
recovered() {
  timeout 60 "$RIPPLE_BIN" trace recover "$1.spool" -o "$1.h5" > /dev/null 2> "$1.txt" \
    && timeout 60 "$RIPPLE_BIN" trace info "$1.h5" > /dev/null 2>> "$1.txt"
}
# Files cut short inside their header, as a rank killed in MPI_Init leaves them (its event spool
# exists, empty, until the header is written): that rank is recovered without events, its losses
# unknown (-1); a cut side spool is taken as absent; each is said. Before, any one of them stopped
# the whole recovery (exit 2, nothing recovered).
rm -rf cutfiles.spool && cp -r crash.h5.spool cutfiles.spool
: > cutfiles.spool/rank-000001.bin
truncate -s 100 cutfiles.spool/rank-000002.counters  # inside its event names
truncate -s 0 cutfiles.spool/rank-000002.clock
truncate -s 20 cutfiles.spool/rank-000003.samples
truncate -s 10 cutfiles.spool/rank-000003.placement
if recovered cutfiles; then
  /usr/bin/python3 - crash.h5 cutfiles.h5 cutfiles.txt <<'PY' && pass "files cut inside their header: recovered without them, each said" || fail "files cut inside their header: $(cat cutfiles.txt)"
import sys
import numpy as np
from trace_file import Trace
a, b, said = Trace(sys.argv[1]), Trace(sys.argv[2]), open(sys.argv[3]).read()
for text in ("rank 1's spool ends inside its header: no events of it to recover",
             "rank-000002.counters ends inside its header (cut short)", "rank-000003.samples ends inside its header (cut short)",
             "rank-000003.placement ends inside its header (cut short)", "rank-000002.bin has no clock map (its clock spool ends inside its header)"):
    assert text in said, text
assert b.count[1] == 0 and b.file["/ranks/lost"][1] == -1 and (b.count[[0, 2, 3]] == a.count[[0, 2, 3]]).all(), (a.count, b.count)
assert 2 not in set(b.file["/counters/rank"][:]) and 3 not in set(b.file["/samples/records"]["rank"][:])
assert b.file["/ranks/placement"]["node"][3] == -1 and (b.file["/ranks/placement"]["node"][[0, 1, 2]] == 0).all()
assert np.abs(a.rank(2)["t_enter"] - b.rank(2)["t_enter"]).max() < 1e-3  # the start's tick rate
PY
else
  fail "files cut inside their header: rc $? $(cat cutfiles.txt)"
fi
rm -rf onlycut.spool && mkdir onlycut.spool && : > onlycut.spool/rank-000000.bin
set +e; timeout 60 "$RIPPLE_BIN" trace recover onlycut.spool 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "no rank-\*.bin spool has a whole header" err.txt && pass "only an empty event spool: $(cat err.txt)" \
  || fail "only an empty event spool: rc=$rc $(cat err.txt)"
# Damaged records that pass every other check: a memory sample naming rank 7 (info refused the
# file) and one naming rank 0 (it went to rank 0), in rank 1's sample spool; in rank 1's event
# spool a block whose check passes with an event of rank 7 and one of rank 0 (info refused it).
# Each is dropped and said, the events counted lost.
rm -rf foreign.spool && cp -r crash.h5.spool foreign.spool
/usr/bin/python3 - foreign.spool <<'PY' || fail "writing records of other ranks"
import struct, sys
from spool_blocks import read_spool, check, EVENT, HEAD, BLOCK
d = sys.argv[1]
path = d + "/rank-000001.samples"
b = bytearray(open(path, "rb").read())
status = struct.unpack_from("<i", b, 24)[0]
assert len(b) >= 32 + status + 2 * 64, len(b)
for k, rank in ((0, 7), (1, 0)):
    struct.pack_into("<i", b, 32 + status + 64 * k + 40, rank)  # SampleRecord.rank
open(path, "wb").write(b)
path = d + "/rank-000001.bin"
_, _, blocks = read_spool(path)
first, events = blocks[-1]
last = list(EVENT.unpack(events[-1]))
payload = b""
for rank in (7, 0):
    last[14] = rank
    payload += b"\0" + EVENT.pack(*last)  # raw events
padded = payload + b"\0" * (-len(payload) % 8)
block = HEAD.pack(b"RPLE", 2, len(payload), first + len(events), check(2, len(payload), first + len(events), padded)) + payload
open(path, "ab").write(block + b"\0" * (BLOCK - len(block)))
PY
if recovered foreign; then
  /usr/bin/python3 - crash.h5 foreign.h5 foreign.txt <<'PY' && pass "records naming another rank: dropped, said, the events counted lost" || fail "records naming another rank: $(cat foreign.txt)"
import sys
from trace_file import Trace
a, b, said = Trace(sys.argv[1]), Trace(sys.argv[2]), open(sys.argv[3]).read()
assert "rank 1: 2 events of its spool name another rank (damaged): dropped, counted lost" in said, said
assert "rank-000001.samples: 2 of its" in said and "memory samples name another rank" in said, said
assert (b.count == a.count).all() and (b.rank(1) == a.rank(1)).all()
assert b.file["/ranks/lost"][1] == a.file["/ranks/lost"][1] + 2, (a.file["/ranks/lost"][:], b.file["/ranks/lost"][:])
sa, sb = a.file["/samples/records"]["rank"][:], b.file["/samples/records"]["rank"][:]
assert (sb == 1).sum() == (sa == 1).sum() - 2 and (sb == 0).sum() == (sa == 0).sum(), ((sa == 1).sum(), (sb == 1).sum())
PY
else
  fail "records naming another rank: rc $? $(cat foreign.txt)"
fi
# A flipped byte in a counter spool's names (a newline): its names no longer count its values, and
# (rank 0's, whose names name the columns) /counters/values was written in a shape info refused.
# That rank's counter spool is dropped, said; the other ranks' values stay.
rm -rf cnames.spool && cp -r crash.h5.spool cnames.spool
/usr/bin/python3 - cnames.spool/rank-000000.counters <<'PY' || fail "damaging the counter names"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[b.index(b"\n", 32)] = ord("x")
open(sys.argv[1], "wb").write(b)
PY
if recovered cnames; then
  /usr/bin/python3 - cnames.h5 cnames.txt <<'PY' && pass "counter names that do not count the values: that rank's counters dropped, said" || fail "damaged counter names: $(cat cnames.txt)"
import sys
import h5py
c, said = h5py.File(sys.argv[1], "r")["/counters"], open(sys.argv[2]).read()
assert "rank-000000.counters is damaged (2 names for 3 values): rank 0's" in said, said
assert set(c["rank"][:]) == {1, 2, 3} and c["values"].shape[1] == 3 and len(c.attrs["events"].split(b"\n")) == 3
PY
else
  fail "damaged counter names: rc $? $(cat cnames.txt)"
fi
# Clock values no clock gives: a NaN piece in rank 1's clock map (its times then use the start's
# tick rate); a NaN offset in rank 2's header, and in rank 3's, without a clock map, an infinite
# tick rate and wall-clock start (their times unknown, NaN). Before, all but rank 3's start made
# the ranks' times NaN without a word.
rm -rf badtime.spool && cp -r crash.h5.spool badtime.spool && rm badtime.spool/rank-000003.clock
/usr/bin/python3 - badtime.spool <<'PY' || fail "damaging clock values"
import struct, sys
d = sys.argv[1]
def put(name, at, value):
    with open(f"{d}/{name}", "r+b") as f:
        f.seek(at)
        f.write(struct.pack("<d", value))
# Piece 2's seconds (ClockSpoolHeader 24 bytes, TickSegment 24), or piece 1's where the map has one
# piece only (the tracer stamps with CLOCK_MONOTONIC where the kernel's clocksource is not the TSC).
pieces = (len(open(d + "/rank-000001.clock", "rb").read()) - 24) // 24
assert pieces >= 1
index = 1 if pieces >= 3 else 0
put("rank-000001.clock", 24 + 24 * index + 8, float("nan"))
open("badtime.piece", "w").write(str(index + 1))
put("rank-000002.bin", 40, float("nan"))  # SpoolHeader.offset
put("rank-000003.bin", 80, float("inf"))  # tick_rate
put("rank-000003.bin", 56, float("inf"))  # wall_start
PY
if recovered badtime && "$RIPPLE_BIN" trace info badtime.h5 --json > badtime.json; then
  /usr/bin/python3 - crash.h5 badtime.h5 badtime.txt badtime.json <<'PY' && pass "clock values no clock gives: the start's rate, or times unknown (NaN), said" || fail "damaged clock values: $(cat badtime.txt)"
import json, sys
import numpy as np
from trace_file import Trace
a, b, said = Trace(sys.argv[1]), Trace(sys.argv[2]), open(sys.argv[3]).read()
piece = open("badtime.piece").read()
assert f"rank-000001.bin has a damaged clock map (piece {piece} of" in said and "rank 1's times use the start's tick rate" in said, said
assert "rank-000002.bin: its header's clock is damaged" in said and "rank 2's times are unknown (NaN)" in said, said
assert "rank 3's times are unknown (NaN): its header's tick rate (inf s per tick) is damaged" in said, said
assert "rank 3's last_event_wall_time is unknown (NaN)" in said, said
assert (b.count == a.count).all() and (b.rank(0) == a.rank(0)).all()
assert np.abs(a.rank(1)["t_enter"] - b.rank(1)["t_enter"]).max() < 1e-3
for r in (2, 3):
    assert np.isnan(b.rank(r)["t_enter"]).all() and np.isnan(b.rank(r)["t_exit"]).all(), r
c = b.file["/counters"]
unknown = c["rank"][:] >= 2
assert unknown.any() and np.isnan(c["time"][:][unknown]).all() and np.isfinite(c["time"][:][~unknown]).all()
assert np.isnan(b.file["/ranks/last_event_wall_time"][3]) and np.isfinite(b.file["/ranks/last_event_wall_time"][:3]).all()
assert json.load(open(sys.argv[4]))["events_untimed"] == a.count[2] + a.count[3]
PY
else
  fail "damaged clock values: rc $? $(cat badtime.txt)"
fi
# A damaged t0 in an event spool's header (rank 2: inf, rank 3: 1e300): the ranks' times are
# unknown, and so is their last event's wall-clock time, which counts from t0. Before,
# /ranks/last_event_wall_time held -inf and -1e300.
rm -rf badt0.spool && cp -r crash.h5.spool badt0.spool
/usr/bin/python3 - badt0.spool <<'PY' || fail "damaging t0"
import struct, sys
for rank, value in ((2, float("inf")), (3, 1e300)):
    with open(f"{sys.argv[1]}/rank-00000{rank}.bin", "r+b") as f:
        f.seek(24)  # SpoolHeader.t0
        f.write(struct.pack("<d", value))
PY
if recovered badt0; then
  /usr/bin/python3 - crash.h5 badt0.h5 <<'PY' && pass "a damaged t0: the rank's times and last wall-clock time unknown (NaN)" || fail "damaged t0"
import sys
import numpy as np
from trace_file import Trace
a, b = Trace(sys.argv[1]), Trace(sys.argv[2])
last = b.file["/ranks/last_event_wall_time"][:]
assert np.isnan(last[[2, 3]]).all() and (last[:2] == a.file["/ranks/last_event_wall_time"][:2]).all(), last
assert (b.count == a.count).all() and np.isnan(b.rank(2)["t_enter"]).all() and np.isnan(b.rank(3)["t_exit"]).all()
PY
else
  fail "damaged t0: rc $? $(cat badt0.txt)"
fi
# A flipped bit of a sample spool's status length (bit 16) takes 64 KiB of its records into its
# status: /ranks/sources was written with rows wider than trace info reads (64 KiB), and info
# refused the file. That status is said and replaced by unknown; the other ranks' stay.
rm -rf widestatus.spool && cp -r crash.h5.spool widestatus.spool
/usr/bin/python3 - widestatus.spool/rank-000001.samples <<'PY' || fail "widening a sample spool's status"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
status = struct.unpack_from("<i", b, 24)[0]
records = b[32 + status :]
assert len(records) >= 64, len(records)
while len(b) < 200000:  # a longer run's spool
    b += records
struct.pack_into("<i", b, 24, status ^ (1 << 16))  # SampleSpoolHeader.status_bytes
open(sys.argv[1], "wb").write(b)
PY
if recovered widestatus; then
  /usr/bin/python3 - crash.h5 widestatus.h5 widestatus.txt <<'PY' && pass "a damaged sample spool's 64 KiB status: said, its status unknown" || fail "a damaged status length: $(cat widestatus.txt)"
import json, sys
import h5py
a, b, said = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), open(sys.argv[3]).read()
assert "rank 1's sample spool gives a status of" in said and "too long for /ranks/sources (damaged)" in said, said
rows = [json.loads(r) for r in b["/ranks/sources"][:]]
assert rows[1]["perf"].startswith("unknown (a damaged status of"), rows[1]["perf"][:80]
assert [r["perf"] for r in rows[::2]] == [json.loads(r)["perf"] for r in a["/ranks/sources"][::2]]
assert b["/ranks/sources"].dtype.itemsize <= 1 << 16
PY
else
  fail "a damaged status length: rc $? $(cat widestatus.txt)"
fi
# A FIFO named like a spool blocked recover for ever: entries that are not regular files are
# passed over, said.
rm -rf fifo.spool && cp -r crash.h5.spool fifo.spool && rm fifo.spool/rank-000001.samples fifo.spool/rank-000003.clock
mkfifo fifo.spool/rank-000001.samples fifo.spool/rank-000003.clock
if recovered fifo; then
  grep -q "rank-000001.samples is not a regular file: ignored" fifo.txt && grep -q "rank-000003.bin has no clock map" fifo.txt \
    && /usr/bin/python3 -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
assert 1 not in set(f['/samples/records']['rank'][:]) and (f['/ranks/count'][:] > 0).all()
" fifo.h5 && pass "FIFOs named like spools: passed over, said" || fail "FIFOs named like spools: $(cat fifo.txt)"
else
  fail "FIFOs named like spools: rc $? (124: it hung) $(cat fifo.txt)"
fi
# One rank's event spool alone is recovered (the other ranks empty); but the rank count it alone
# gives is trusted only up to 4096 ranks: a flipped bit made a 40 KB spool a 375 MB file of 2^21
# ranks. A counter spool of another run's size is refused.
rm -rf lone.spool && mkdir lone.spool && cp crash.h5.spool/rank-000001.bin lone.spool/
if recovered lone && /usr/bin/python3 -c "
import h5py, sys
c = h5py.File(sys.argv[1], 'r')['/ranks/count'][:]
assert len(c) == 4 and c[1] > 0 and c[[0, 2, 3]].sum() == 0, c
" lone.h5; then
  pass "one rank's event spool alone: recovered"
else
  fail "one rank's event spool alone: $(cat lone.txt)"
fi
printf '\x04\x00\x20\x00' | dd of=lone.spool/rank-000001.bin bs=1 seek=20 conv=notrunc status=none  # ranks: 2^21 + 4
cp crash.h5.spool/rank-000001.clock lone.spool/  # says 4
rm -f lone.h5
set +e; timeout 60 "$RIPPLE_BIN" trace recover lone.spool -o lone.h5 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "its header gives the run 2097156 ranks, and no other spool says so" err.txt && [ ! -e lone.h5 ] \
  && pass "a lone spool's unconfirmed rank count of 2^21 + 4: refused" || fail "a lone spool's huge rank count: rc=$rc $(cat err.txt)"
rm -rf cranks.spool && cp -r crash.h5.spool cranks.spool
printf '\x05\x00\x00\x00' | dd of=cranks.spool/rank-000002.counters bs=1 seek=20 conv=notrunc status=none
set +e; timeout 60 "$RIPPLE_BIN" trace recover cranks.spool -o cranks.h5 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && grep -q "impossible counter spool header (version 1, 3 values, rank 2 of 5).*for a run of 4 ranks" err.txt \
  && pass "a counter spool of another rank count: refused" || fail "a counter spool of another rank count: rc=$rc $(cat err.txt)"
# A seeded sweep of random damage to the spools (trace_corrupt.py): recover refuses with why, or
# writes a file trace info accepts; never a hang, a crash, or a file far beyond the spools.
/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/trace_corrupt.py" --spools "$RIPPLE_BIN" crash.h5.spool > sweep.txt \
  && pass "$(head -1 sweep.txt)" || fail "damaged spools: $(grep FAIL sweep.txt | head -5)"
set +e; "$RIPPLE_BIN" trace recover nowhere 2> err.txt; rc=$?; set -e
[ "$rc" -eq 2 ] && pass "missing spool: $(cat err.txt)" || fail "missing spool rc=$rc"

# A disk that damages a block it took, seen at MPI_Finalize, which reads the spool back: the file
# holds only real events, and the block's events are counted lost (/ranks/lost, lost_events).
# Before, the rows kept for them were written as they were made, events of MPI_Init on rank 0,
# and nothing was counted lost. The damage: a pwrite preloaded into the ranks (spool_damage.c) flips
# a byte of rank 1's second event block on its way to the disk. The ring's two ranks make the same
# calls, so rank 0's count is rank 1's truth.
set +e
timeout 120 "$MPIEXEC" -np 2 --oversubscribe -x LD_PRELOAD="$SPOOL_DAMAGE_LIB" "$RIPPLE_BIN" trace -o damaged.h5 --samples off \
  -- "$RING_BIN" --iterations 2000 --warmup 0 --slices 1 > damaged.txt 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ] && grep -q "rank 1: [0-9]* spooled events could not be read back (1 spool blocks damaged); they are counted as lost" damaged.txt \
  && "$RIPPLE_BIN" trace info damaged.h5 > /dev/null; then
  /usr/bin/python3 - damaged.h5 <<'PY' && pass "a spool block damaged on the disk: at MPI_Finalize only real events, its events counted lost" || fail "a spool block damaged on the disk"
import sys
from trace_file import Trace
t = Trace(sys.argv[1])
lost = t.file["/ranks/lost"][:]
assert len(t.calls("MPI_Init")) == 0  # the ring starts with MPI_Init_thread
for r in range(2):
    assert (t.rank(r)["rank"] == r).all(), (r, set(t.rank(r)["rank"]))
    assert len(t.calls("MPI_Init_thread", t.rank(r))) == 1, (r, len(t.calls("MPI_Init_thread", t.rank(r))))
assert lost[0] == 0 and 0 < lost[1] <= 1018 and t.count[1] + lost[1] == t.count[0], (t.count, lost)
assert t.file.attrs["lost_events"] == lost.sum() and t.file.attrs["events"] == t.count.sum(), dict(t.file.attrs)
PY
else
  fail "a spool block damaged on the disk: rc=$rc $(grep 'ripple trace' damaged.txt | tail -3)"
fi
finish
