#!/usr/bin/env python3
"""Reads a Ripple trace (docs/trace-format.md) with Ripple's Python reader and prints, per rank, the
number of calls of each MPI function. Usage: read_trace.py TRACE.h5"""
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plots"))  # ripple_plots, beside this folder
from ripple_plots.reader import FormatError, Trace  # noqa: E402


def main(path):
    try:
        t = Trace(path)
    except FormatError as e:
        sys.exit(str(e))
    for rank in range(len(t.offset)):
        calls = Counter(t.names[c] for c in t.rank(rank)["call"])
        print(f"rank {rank}: " + ", ".join(f"{name} {count}" for name, count in sorted(calls.items())))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
