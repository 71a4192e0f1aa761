#!/usr/bin/env python3
"""Prints an idle wave from a `ripple sim` file as text: one line per stored time, one column per
oscillator, showing how many periods each oscillator is behind the one furthest ahead. Reads schema
versions 1 and 2; with /iteration_end (version 2, `[output] iterations = true`) it also says how
many iterations the oscillators completed."""
import sys

import h5py
import numpy as np

SHADES = " .:-=+*#%@"
VERSIONS = (1, 2, 3)  # schema versions this script reads


def text(value) -> str:
    """Fixed-length HDF5 strings come back as bytes."""
    return value.decode() if isinstance(value, bytes) else str(value)


def main(path: str, rows: int = 24) -> None:
    with h5py.File(path, "r") as f:
        if text(f.attrs["schema"]) != "ripple-sim" or int(f.attrs["schema_version"]) not in VERSIONS:
            sys.exit(f"{path}: not a ripple-sim file of version {' or '.join(map(str, VERSIONS))}")
        time = f["/time"][:]
        phase = f["/phase"]
        n = phase.shape[1]
        step = max(1, n // 64)
        picks = np.linspace(0, len(time) - 1, rows).astype(int)
        rows_behind = []
        for k in picks:
            row = phase[k, ::step]
            rows_behind.append((row.max() - row) / (2 * np.pi))
        scale = max(max(b.max() for b in rows_behind), 1e-12)
        print(f"{path}: {n} oscillators, t = {time[0]:g} .. {time[-1]:g} s; periods behind the leader "
              f"(each column {step} oscillator(s), '{SHADES[-1]}' = {scale:.3g} periods)")
        for k, behind in zip(picks, rows_behind):
            levels = np.clip((behind / scale * (len(SHADES) - 1)).round().astype(int), 0, len(SHADES) - 1)
            print(f"t = {time[k]:8.4f} s |{''.join(SHADES[l] for l in levels)}| max {behind.max():6.3f}")
        print(f"final order parameter r = {f['/order_parameter'][-1]:.6f}")
        if "/iteration_end" in f:
            ends = f["/iteration_end"]
            # Row blocks: [N, K] may not fit in memory.
            done = np.concatenate([np.count_nonzero(~np.isnan(ends[i:i + 65536, :]), axis=1)
                                   for i in range(0, n, 65536)])
            print(f"iterations completed in the run: {done.min()} .. {done.max()} (K = {ends.shape[1]})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: show_lag.py FILE.h5")
    main(sys.argv[1])
