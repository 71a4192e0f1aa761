#!/usr/bin/env python3
"""Damaged copies of a trace file, each given to `ripple trace info` and `info --json`.

usage: trace_corrupt.py RIPPLE_BIN GOOD.h5
       trace_corrupt.py --spools RIPPLE_BIN SPOOL_DIR
Targeted damage must give exit code 2 and a message naming the file and the reason; a seeded sweep
of random damage must give exit code 0 (the damage did not matter) or 2 (said why), never a signal
or another code. Exits 1 with the cases that failed.
With --spools, a seeded sweep of damaged copies of a killed run's spool directory (bytes flipped in
one file, its headers' bits flipped, the file cut), each given to `ripple trace recover`: exit code 2
(said why), or 0 with a file that `trace info` and `info --json` (valid JSON) accept, within a
timeout (recover hung on a FIFO), and never far larger than the spools.
"""
import json
import os
import random
import shutil
import subprocess
import sys

import h5py
import numpy as np


def sweep_spools(ripple, spools, cases=150):
    failures = []
    rng = random.Random(7)
    names = sorted(n for n in os.listdir(spools) if n.startswith("rank-"))  # the spools (not the run's empty .lock)
    size = sum(os.path.getsize(os.path.join(spools, n)) for n in names)
    for k in range(cases):
        shutil.rmtree("swept.spool", ignore_errors=True)
        shutil.copytree(spools, "swept.spool")
        name = rng.choice(names)
        path = os.path.join("swept.spool", name)
        b = bytearray(open(path, "rb").read())
        how = rng.choice(["flipped", "flipped", "header bits flipped", "cut"])
        if how == "flipped":
            for _ in range(rng.choice([1, 4, 32])):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif how == "header bits flipped":  # within the first 128 bytes: the headers and the names after them
            for _ in range(rng.choice([1, 2])):
                b[rng.randrange(min(128, len(b)))] ^= 1 << rng.randrange(8)
        else:
            b = b[: rng.randrange(len(b))]
        open(path, "wb").write(b)
        if os.path.exists("swept.h5"):
            os.remove("swept.h5")
        label = f"{name} {how} (seed 7, case {k})"
        try:
            r = subprocess.run([ripple, "trace", "recover", "swept.spool", "-o", "swept.h5"], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            failures.append(f"{label}: recover hung")
            continue
        if r.returncode == 2:
            continue
        if r.returncode != 0:
            failures.append(f"{label}: recover rc={r.returncode} {r.stderr.decode(errors='replace')[-300:]}")
            continue
        for extra in ([], ["--json"]):
            i = subprocess.run([ripple, "trace", "info", "swept.h5"] + extra, capture_output=True, timeout=60)
            if i.returncode != 0:
                failures.append(f"{label}: recover rc=0, info{' --json' if extra else ''} rc={i.returncode}: "
                                f"{i.stderr.decode(errors='replace')[-300:]}")
                break
            if extra:
                try:
                    json.loads(i.stdout)
                except ValueError as e:
                    failures.append(f"{label}: info --json is not JSON: {e}")
        if os.path.getsize("swept.h5") > 20 * size + (1 << 20):
            failures.append(f"{label}: a {os.path.getsize('swept.h5')}-byte file from {size} bytes of spools")
    print(f"{cases} damaged spool directories, {len(failures)} failures")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if sys.argv[1] == "--spools":
    sweep_spools(sys.argv[2], sys.argv[3])
ripple, good = sys.argv[1], sys.argv[2]
failures = []


def info(path):
    """The worst of info and info --json: (exit code, stderr)."""
    worst = (0, "")
    for extra in ([], ["--json"]):
        p = subprocess.run([ripple, "trace", "info", path] + extra, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            worst = (p.returncode, p.stderr)
    return worst


def damaged(label, change, path="damaged.h5"):
    shutil.copy(good, path)
    with h5py.File(path, "r+") as f:
        change(f)
    return path


def replace(f, name, data):
    del f[name]
    f[name] = data


def with_field(name, field, value):
    def change(f):
        rows = f[name][()]
        rows[field] = value
        replace(f, name, rows)
    return change


def expect(label, change, reason):
    rc, err = info(damaged(label, change))
    if rc != 2 or "damaged.h5" not in err or reason not in err:
        failures.append(f"{label}: rc={rc}, wanted 2 and '{reason}': {err.strip()[-300:]}")


with h5py.File(good, "r") as f:
    events = f["/events"][()]
    ranks = len(f["/ranks/count"])
    assert ranks == 4 and len(events) > 0, "the good trace lacks events"
    # Samples and counters need perf_event_open (software events): absent where it is refused.
    has_samples = "/samples/records" in f and len(f["/samples/records"]) > 0
    has_counters = "/counters/rank" in f and len(f["/counters/rank"]) > 0
for table, present in (("memory samples", has_samples), ("counters", has_counters)):
    if not present:
        print(f"note: the trace has no {table} here (perf_event_open refused?): their cases are not run")

# Targeted: each must be refused with its reason.
huge = 2**62
expect("counts that do not add up to the events", lambda f: replace(f, "/ranks/count", np.array([1, 2, 3, 4])),
       "/ranks/offset and /ranks/count disagree")
expect("counts whose sum overflows", lambda f: (replace(f, "/ranks/count", np.array([huge, huge, 0, 0], "i8")),
                                                 replace(f, "/ranks/offset", np.array([0, huge, 0, 0], "i8"))),
       "/ranks/offset and /ranks/count disagree")
expect("a negative count of lost events", lambda f: replace(f, "/ranks/lost", np.array([0, -5, 0, 0])),
       "/ranks/lost holds an impossible count (-5)")
expect("lost events whose sum overflows", lambda f: replace(f, "/ranks/lost", np.full(4, huge)),
       "/ranks/lost holds an impossible count")
expect("samples lost below -1 (unknown)", lambda f: replace(f, "/ranks/samples_lost", np.array([0, 0, -2, 0])),
       "/ranks/samples_lost holds an impossible count (-2)")
expect("a node index beyond the ranks", with_field("/ranks/placement", "node", 2**31 - 1),
       "/ranks/placement names node 2147483647")
expect("an event of rank 99", with_field("/events", "rank", 99), "an event names rank 99 of 4")
expect("events without their peer field", lambda f: replace(f, "/events", events[[n for n in events.dtype.names if n != "peer"]]),
       "/events lacks the field 'peer'")
expect("events as plain numbers", lambda f: replace(f, "/events", np.zeros(len(events))), "/events is not a table")
expect("a per-rank table of the wrong length", lambda f: replace(f, "/ranks/offset", np.zeros(3, "i8")),
       "/ranks/offset has the wrong length")
expect("counts as floating point", lambda f: replace(f, "/ranks/count", np.zeros(4)), "/ranks/count is not integer")
expect("a newer schema", lambda f: f.attrs.__setitem__("schema_version", np.int64(99)), "schema_version 99")
expect("byte counts whose sum overflows", with_field("/events", "bytes", huge), "byte counts overflow")
if has_samples:
    expect("a sample of rank -3", with_field("/samples/records", "rank", -3), "a sample names rank -3 of 4")
if has_counters:
    expect("a counter sample of rank 7", lambda f: replace(f, "/counters/rank", np.full(len(f["/counters/rank"]), 7, "i4")),
           "a counter sample names rank 7 of 4")
expect("no /ranks", lambda f: f.__delitem__("/ranks"), "/ranks is missing")
expect("per-rank sources of the wrong length", lambda f: replace(f, "/ranks/sources", f["/ranks/sources"][:3]),
       "/ranks/sources does not have one row per rank")
expect("per-rank sources as variable-length strings",
       lambda f: replace(f, "/ranks/sources", np.array([s.decode() for s in f["/ranks/sources"][:]], dtype=h5py.string_dtype())),
       "/ranks/sources is not a table of fixed-length strings")
expect("sources that are not JSON", lambda f: f.attrs.__setitem__("sources", "{\"mpi\": \"active\", \"perf"),
       "the attribute sources is not a JSON object")
expect("a rank's sources that are not JSON",
       lambda f: replace(f, "/ranks/sources", np.array([r.replace(b'"mpi"', b'mpi') for r in f["/ranks/sources"][:]])),
       "rank 0's row of /ranks/sources is not a JSON object")
expect("per-rank sources as numbers", lambda f: replace(f, "/ranks/sources", np.zeros(4, "i8")),
       "/ranks/sources is not a table of fixed-length strings")
# Unknown (-1) losses are what recovered files hold: accepted.
rc, err = info(damaged("unknown losses", lambda f: replace(f, "/ranks/samples_lost", np.full(4, -1))))
if rc != 0:
    failures.append(f"samples_lost of -1 (unknown) refused: rc={rc} {err.strip()[-300:]}")

# A seeded sweep: exit 0 or 2 only.
sweep = 0


def swept(label, path):
    global sweep
    sweep += 1
    rc, err = info(path)
    if rc not in (0, 2):
        failures.append(f"{label}: rc={rc} {err.strip()[-300:]}")


names = []
with h5py.File(good, "r") as f:
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
rng = random.Random(7)
for name in names:
    with h5py.File(good, "r") as f:
        value = f[name][()]
    shape, dtype = value.shape, value.dtype
    changes = [("dropped", lambda f: f.__delitem__(name)),
               ("as int8", lambda f: replace(f, name, np.zeros(shape, "i1"))),
               ("empty", lambda f: replace(f, name, np.zeros((0,), dtype))),
               ("scalar", lambda f: replace(f, name, np.zeros((), dtype)))]
    if len(shape) >= 1 and shape[0] > 0:
        changes += [("shorter", lambda f: replace(f, name, value[:-1])),
                    ("longer", lambda f: replace(f, name, np.concatenate([value, value[:1]]))),
                    ("2-D", lambda f: replace(f, name, np.stack([value, value], axis=-1)))]
    if dtype.names is None and dtype.kind in "iu":
        changes += [(f"= {v}", lambda f, v=v: replace(f, name, np.full(shape, v).astype(dtype))) for v in (-1, -(2**40), huge)]
    for field in dtype.names or ():
        if dtype[field].kind in "iu":
            for v in (-1, 2**31 - 1, -(2**31)):
                changes.append((f".{field} = {v}", lambda f, field=field, v=v: with_field(name, field, np.array(v).astype(dtype[field]))(f)))
        elif dtype[field].kind == "f":
            changes.append((f".{field} = nan", lambda f, field=field: with_field(name, field, np.nan)(f)))
    for what, change in changes:
        swept(f"{name} {what}", damaged(f"{name} {what}", change))
data = open(good, "rb").read()
# Bytes flipped in the root group's object header (past the superblock, where HDF5 keeps the root's
# attributes in a small file): the file is damaged, not foreign.
header = bytearray(data)
header[1000:1004] = b"\xff\xff\xff\xff"
open("damaged.h5", "wb").write(header)
rc, err = info("damaged.h5")
if rc != 2 or "the file is damaged" not in err:
    failures.append(f"root header flipped: rc={rc}, wanted 2 and 'the file is damaged': {err.strip()[-300:]}")
for k in range(60):
    b = bytearray(data)
    for _ in range(rng.choice([1, 4, 32])):
        b[rng.randrange(len(b))] = rng.randrange(256)
    open("flipped.h5", "wb").write(b)
    swept(f"bytes flipped (seed 7, case {k})", "flipped.h5")
for k in range(20):
    open("cut.h5", "wb").write(data[: rng.randrange(len(data))])
    swept(f"cut (seed 7, case {k})", "cut.h5")

print(f"{sweep} swept cases, {len(failures)} failures")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
