#!/usr/bin/env python3
"""Reads a Ripple trace (schema ripple-trace v1, docs/trace-format.md) with h5py and prints, per rank,
the number of calls of each MPI function. Usage: read_trace.py TRACE.h5"""
import sys
from collections import Counter

import h5py


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def main(path):
    with h5py.File(path, "r") as f:
        if text(f.attrs["schema"]) != "ripple-trace" or int(f.attrs["schema_version"]) != 1:
            sys.exit(f"{path}: not a ripple-trace version 1 file")
        names = text(f.attrs["call_names"]).split("\n")
        events = f["/events"][:]
        offsets, counts = f["/ranks/offset"][:], f["/ranks/count"][:]
        for rank, (first, n) in enumerate(zip(offsets, counts)):
            mine = events[first:first + n]
            calls = Counter(names[c] for c in mine["call"])
            print(f"rank {rank}: " + ", ".join(f"{name} {count}" for name, count in sorted(calls.items())))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
