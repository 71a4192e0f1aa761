#!/usr/bin/env python3
"""Crafted copies of a trace file, each given to `ripple trace info` and `info --json`.

usage: trace_reader_limits.py RIPPLE_BIN GOOD.h5
Each case once hung the reader, made it allocate far beyond what the file holds, crash, or print
invalid JSON; each must now give exit code 2 and a message naming the file and the reason (or, for
times recover could not place on the clock, NaN, a summary that leaves them out), within LIMIT
seconds. Exits 1 with the cases that failed.
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys

import h5py
import numpy as np

ripple, good = sys.argv[1], sys.argv[2]
LIMIT = 60  # seconds; every case here takes well under one: more means it hung
failures = []
notes = []
fifo = os.path.abspath("pipe")  # nobody ever writes to it: opening it for reading blocks for ever
if not os.path.exists(fifo):
    os.mkfifo(fifo)


def run(path, extra=(), memory=None, user=None):
    """(exit code or 'hung', stdout, stderr) of `ripple trace info PATH [extra]`."""
    cmd = [ripple, "trace", "info", path, *extra]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    limit = (lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))) if memory else None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT, preexec_fn=limit)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "hung", "", f"no answer within {LIMIT} s"


def crafted(name, change):
    path = name + ".h5"
    shutil.copy(good, path)
    with h5py.File(path, "r+") as f:
        change(f)
    return path


def replace(f, name, data=None, **kw):
    if name in f:
        del f[name]
    if data is None:
        f.create_dataset(name, **kw)
    else:
        f.create_dataset(name, data=data, **kw)


def refused(label, path, reason, **kw):
    for extra in ([], ["--json"]):
        rc, _, err = run(path, extra, **kw)
        if rc != 2 or path not in err or reason not in err:
            failures.append(f"{label} {' '.join(extra)}: rc={rc}, wanted 2 and '{reason}': {err.strip()[-300:]}")


def strict_json(text):
    """JSON as the standard has it: no NaN, no Infinity."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


with h5py.File(good, "r") as f:
    events = f["/events"][()]
    ranks = len(f["/ranks/count"])
    has_placement = "/ranks/placement" in f
    names = f.attrs["call_names"]
    names = (names.decode() if isinstance(names, bytes) else str(names)).split("\n")
assert ranks == 2 and len(events) > 0, "the good trace lacks events"
rc, out, err = run(good, ["--json"])
assert rc == 0, f"the good trace is refused: {err}"
assert strict_json(out).get("events_untimed") == 0, "the good trace's summary lacks events_untimed"
# An event whose time info sums (a completion's is its call's, summed there).
timed = next(k for k, e in enumerate(events) if names[e["call"]] not in ("completion", "MPI_Init", "MPI_Init_thread"))

# Sizes that wrap or exceed the file: /events and /samples/records declare 2^62 and 2^60 rows,
# chunked, none stored (n x row size wrapped to a small number, and info read pieces for ever).
EVENT = events.dtype
SAMPLE = np.dtype([("time", "f8"), ("ip", "u8"), ("addr", "u8"), ("weight", "u8"), ("data_src", "u8"), ("rank", "i4"),
                   ("iteration", "i4"), ("cpu", "i4"), ("tid", "i4"), ("level", "i4"), ("hit", "i4")])


def huge_events(f):
    replace(f, "/events", shape=(2**62,), maxshape=(None,), chunks=(1024,), dtype=EVENT)
    replace(f, "/ranks/count", np.array([2**62, 0], "i8"))
    replace(f, "/ranks/offset", np.array([0, 2**62], "i8"))


def samples_group(f, **records):
    if "samples" in f:
        del f["samples"]
    g = f.create_group("samples")
    g.attrs["status"] = np.bytes_("active: crafted")
    g.attrs["level_names"] = np.bytes_("Unknown\nL1")
    g.create_dataset("records", dtype=SAMPLE, **records)


refused("/events of 2^62 rows, none stored", crafted("huge_events", huge_events), "more bytes than the whole file holds")
refused("/samples/records of 2^60 rows, none stored",
        crafted("huge_samples", lambda f: samples_group(f, shape=(2**60,), maxshape=(None,), chunks=(1024,))),
        "more bytes than the whole file holds")


# Per-rank tables declared long and never stored: read whole before any check (2^40 rows: an
# allocation of 8 TiB, std::bad_alloc, exit 1; 2^20: a million ranks of fill values, exit 0).
def ranks_unstored(n):
    def change(f):
        for name in ("count", "offset", "lost"):
            replace(f, "/ranks/" + name, shape=(n,), maxshape=(None,), chunks=(4096,), dtype="i8")
        replace(f, "/events", np.zeros(0, EVENT))
        for name in list(f["/ranks"].keys()):
            if name not in ("count", "offset", "lost"):
                del f["/ranks/" + name]
        for group in ("samples", "counters"):
            if group in f:
                del f[group]
    return change


refused("/ranks/* of 2^10 rows, none stored", crafted("ranks_10", ranks_unstored(2**10)), "stores fewer bytes")
refused("/ranks/* of 2^20 rows, none stored", crafted("ranks_20", ranks_unstored(2**20)), "more bytes than the whole file holds")
refused("/ranks/* of 2^40 rows, none stored", crafted("ranks_40", ranks_unstored(2**40)), "more bytes than the whole file holds")


# Counter samples: `values` [rows, events] declared and never stored (read as fill values: fake
# samples, exit 0), and 2^40 rows of everything.
def counters(rows, width, stored):
    def change(f):
        if "counters" in f:
            del f["counters"]
        g = f.create_group("counters")
        g.attrs["events"] = np.bytes_("\n".join(f"e{i}" for i in range(width)))
        g.attrs["status"] = np.bytes_("crafted")
        for name, t in (("time", "f8"), ("iteration", "i4"), ("rank", "i4")):
            if stored:
                g.create_dataset(name, data=np.zeros(rows, t))
            else:
                g.create_dataset(name, shape=(rows,), maxshape=(None,), chunks=(4096,), dtype=t)
        g.create_dataset("values", shape=(rows, width), maxshape=(None, None), chunks=(min(rows, 64), min(width, 1024)), dtype="i8")
    return change


refused("/counters/values of 16 x 64, none stored", crafted("counters_small", counters(16, 64, True)), "stores fewer bytes")
refused("/counters/values of 2^10 x 2^12, none stored", crafted("counters_wide", counters(2**10, 2**12, True)),
        "/counters/values claims 1024 rows, more bytes than the whole file holds")
refused("/counters/* of 2^40 rows, none stored", crafted("counters_huge", counters(2**40, 4, False)),
        "more bytes than the whole file holds")

# Data outside the file: external storage (H5Dget_storage_size reports the size declared; /dev/zero
# gave fake rows, a FIFO blocked for ever), a virtual dataset mapping a FIFO, external links to it
# (a dataset, a group, and a soft link inside the file that leads to one).
def external_storage(name, target):
    def change(f):
        shape, dtype = f[name].shape, f[name].dtype
        del f[name]
        f.create_dataset(name, shape=shape, dtype=dtype, external=[(target, 0, h5py.h5f.UNLIMITED)])
    return change


def virtual(f):
    layout = h5py.VirtualLayout(shape=(ranks,), dtype="i8")
    layout[:] = h5py.VirtualSource(fifo, "x", shape=(ranks,))
    del f["/ranks/lost"]
    f.create_virtual_dataset("/ranks/lost", layout, fillvalue=0)


def linked(name, soft=False):
    def change(f):
        if name in f:
            del f[name]
        if soft:
            f["/elsewhere"] = h5py.ExternalLink(fifo, "/x")
            f[name] = h5py.SoftLink("/elsewhere")
        else:
            f[name] = h5py.ExternalLink(fifo, "/x")
    return change


refused("/events stored in /dev/zero", crafted("external_zero", external_storage("/events", "/dev/zero")),
        "/events keeps its data outside the file")
refused("/ranks/lost stored in a FIFO", crafted("external_fifo", external_storage("/ranks/lost", fifo)),
        "/ranks/lost keeps its data outside the file")
refused("/ranks/lost a virtual dataset of a FIFO", crafted("virtual", virtual), "/ranks/lost keeps its data outside the file")
refused("/ranks/lost an external link to a FIFO", crafted("elink", linked("/ranks/lost")), "/ranks/lost is a link to another file")
refused("/counters an external link to a FIFO", crafted("elink_group", linked("/counters")), "/counters is a link to another file")
refused("/ranks/lost a soft link to an external link", crafted("elink_soft", linked("/ranks/lost", soft=True)),
        "cannot read /ranks/lost")

# Placement rows without the fields that info prints, or with the wrong kind of field, were read as
# defaults (node -1, host "").
if has_placement:
    def placement(change_dtype):
        def change(f):
            p = f["/ranks/placement"][()]
            dtype = change_dtype(p.dtype)
            q = np.zeros(len(p), dtype)
            for n in dtype.names:
                q[n] = p[n]
            replace(f, "/ranks/placement", q)
        return change

    without = lambda field: placement(lambda d: np.dtype([(n, d[n]) for n in d.names if n != field]))
    refused("/ranks/placement without node", crafted("placement_node", without("node")), "/ranks/placement lacks the field 'node'")
    refused("/ranks/placement without host", crafted("placement_host", without("host")), "/ranks/placement lacks the field 'host'")
    refused("/ranks/placement with node as a float",
            crafted("placement_float", placement(lambda d: np.dtype([(n, "f8" if n == "node" else d[n]) for n in d.names]))),
            "/ranks/placement's field 'node' is not an integer")
else:
    notes.append("the trace has no /ranks/placement here: its cases are not run")
refused("/events with t_enter as an integer",
        crafted("events_int_time", lambda f: replace(f, "/events", events.astype([(n, "i8" if n == "t_enter" else events.dtype[n])
                                                                                  for n in events.dtype.names]))),
        "/events's field 't_enter' is not a floating-point number")


# Times. NaN is what recover (and the writer) give a raw record whose time no recorder writes: info
# counts such events but leaves them out of every time, and says how many. Infinite times are never
# written: refused; so are finite ones whose differences or sums overflow.
def times(t_enter, t_exit):
    def change(f):
        e = f["/events"][()]
        e["t_enter"][timed], e["t_exit"][timed] = t_enter, t_exit
        replace(f, "/events", e)
    return change


for label, change in (("t_enter NaN", times(np.nan, 0.5)), ("t_exit NaN", times(0.5, np.nan)), ("both NaN", times(np.nan, np.nan))):
    path = crafted("nan_" + label.split()[0], change)
    rc, out, err = run(path, ["--json"])
    try:
        summary = strict_json(out) if rc == 0 else None
    except ValueError as e:
        summary, err = None, f"invalid JSON ({e}): {out[:300]}"
    if summary is None:
        failures.append(f"{label}: rc={rc}, wanted 0 and valid JSON: {err.strip()[-300:]}")
        continue
    calls = sum(c["count"] for r in summary["per_rank"] for c in r["calls"].values())
    if summary.get("events_untimed") != 1 or calls != len(events) or summary["duration"] <= 0:
        failures.append(f"{label}: events_untimed {summary.get('events_untimed')} (wanted 1), {calls} calls of {len(events)}, "
                        f"duration {summary['duration']}")
    rc, out, err = run(path)
    if rc != 0 or re.search(r"\b(nan|inf)\b", out.replace(path, ""), re.I) or "1 without a known time" not in out:
        failures.append(f"{label}, text: rc={rc}, wanted 0, no 'nan' and '1 without a known time': {(out + err)[:400]}")
refused("t_exit infinite", crafted("inf", times(0.0, np.inf)), "has an infinite time")
refused("t_enter minus infinity", crafted("minus_inf", times(-np.inf, 0.0)), "has an infinite time")
refused("finite times whose difference overflows", crafted("overflow", times(-1.5e308, 1.5e308)), "the events' times overflow")

# A call name of a megabyte (a variable-length attribute has no 64 KiB limit) padded every row of
# the text table to its width.
def long_name(f):
    f.attrs["call_names"] = "\n".join(names + ["x" * 2**20])
refused("a call name of 1 MiB", crafted("long_name", long_name), "call_names holds a name of 1048576 bytes")

# The path itself: a FIFO blocked HDF5's open for ever; what the system says (no such file, not a
# directory, permission denied) was hidden behind "not an HDF5 file".
refused("a FIFO", "pipe", "not a regular file (a FIFO)")
os.makedirs("adir", exist_ok=True)
refused("a directory", "adir", "not a regular file (a directory)")
refused("a missing file", "missing.h5", "cannot open: No such file or directory")
shutil.copy(good, "plain.h5")
refused("a path through a file", "plain.h5/x.h5", "cannot open: Not a directory")
shutil.copy(good, "noperm.h5")
os.chmod("noperm.h5", 0)
if os.geteuid() != 0:
    refused("a file without read permission", "noperm.h5", "cannot open: Permission denied")
elif shutil.which("setpriv") and run(os.path.abspath("plain.h5"), user=65534)[0] == 0:
    refused("a file without read permission (as nobody)", "noperm.h5", "cannot open: Permission denied", user=65534)
else:
    notes.append("root without a way to run as nobody: the permission case is not run")

# Memory exhausted: a file of 4 Mi ranks (stored, as 8-bit integers: 12 MB) under an address
# space limit the good trace fits in, with room to spare but not for those tables: std::bad_alloc
# is bad input (exit 2 and a message), not exit 1. The limit is the least the good trace needs here
# (a bisection in MiB), plus 16 MiB: the first table, 32 MiB, cannot fit.
def million_ranks(f):
    n = 2**22
    for name in ("count", "offset", "lost"):
        replace(f, "/ranks/" + name, np.zeros(n, "i1"))
    replace(f, "/events", np.zeros(0, EVENT))
    for name in list(f["/ranks"].keys()):
        if name not in ("count", "offset", "lost"):
            del f["/ranks/" + name]
    for group in ("samples", "counters"):
        if group in f:
            del f[group]


MiB = 2**20
low, high = 16, 4096
if run(good, ["--json"], memory=high * MiB)[0] != 0:
    notes.append("the good trace needs more than 4 GiB of address space here (a sanitizer build?): the memory case is not run")
else:
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if run(good, ["--json"], memory=mid * MiB)[0] == 0 else (mid, high)
    refused("2^22 ranks under an address space limit", crafted("million_ranks", million_ranks), "not enough memory",
            memory=(high + 16) * MiB)

for note in notes:
    print("note:", note)
print(f"{len(failures)} failures")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
