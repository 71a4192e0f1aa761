#!/usr/bin/env bash
# The sampler under the kernel's locked-memory limit for perf ring buffers, for real: four ranks of
# one unprivileged user, each with its own `ulimit -l`, perf_event_mlock_kb set to 0 so that every
# ring page counts against that limit alone. Rank 0 keeps the default limit (full rings); rank 1's
# allows eighth-size rings on every CPU (all rings halved alike, with the status saying so); rank
# 2's allows no per-CPU rings but one small ring for the thread that called MPI_Init (the fallback:
# its samples are that thread's only); rank 3's allows none (unavailable, with the reason). Every
# rank's own status is in /ranks/sources and `info` shows the ranks that differ from rank 0.
# Needs root (to set the sysctl, restored at exit or by the next run, and to run as nobody); else not
# run (77).
source "$(dirname "$0")/lib.sh"
: "${SUBJECTS_BIN:?}"
knob=/proc/sys/kernel/perf_event_mlock_kb
skip() {
  echo "not run: $*"
  exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v setpriv > /dev/null || skip "no setpriv (util-linux)"
id nobody > /dev/null 2>&1 || skip "no user nobody"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -le 2 ] || skip "perf_event_paranoid > 2: no perf events for unprivileged users"
[ "$paranoid" -ge 0 ] || skip "perf_event_paranoid -1: the kernel applies no locked-memory limit to ring buffers"
cpus=$(nproc)
[ "$cpus" -ge 2 ] || skip "one CPU: the per-CPU rings and the thread-only fallback cannot be told apart"
mkdir -m 1777 -p shared
setpriv --reuid nobody --regid nogroup --clear-groups test -x "$RIPPLE_BIN" -a -x "$SUBJECTS_BIN" -a -w shared \
  || skip "user nobody cannot run the build's programs or write in $PWD (a build under a private directory?)"
# The value to restore is kept beside the work directory too, for a run killed before its traps ran
# (SIGKILL, a ctest timeout): the next run puts it back first.
saved="$(dirname "$PWD")/trace_ring_limit.perf_event_mlock_kb"
if [ -s "$saved" ]; then cat "$saved" > "$knob" 2> /dev/null && rm -f "$saved"; fi
old=$(cat "$knob")
restore() { echo "$old" > "$knob" && rm -f "$saved"; }
echo "$old" > "$saved"
echo 0 > "$knob" 2> /dev/null || skip "$knob is not writable here"
trap restore EXIT
trap 'restore; exit 1' INT TERM HUP

page=$(getconf PAGESIZE)
# What the sampler asks per CPU: its 256 pages shared out, a power of two (sampler.cpp).
each=256
while [ "$each" -gt 1 ] && [ $((each * cpus)) -gt 256 ]; do each=$((each / 2)); done
[ "$each" -ge 2 ] || skip "$cpus CPUs: one page per ring already, nothing to halve"
eighth=$((each / 8 > 0 ? each / 8 : 1))
# Limits in KiB: rank 1, room for rings of `eighth` pages (and their header pages) on every CPU;
# rank 2, one page less than rings of one page on every CPU take.
kib() { echo $(($1 * page / 1024)); }
limit1=$(kib $(((eighth + 1) * cpus)))
limit2=$(kib $((2 * cpus - 1)))
cat > shared/limited.sh << EOF
#!/bin/bash
set -e  # a limit that cannot be set fails the run, not the assertions
case \$OMPI_COMM_WORLD_RANK in 1) ulimit -l $limit1 ;; 2) ulimit -l $limit2 ;; 3) ulimit -l 0 ;; esac
exec "\$@"
EOF
chmod 755 shared/limited.sh
rank0_limit=$(ulimit -l)
set +e
setpriv --reuid nobody --regid nogroup --clear-groups env HOME="$PWD/shared" bash -c "cd '$PWD/shared' && timeout 300 \
  '$MPIEXEC' -np 4 --oversubscribe --bind-to none ./limited.sh '$RIPPLE_BIN' trace -o limits.h5 --samples page-faults \
  --sample-period 1 -- '$SUBJECTS_BIN' workers 2 100" > run.txt 2>&1
rc=$?
set -e
restore  # at once: the rest reads files only
[ "$rc" -eq 0 ] || fail "the run under limits: rc $rc: $(tail -n 5 run.txt)"
"$RIPPLE_BIN" trace info shared/limits.h5 > info.txt && "$RIPPLE_BIN" trace info shared/limits.h5 --json > info.json \
  || fail "info: $(cat info.txt)"
/usr/bin/python3 - shared/limits.h5 run.txt info.txt info.json "$cpus" "$each" "$eighth" "$rank0_limit" "$page" << 'PY' \
  && pass "ring buffers under the locked-memory limit: full, halved alike, thread-only fallback, unavailable; each rank's status in the file" \
  || fail "ring buffers under the locked-memory limit"
import json, re, sys
import h5py
path, run, info_txt, info_json = sys.argv[1:5]
cpus, each, eighth, rank0_limit, page = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[8], int(sys.argv[9])
f = h5py.File(path, "r")
text = open(run).read()
perf = [json.loads(r)["perf"] for r in f["/ranks/sources"][:]]
assert json.loads(f.attrs["sources"])["perf"] == perf[0] and f["/samples"].attrs["status"].decode() == perf[0], perf[0]
per_cpu = f"the thread that called MPI_Init and those it starts, on the {cpus} CPU{'s' if cpus > 1 else ''} of its binding"
if rank0_limit == "unlimited" or int(rank0_limit) * 1024 >= (each + 1) * cpus * page:
    assert perf[0].endswith(per_cpu + f", {'rings' if cpus > 1 else 'a ring'} of {each} data pages" + (" each" if cpus > 1 else "")), perf[0]
assert per_cpu in perf[1] and f"of {eighth} data pages" in perf[1] and f"({each} asked; halved while the locked-memory limit refused" in perf[1], perf[1]
thread_only = 1
while 2 * thread_only + 1 <= 2 * cpus - 1 and 2 * thread_only <= 256:
    thread_only *= 2  # the largest power of two whose ring (and header page) fits
if cpus > 1:
    assert perf[2].startswith("active: page-faults") and "the thread that called MPI_Init only (per CPU: mmap of the sample ring" in perf[2], perf[2]
    assert "Operation not permitted (the locked-memory limit" in perf[2] and f"a ring of {thread_only} data pages (256 asked" in perf[2], perf[2]
assert perf[3].startswith("unavailable: mmap of the sample ring buffer") and "(the locked-memory limit: perf_event_mlock_kb" in perf[3], perf[3]
# Whose samples: workers' where their CPUs have rings, the main thread's alone in the fallback, none unavailable.
s = f["/samples/records"][:]
for rank in range(4):
    main = int(re.search(rf"^rank {rank} main (\d+)$", text, re.M).group(1))
    workers = {int(t) for t in re.findall(rf"^rank {rank} worker (\d+) buffer", text, re.M)}
    tids = {int(t) for t in s[s["rank"] == rank]["tid"]}
    if rank <= 1:
        assert workers and workers <= tids <= workers | {main}, (rank, tids, workers)
    elif rank == 2 and cpus > 1:
        assert tids == {main}, (rank, tids, main)
    elif rank == 3:
        assert not tids, tids
assert (f["/ranks/samples_lost"][:] >= 0).all() and (f["/ranks/samples_dropped"][:] == 0).all()
# info: the ranks whose sources differ from rank 0's, each with its own; --json per rank.
shown = re.findall(r"^sources of rank (\d) \(not as rank 0's\): (.*)$", open(info_txt).read(), re.M)
assert [(int(r), json.loads(j)["perf"]) for r, j in shown] == [(r, perf[r]) for r in (1, 2, 3)], shown
info = json.load(open(info_json))
assert [r["sources"]["perf"] for r in info["per_rank"]] == perf and info["sources"]["perf"] == perf[0]
PY
finish
