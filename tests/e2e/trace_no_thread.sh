#!/usr/bin/env bash
# The tracer's background thread cannot be created (thread_faults.c makes it fail, as a full pids
# cgroup would): the run goes on traced, events reach the spool when the ring is full, and nothing
# is lost; the trace says why there was no background thread.
source "$(dirname "$0")/lib.sh"
: "${SUBJECTS_BIN:?}" "${THREAD_FAULTS_LIB:?}"

# 20 000 iterations markers on rank 0 through a ring of 1 MiB (11 915 events): rank 0 spools a full
# ring itself, more than once.
timeout 300 $MPIEXEC -np 2 -x LD_PRELOAD="$THREAD_FAULTS_LIB" "$RIPPLE_BIN" trace -o nothread.h5 --samples off --buffer-mib 1 \
  -- "$SUBJECTS_BIN" markers 20000 > nothread.txt 2>&1 || fail "run without a tracer thread: $(tail -n 3 nothread.txt)"
grep -q "thread_faults: the first thread after PMPI_Init fails" nothread.txt || fail "the fault was not injected: $(cat nothread.txt)"
grep -q "ripple trace: no background thread" nothread.txt || fail "rank 0 did not say it: $(cat nothread.txt)"
/usr/bin/python3 - nothread.h5 << 'PY' && pass "no tracer thread: traced all the same, full rings spooled by the rank, nothing lost" || fail "no-thread trace"
import json, sys
from trace_file import Trace
t = Trace(sys.argv[1])
assert list(t.file["/ranks/lost"][:]) == [0, 0]
for rank, markers in ((0, 20000), (1, 2000)):
    assert len(t.calls("MPI_Pcontrol", t.rank(rank))) == markers, (rank, len(t.calls("MPI_Pcontrol", t.rank(rank))))
    sources = json.loads(t.file["/ranks/sources"][rank])
    assert "no tracer thread (" in sources["hwloc"] and "not at the flush interval" in sources["hwloc"], sources["hwloc"]
PY
finish
