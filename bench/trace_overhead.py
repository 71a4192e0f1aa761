#!/usr/bin/env python3
"""The tracer's cost on a 2-rank ping-pong, side by side with the same binary untraced.

Reports the median added time per intercepted call (each iteration is 2 calls per rank), by default
and with a ring that holds the whole loop (nothing spooled until MPI_Finalize), the same for the
recording path alone (bench/trace_hotpath.cpp: one rank, peers MPI_PROC_NULL), the null
MPI_Test and MPI_Iprobe polling loops, whether
10^7 events per rank are recorded without loss within the default memory bound, and the events per
second per rank that MPI_Finalize writes.

usage: bench/trace_overhead.py BUILD_DIR [--iterations 1000000] [--repeats 5] [--big 5000000]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

import h5py

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


# A ring that holds the whole loop, spooled only at MPI_Finalize: the recording path's own cost,
# without the flusher's (which on a node with no spare core comes out of the ranks' time).
NO_SPOOL = ["--buffer-mib", "1024", "--flush-seconds", "1000"]


def held_ring_events():
    """The ring's events under NO_SPOOL, as the recorder sizes it: the largest power of two of
    88-byte events within the bound."""
    fit, slots = (1024 << 20) // 88, 1024
    while slots * 2 <= fit:
        slots *= 2
    return slots


def run(build, iterations, trace=None, clock="auto", options=()):
    cmd = ["mpirun", "-np", "2", "--bind-to", "core", "-x", "RIPPLE_TRACE_CLOCK",
           os.path.join(build, "bench", "ripple_trace_pingpong"), str(iterations)]
    if trace:
        cmd = cmd[:7] + [os.path.join(build, "cli", "ripple"), "trace", "-o", trace, "--samples", "off", *options,
                         "--"] + cmd[7:]
    out = subprocess.run(cmd, check=True, env=dict(ENV, RIPPLE_TRACE_CLOCK=clock), capture_output=True,
                         text=True).stdout
    os.sync()  # the trace's write-back would otherwise fall into the next run's loop
    return json.loads(out.strip().splitlines()[-1])


def run_hotpath(build, trace=None, kind="sendrecv", calls=100000):
    """ns per call on one rank (median of 5 rounds of `calls`) of MPI_Send/MPI_Recv to MPI_PROC_NULL
    (sendrecv: the recording path without the interconnect, and at 10^5 calls without a spool
    write: the ring holds them all), MPI_Test on MPI_REQUEST_NULL (test) or MPI_Iprobe on
    MPI_PROC_NULL (iprobe)."""
    cmd = ["mpirun", "-np", "1", "--bind-to", "core", os.path.join(build, "bench", "ripple_trace_hotpath"), str(calls), "5",
           kind]
    if trace:
        cmd = cmd[:5] + [os.path.join(build, "cli", "ripple"), "trace", "-o", trace, "--samples", "off", "--"] + cmd[5:]
    out = subprocess.run(cmd, check=True, env=ENV, capture_output=True, text=True).stdout
    os.sync()
    return json.loads(out.strip().splitlines()[-1])["ns_per_call"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--iterations", type=int, default=1000000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--big", type=int, default=5000000, help="iterations of the loss test (2 calls per rank each)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        plain, traced, mono, held = [], [], [], []
        for _ in range(args.repeats):  # alternated, so all see the same machine state
            plain.append(run(args.build, args.iterations)["loop_seconds"])
            traced.append(run(args.build, args.iterations, os.path.join(work, "t.h5"))["loop_seconds"])
            mono.append(run(args.build, args.iterations, os.path.join(work, "m.h5"), "monotonic")["loop_seconds"])
            if 2 * args.iterations + 16 <= held_ring_events() // 4:  # spooled at a quarter: not in the loop
                held.append(run(args.build, args.iterations, os.path.join(work, "n.h5"), options=NO_SPOOL)["loop_seconds"])
        with h5py.File(os.path.join(work, "t.h5"), "r") as f:
            source = f.attrs["clock_source"].decode()
        calls = 2 * args.iterations
        added = (statistics.median(traced) - statistics.median(plain)) / calls * 1e9
        added_mono = (statistics.median(mono) - statistics.median(plain)) / calls * 1e9
        print(f"ping-pong, {args.iterations} round trips x {args.repeats}: untraced {statistics.median(plain) / calls * 1e9:.1f} ns "
              f"per call, traced {statistics.median(traced) / calls * 1e9:.1f} ns: {added:.1f} ns added per intercepted call (median)"
              f"\n  clock: {source}\n  with RIPPLE_TRACE_CLOCK=monotonic: {added_mono:.1f} ns added")
        if held:
            added_held = (statistics.median(held) - statistics.median(plain)) / calls * 1e9
            print(f"  with {' '.join(NO_SPOOL)} (the ring holds the loop, nothing spooled in it): {added_held:.1f} ns added")
        hot_plain, hot_traced = [], []
        for _ in range(args.repeats):
            hot_plain.append(run_hotpath(args.build))
            hot_traced.append(run_hotpath(args.build, os.path.join(work, "h.h5")))
        print(f"recording path alone (1 rank, MPI_PROC_NULL peers, no spool write): untraced "
              f"{statistics.median(hot_plain):.1f} ns per call, "
              f"{statistics.median(hot_traced) - statistics.median(hot_plain):.1f} ns added (median)")
        # The polling loops users measure the tracer by (issue 28: MPI_Test on MPI_REQUEST_NULL,
        # 10^6 calls, one rank), with the default ring: 5 x 10^6 events, spooled as they come.
        for kind in ("test", "iprobe"):
            a, b = [], []
            for _ in range(args.repeats):
                a.append(run_hotpath(args.build, kind=kind, calls=1000000))
                b.append(run_hotpath(args.build, os.path.join(work, "p.h5"), kind=kind, calls=1000000))
            print(f"null MPI_{kind.capitalize()} loop (1 rank, 10^6 calls x 5 rounds, default ring): untraced "
                  f"{statistics.median(a):.1f} ns per call, {statistics.median(b) - statistics.median(a):.1f} ns added "
                  f"(median; paired: {statistics.median(y - x for x, y in zip(a, b)):.1f})")
        path = os.path.join(work, "big.h5")
        r = run(args.build, args.big, path)
        with h5py.File(path, "r") as f:
            counts, lost = f["/ranks/count"][:], f["/ranks/lost"][:]
        rate = min(counts) / r["finalize_seconds"]
        print(f"{2 * args.big} calls per rank: {list(counts)} events recorded, {int(sum(lost))} lost (64 MiB buffer per rank); "
              f"MPI_Finalize wrote them in {r['finalize_seconds']:.2f} s = {rate / 1e6:.2f} M events/s per rank")


if __name__ == "__main__":
    main()
