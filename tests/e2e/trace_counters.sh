#!/usr/bin/env bash
# Counters in the trace: software events per rank and per iteration; an event that does not exist
# is recorded as unavailable and the application's exit code stays 0; on a machine without a
# hardware PMU the file says so.
source "$(dirname "$0")/lib.sh"
: "${HEAT2D_BIN:?}" "${SUBJECTS_BIN:?}"
run() { timeout 300 "$MPIEXEC" -np 2 --oversubscribe -x RIPPLE_PAPI_EVENTS "$RIPPLE_BIN" trace -o "$1" -- "$HEAT2D_BIN" --tile 32 --iterations 20 --warmup 0; }
export RIPPLE_PAPI_EVENTS="perf::TASK-CLOCK,perf::PAGE-FAULTS,NO_SUCH_EVENT"
run sw.h5 > sw.txt 2>&1 && pass "software events and a missing one: exit code 0" || fail "run with a missing event: $(cat sw.txt)"
/usr/bin/python3 - sw.h5 <<'PY' && pass "counters per rank and per iteration; missing event recorded" || fail "counters"
import sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
names = f["/counters"].attrs["events"].decode().split("\n")
status = f["/counters"].attrs["status"].decode()
assert names == ["perf::TASK-CLOCK", "perf::PAGE-FAULTS", "NO_SUCH_EVENT", "uncore::cas_count_read", "uncore::cas_count_write"], names
assert "NO_SUCH_EVENT: unavailable" in status and "perf::TASK-CLOCK: active" in status, status
values, ranks, iters = f["/counters/values"][:], f["/counters/rank"][:], f["/counters/iteration"][:]
# Uncore counters: memory-controller PMUs exist on bare-metal servers, not in this kind of VM.
import glob
leaders = f["/ranks/placement"]["socket_leader"]
if not glob.glob("/sys/bus/event_source/devices/uncore_imc*"):
    assert "uncore::cas_count_read: unavailable: no uncore PMU with the event 'cas_count_read'" in status, status
    assert (values[:, 3:] == -1).all()
else:  # only the leaders read them; the others record -1
    for r in range(2):
        assert ((values[ranks == r][:, 3] >= 0).all()) == bool(leaders[r]) or "unavailable" in status, (r, status)
for r in range(2):
    mine = ranks == r
    # MPI_Init, one sample at each of the 20 iteration markers and at the loop's end, MPI_Finalize
    assert mine.sum() == 23, mine.sum()
    assert list(iters[mine][1:22]) == list(range(20)) + [19]
    clock = values[mine][:, 0]
    assert (np.diff(clock) >= 0).all() and clock[-1] > clock[0], clock
    assert (values[mine][:, 2] == -1).all()
PY
unset RIPPLE_PAPI_EVENTS
run default.h5 > default.txt 2>&1 || fail "default counters run: $(cat default.txt)"
if [ -d /sys/bus/event_source/devices/cpu ] || [ -d /sys/bus/event_source/devices/cpu_core ]; then
  pass "this machine has a hardware PMU: default counters $(h5dump -a /counters/status default.h5 | grep -c active) active"
else
  h5dump -a /counters/status default.h5 > status.txt
  h5dump -a /sources default.h5 > sources.txt
  grep -q "no hardware PMU" status.txt && grep -q "no hardware PMU" sources.txt && pass "no hardware PMU: recorded in the file" \
    || fail "no-PMU reason missing: $(cat status.txt sources.txt)"
  # The run's own warning says each reason once, naming the counters it holds for.
  [ "$(grep -c "Event does not exist" default.txt)" -eq 1 ] && grep -q "^  PAPI_LD_INS, PAPI_L1_DCM, PAPI_TOT_CYC, PAPI_L3_LDM: .*no hardware PMU" default.txt \
    && pass "no hardware PMU: said once on stderr, for the four counters" || fail "the counters' warning: $(cat default.txt)"
  # None of the default counters works here: no rows of -1 at every marker.
  /usr/bin/python3 -c 'import h5py, sys; f = h5py.File(sys.argv[1], "r"); st = f["/counters"].attrs["status"]; assert b"active" not in (st if isinstance(st, bytes) else st.encode()); assert len(f["/counters/time"]) == 0' default.h5 \
    && pass "no counter active: no counter rows" || fail "rows of counters that do not work: $(h5dump -d /counters/time default.h5 | head)"
fi

# Memory per rank stays bounded however many counter samples a run takes: 200 000 iteration
# markers on rank 0 (20 000 on rank 1: they write different numbers of rounds), each reading the
# counters, and the trace holds every sample (the tracer before the samples went through the spool
# only grew by 18 MiB here).
RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS timeout 300 "$MPIEXEC" -np 2 --oversubscribe -x RIPPLE_PAPI_EVENTS \
  "$RIPPLE_BIN" trace -o markers.h5 -- "$SUBJECTS_BIN" markers 200000 > markers.txt 2>&1 || fail "200 000 markers run: $(cat markers.txt)"
/usr/bin/python3 - markers.h5 markers.txt <<'PY' && pass "200 000 markers: every counter sample kept, resident memory grew by < 1 MiB" || fail "memory bound of the counter samples: $(grep resident markers.txt)"
import re
import sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
growth = [int(g) for g in re.findall(r"grew by (-?\d+) KiB", open(sys.argv[2]).read())]
assert len(growth) == 2 and max(growth) < 1024, growth
ranks, iters = f["/counters/rank"][:], f["/counters/iteration"][:]
assert (f["/ranks/counters_lost"][:] == 0).all()
for r, n in enumerate([200000, 20000]):
    mine = iters[ranks == r]
    assert len(mine) == n + 2 and list(mine[1:4]) == [0, 1, 2] and (np.diff(mine[1:-1]) == 1).all(), (r, len(mine))
PY
# trace info reads the 220 000 events in pieces of 65 536 (one straddles the ranks' boundary): its
# sums must be those of the whole table.
"$RIPPLE_BIN" trace info markers.h5 --json > markers.json && /usr/bin/python3 - markers.json markers.h5 <<'PY' \
  && pass "trace info over several pieces of events: the whole table's counts, times and iterations" || fail "trace info in pieces"
import json
import sys
import numpy as np
from trace_file import Trace
d, t = json.load(open(sys.argv[1])), Trace(sys.argv[2])
assert d["events"] == len(t.events) > 3 * 65536, d["events"]
assert abs(d["duration"] - (t.events["t_exit"].max() - t.events["t_enter"].min())) < 1e-9
for r, info in enumerate(d["per_rank"]):
    e = t.rank(r)
    assert info["iterations"] == len(np.unique(t.calls("MPI_Pcontrol", e)["iteration"])), info["iterations"]
    for name, c in info["calls"].items():
        mine = t.calls(name, e)
        assert c["count"] == len(mine) and abs(c["time"] - (mine["t_exit"] - mine["t_enter"]).sum()) < 1e-6 * max(1, c["time"]), name
PY

# Ranks given different event lists (MPMD launch): the file is still written, without the value
# table, and says why.
timeout 300 "$MPIEXEC" -np 1 -x RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK "$RIPPLE_BIN" trace -o mixed.h5 -- "$HEAT2D_BIN" --tile 32 \
  --iterations 5 --warmup 0 : -np 1 -x RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS "$RIPPLE_BIN" trace -o mixed.h5 -- \
  "$HEAT2D_BIN" --tile 32 --iterations 5 --warmup 0 > mixed.txt 2>&1 || fail "mixed event lists run: $(cat mixed.txt)"
/usr/bin/python3 - mixed.h5 <<'PY' && "$RIPPLE_BIN" trace info mixed.h5 > /dev/null && pass "different event lists per rank: file written, values left out with the reason" || fail "mixed event lists"
import sys
import h5py
f = h5py.File(sys.argv[1], "r")
assert "values" not in f["/counters"] and b"different event lists" in f["/counters"].attrs["values_missing"]
assert len(f["/ranks/count"]) == 2 and (f["/ranks/count"][:] > 0).all()
PY

# Memory samples. Without a hardware PMU the default (PEBS load latency or IBS) says why it is
# missing; the sampler itself (ring buffer, decoder, clock, iteration marks) is exercised with the
# page-fault software event: every page the program first touches in iteration 1 must appear as a
# sample with exactly that address, inside the buffer range its MPI_Sendrecv recorded.
if [ ! -d /sys/bus/event_source/devices/cpu ] && [ ! -d /sys/bus/event_source/devices/cpu_core ] && [ ! -d /sys/bus/event_source/devices/ibs_op ]; then
  h5dump -a /samples/status default.h5 > samples.txt
  grep -q "unavailable: no hardware PMU" samples.txt && pass "memory sampling: no hardware PMU recorded in /samples" \
    || fail "sampling status: $(cat samples.txt)"
fi
timeout 300 "$MPIEXEC" -np 2 --oversubscribe -x RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK "$RIPPLE_BIN" trace -o faults.h5 --samples page-faults --sample-period 1 -- \
  "$SUBJECTS_BIN" touch 300 > faults.txt 2>&1 || fail "page-fault sampling run: $(cat faults.txt)"
/usr/bin/python3 - faults.h5 <<'PY' && pass "page-fault samples: one per first-touched page, at its address, in its iteration, on the trace clock" || fail "page-fault samples"
import os, sys
from trace_file import Trace
t = Trace(sys.argv[1])
f = t.file
assert f["/samples"].attrs["status"].decode().startswith("active: page-faults"), f["/samples"].attrs["status"]
s = f["/samples/records"][:]
assert (f["/ranks/samples_lost"][:] == 0).all() and (f["/ranks/samples_dropped"][:] == 0).all()
page = os.sysconf("SC_PAGE_SIZE")
for rank in range(2):
    e = t.rank(rank)
    sr = t.calls("MPI_Sendrecv", e)
    assert len(sr) == 1 and sr["extent"][0] == 300 * page, sr
    lo = int(sr["buffer"][0]); hi = lo + int(sr["extent"][0])
    mine = s[s["rank"] == rank]
    inside = mine[(mine["addr"] >= lo) & (mine["addr"] < hi)]
    assert sorted(int(a) for a in inside["addr"]) == list(range(lo, hi, page)), (len(inside), lo, hi)
    assert (inside["iteration"] == 1).all(), set(inside["iteration"])
    marks = t.calls("MPI_Pcontrol", e)
    t1, t2 = marks[marks["iteration"] == 1]["t_enter"].min(), marks[marks["iteration"] == 2]["t_enter"].min()
    assert (inside["time"] >= t1).all() and (inside["time"] <= t2).all(), (inside["time"].min(), inside["time"].max(), t1, t2)
PY
"$RIPPLE_BIN" trace info faults.h5 --json > faults.json && /usr/bin/python3 - faults.json faults.h5 <<'PY' && pass "trace info (C++ reader): samples and counter rows per rank" || fail "trace info samples"
import json, sys
import h5py
d, f = json.load(open(sys.argv[1])), h5py.File(sys.argv[2], "r")
s, c = f["/samples/records"]["rank"], f["/counters/rank"][:]
for r in d["per_rank"]:
    assert r["memory_samples"] == (s == r["rank"]).sum() > 300 and r["counter_samples"] == (c == r["rank"]).sum() == 5, r
# The whole run's table is the sum of the ranks' (it was missing from --json).
for name, row in d["calls"].items():
    ranks = [r["calls"][name] for r in d["per_rank"] if name in r["calls"]]
    assert row["count"] == sum(x["count"] for x in ranks) and row["bytes"] == sum(x["bytes"] for x in ranks), name
    assert abs(row["time"] - sum(x["time"] for x in ranks)) <= 1e-9 * max(1.0, row["time"]), name
assert d["calls"]["MPI_Pcontrol"]["count"] == 6, d["calls"]
PY
# The text form says the same per rank (before: memory samples only, though documented with both).
"$RIPPLE_BIN" trace info faults.h5 > faults_info.txt && [ "$(grep -c '^rank [01]: .* memory samples, 5 counter samples' faults_info.txt)" -eq 2 ] \
  && pass "trace info (text): counter samples per rank" || fail "trace info text: $(grep '^rank' faults_info.txt)"
# Rank 1 in a time namespace whose CLOCK_MONOTONIC is an hour ahead (unshare --time, as a container
# or a CRIU restore can run it): the clock synchronisation finds the hour, and its page-fault samples,
# which the kernel stamps on its own clock, are moved into the namespace's (they were an hour early,
# before every marker, all in iteration -1).
if unshare --time --fork --monotonic 3600 true 2> /dev/null; then
  timeout 300 "$MPIEXEC" --oversubscribe -x RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK \
    -np 1 "$RIPPLE_BIN" trace -o timens.h5 --samples page-faults --sample-period 1 -- "$SUBJECTS_BIN" touch 300 : \
    -np 1 unshare --time --fork --monotonic 3600 "$RIPPLE_BIN" trace -o timens.h5 --samples page-faults --sample-period 1 -- \
    "$SUBJECTS_BIN" touch 300 > timens.txt 2>&1 || fail "time-namespace run: $(tail -n 3 timens.txt)"
  /usr/bin/python3 - timens.h5 <<'PY' && pass "a rank an hour ahead in a time namespace: offset found, its samples on its clock" || fail "time namespace"
import json, sys
from trace_file import Trace
t = Trace(sys.argv[1])
f = t.file
offset = f["/ranks/clock_offset"][:]
assert offset[0] == 0 and abs(offset[1] + 3600) < 1e-3, offset
s = f["/samples/records"][:]
for rank in range(2):
    e = t.rank(rank)
    assert e["t_enter"].min() > -1e-3 and e["t_exit"].max() < 60, (rank, e["t_enter"].min(), e["t_exit"].max())
    marks = t.calls("MPI_Pcontrol", e)
    t1, t2 = marks[marks["iteration"] == 1]["t_enter"].min(), marks[marks["iteration"] == 2]["t_enter"].min()
    touched = s[(s["rank"] == rank) & (s["iteration"] == 1)]
    assert len(touched) >= 300 and (touched["time"] >= t1).all() and (touched["time"] <= t2).all(), (rank, len(touched))
perf = json.loads(f["/ranks/sources"][1].decode().rstrip("\0"))["perf"]
assert "moved +3600 s into this process's time namespace" in perf, perf
PY
else
  echo "skip: time namespaces (unshare --time) unavailable here"
fi
# The hybrid case: threads started after MPI_Init (OpenMP workers, say) are sampled too, through
# an inherited event per CPU of the rank's binding, each sample with its thread's id; the tracer's
# own thread is not (it starts before the sampler; --flush-seconds 0.05 makes it busy meanwhile).
# Bound to a core (mpirun's default for 2 ranks) one event per rank, unbound one per CPU. The
# page-fault counter, inherited too, counts the workers' faults (through PAPI, or perf_event_open
# where PAPI could count the MPI_Init thread only, as on a VM whose PAPI has its perf_event
# component enabled). The same event named perf::FAULTS goes through PAPI and counts what its
# status says: the MPI_Init thread alone, or every thread.
for bind in core none; do
  timeout 300 "$MPIEXEC" -np 2 --oversubscribe --bind-to $bind -x RIPPLE_PAPI_EVENTS=perf::PAGE-FAULTS,perf::FAULTS "$RIPPLE_BIN" trace \
    -o workers-$bind.h5 --samples page-faults --sample-period 1 --flush-seconds 0.05 -- "$SUBJECTS_BIN" workers 2 200 \
    > workers-$bind.txt 2>&1 || fail "workers run (--bind-to $bind): $(cat workers-$bind.txt)"
  /usr/bin/python3 - workers-$bind.h5 workers-$bind.txt $bind <<'PY' && pass "--bind-to $bind: worker threads' page faults sampled with their thread ids and counted; the tracer's thread not sampled" || fail "worker threads' samples (--bind-to $bind)"
import os, re, sys
import h5py
f = h5py.File(sys.argv[1], "r")
text, bind = open(sys.argv[2]).read(), sys.argv[3]
status = f["/samples"].attrs["status"].decode()
assert status.startswith("active: page-faults") and "the thread that called MPI_Init and those it starts, on the" in status, status
cpus = int(re.search(r"on the (\d+) CPUs? of its binding, (a ring|rings) of \d+ data pages", status).group(1))
assert cpus == (1 if bind == "core" else len(os.sched_getaffinity(0))), status
s = f["/samples/records"][:]
assert (f["/ranks/samples_lost"][:] == 0).all() and (f["/ranks/samples_dropped"][:] == 0).all()
page = os.sysconf("SC_PAGE_SIZE")
names = f["/counters"].attrs["events"].decode().split("\n")
assert "perf::PAGE-FAULTS: active via perf_event_open, inherited" in f["/counters"].attrs["status"].decode() \
    or "perf::PAGE-FAULTS: active via papi, inherited" in f["/counters"].attrs["status"].decode()
values, crank, citer = f["/counters/values"][:], f["/counters/rank"][:], f["/counters/iteration"][:]
for rank in range(2):
    main = int(re.search(rf"^rank {rank} main (\d+)$", text, re.M).group(1))
    workers = [(int(t), int(b)) for t, b in re.findall(rf"^rank {rank} worker (\d+) buffer (\d+)$", text, re.M)]
    assert len(workers) == 2, text
    mine = s[s["rank"] == rank]
    assert set(int(t) for t in mine["tid"]) <= {main} | {t for t, _ in workers}, (main, workers, set(mine["tid"]))
    for tid, lo in workers:
        inside = mine[(mine["addr"] >= lo) & (mine["addr"] < lo + 200 * page)]
        assert sorted(int(a) for a in inside["addr"]) == list(range(lo, lo + 200 * page, page)), (tid, len(inside))
        assert (inside["tid"] == tid).all() and (inside["iteration"] == 1).all(), (tid, set(inside["tid"]))
    faults = values[(crank == rank)][:, names.index("perf::PAGE-FAULTS")]
    it = citer[crank == rank]
    assert faults[it == 2][0] - faults[it == 1][0] >= 400, (faults, it)
    # perf::FAULTS, the same kernel event under a name only PAPI counts, is read through PAPI's
    # own path: its count of iteration 1 is what its status says it counts.
    alias = values[(crank == rank)][:, names.index("perf::FAULTS")]
    line = next(l for l in f["/counters"].attrs["status"].decode().split("\n") if l.startswith("perf::FAULTS: "))
    direct, papi = faults[it == 2][0] - faults[it == 1][0], alias[it == 2][0] - alias[it == 1][0]
    if "active via papi, the thread that called MPI_Init only (" in line:
        assert 0 <= papi and direct - papi >= 400, (line, direct, papi)
    elif "active via papi, inherited by threads started later" in line:
        assert papi >= 400, (line, papi)
    else:
        assert "unavailable: PAPI" in line and (alias == -1).all(), line
PY
done
# Rank 1 cannot create its side spools (directories stand where they would go): the run goes on,
# and the file says per rank what is missing: every counter sample of rank 1 in counters_lost,
# every memory sample it decoded in samples_dropped; its events' times come from the clock map
# kept in memory instead.
mkdir -p sideless.h5.spool/rank-000001.counters sideless.h5.spool/rank-000001.samples sideless.h5.spool/rank-000001.clock
RIPPLE_PAPI_EVENTS=perf::TASK-CLOCK timeout 300 "$MPIEXEC" -np 2 --oversubscribe -x RIPPLE_PAPI_EVENTS "$RIPPLE_BIN" trace \
  -o sideless.h5 --samples page-faults --sample-period 1 -- "$SUBJECTS_BIN" touch 300 > sideless.txt 2>&1 \
  || fail "run without rank 1's side spools: $(cat sideless.txt)"
/usr/bin/python3 - sideless.h5 sideless.txt <<'PY' && pass "side spools missing on one rank: its counter and memory samples counted lost, its times sane" || fail "side spools missing on one rank: $(grep 'ripple trace: rank' sideless.txt)"
import sys
import numpy as np
from trace_file import Trace
t = Trace(sys.argv[1])
f = t.file
said = open(sys.argv[2]).read()
for kind in ("counters", "samples", "clock"):
    assert f"rank 1 cannot write" in said and f"rank-000001.{kind}" in said, kind
crank, srank = f["/counters/rank"][:], f["/samples/records"]["rank"]
assert (crank == 0).sum() == 5 and (crank == 1).sum() == 0, np.bincount(crank)
assert list(f["/ranks/counters_lost"][:]) == [0, 5], f["/ranks/counters_lost"][:]
assert (srank == 1).sum() == 0 and (srank == 0).sum() > 300
dropped = f["/ranks/samples_dropped"][:]
assert dropped[0] == 0 and dropped[1] > 300, dropped
e0, e1 = t.rank(0), t.rank(1)
for e in (e0, e1):
    assert (e["t_exit"] >= e["t_enter"]).all() and (np.diff(e["t_enter"]) >= 0).all()
# Both ranks leave the same barriers at about the same time on the common clock (within 50 ms:
# scheduling on a loaded machine, not clock error, makes up most of it), and rank 1's clock runs (a
# missing map would give every event one time).
b0, b1 = t.calls("MPI_Barrier", e0)["t_exit"], t.calls("MPI_Barrier", e1)["t_exit"]
assert len(b0) == len(b1) == 3 and np.abs(b0 - b1).max() < 0.05, (b0, b1)
assert (np.diff(b1) > 0).all() and e1["t_exit"][-1] - e1["t_enter"][1] > 1e-4, (b1, e1["t_enter"][1], e1["t_exit"][-1])
PY
"$RIPPLE_BIN" trace info sideless.h5 --json > sideless.json && /usr/bin/python3 - sideless.json sideless.h5 <<'PY' \
  && "$RIPPLE_BIN" trace info sideless.h5 | grep -q "not in the file: 0 events, 0 memory samples lost in the kernel, [0-9]* dropped, 5 counter samples" \
  && pass "trace info: what each rank's file lacks" || fail "trace info losses: $(cat sideless.json)"
import json, sys
import h5py
d, f = json.load(open(sys.argv[1])), h5py.File(sys.argv[2], "r")
lost = [r["lost"] for r in d["per_rank"]]
assert lost[0] == {"events": 0, "memory_samples": 0, "memory_samples_dropped": 0, "counter_samples": 0, "requests_untracked": 0,
                   "peers_untranslated": 0}, lost
assert lost[1]["counter_samples"] == 5 and lost[1]["memory_samples_dropped"] == f["/ranks/samples_dropped"][1] > 300, lost
PY

# 150 000 page faults per rank, drained at a marker every 4096: the samples reach the file through
# the spool in several rounds of 65 536, every one in rank order with its own rank and iteration.
timeout 300 "$MPIEXEC" -np 2 --oversubscribe "$RIPPLE_BIN" trace -o many.h5 --samples page-faults --sample-period 1 -- \
  "$SUBJECTS_BIN" faults 150000 > many.txt 2>&1 || fail "150 000 faults run: $(tail -n 3 many.txt)"
/usr/bin/python3 - many.h5 <<'PY' && pass "150 000 page-fault samples per rank: written in rounds, in rank order, each in its iteration" || fail "many samples"
import os
import sys
import numpy as np
import h5py
f = h5py.File(sys.argv[1], "r")
s = f["/samples/records"][:]
lost, dropped = f["/ranks/samples_lost"][:], f["/ranks/samples_dropped"][:]
assert (np.diff(s["rank"]) >= 0).all() and set(s["rank"]) == {0, 1}
for r in range(2):
    mine = s[s["rank"] == r]
    assert len(mine) > 2 * 65536 and dropped[r] == 0, (r, len(mine), dropped[r])
    assert len(mine) + lost[r] >= 150000, (r, len(mine), lost[r])
    assert (np.diff(mine["time"]) >= 0).all(), r
    # Iteration k first-touched 4096 consecutive pages (the last one 150000 - 36 * 4096): the
    # longest run of addresses one page apart among its samples.
    page = os.sysconf("SC_PAGE_SIZE")
    for k in range(37):
        a = np.unique(mine["addr"][mine["iteration"] == k].astype(np.int64))
        step = np.diff(a) == page
        runs = np.diff(np.flatnonzero(np.concatenate(([True], ~step, [True]))))
        expected = 4096 if k < 36 else 150000 - 36 * 4096
        assert runs.max() == expected or (lost[r] > 0 and runs.max() < expected), (r, k, runs.max(), lost[r])
PY

# More memory samples waiting than RIPPLE_TRACE_MAX_SAMPLES: the rest are dropped, and counted.
RIPPLE_TRACE_MAX_SAMPLES=8 timeout 300 "$MPIEXEC" -np 2 --oversubscribe -x RIPPLE_TRACE_MAX_SAMPLES "$RIPPLE_BIN" trace \
  -o capped.h5 --samples page-faults --sample-period 1 -- "$SUBJECTS_BIN" touch 300 > capped.txt 2>&1 \
  || fail "run with 8 samples waiting at most: $(cat capped.txt)"
/usr/bin/python3 - capped.h5 faults.h5 <<'PY' && pass "RIPPLE_TRACE_MAX_SAMPLES=8: the samples beyond it dropped and counted" || fail "samples beyond RIPPLE_TRACE_MAX_SAMPLES"
import sys
import h5py
f = h5py.File(sys.argv[1], "r")
rank = f["/samples/records"]["rank"]
dropped = f["/ranks/samples_dropped"][:]
for r in range(2):
    kept = int((rank == r).sum())
    assert dropped[r] > 0 and kept + dropped[r] >= 300, (r, kept, dropped[r])
PY
finish
