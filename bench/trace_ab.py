#!/usr/bin/env python3
"""Two or more builds of libripple-trace.so side by side on the 2-rank ping-pong, in paired rounds.

Each round runs the ping-pong untraced, then traced with each library in turn (RIPPLE_TRACE_LIBRARY
selects it), back to back, so that every library sees the same machine state as the untraced run of
its round. Prints per library the median added time per intercepted call and the median of its
per-round difference to the first library: on a shared machine whose speed drifts between
minutes, that difference is the figure to compare. (Two copies of one library give the noise: on
the development VM about +-10 ns for 21 rounds.)

A library may carry `ripple trace` options after commas, to compare settings of one library:
`LIB.so,--buffer-mib,1024,--flush-seconds,1000` (a ring that holds the loop, nothing spooled in it)
against `LIB.so`.

With --hotpath, the bench is the recording path alone (ripple_trace_hotpath: one rank, MPI_PROC_NULL
peers, 5 x 10^5 calls). The libraries' order alternates between rounds.

usage: bench/trace_ab.py BUILD_DIR LIB.so[,OPTION...] [...] [--rounds 21] [--iterations 300000] [--hotpath]
"""
import argparse
import json
import os
import statistics
import subprocess

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run_json(build, ranks, bench, library):
    """The last JSON line the bench printed, run untraced (library None) or traced with `library`
    (a path, then any `ripple trace` options, comma-separated)."""
    cmd = ["mpirun", "-np", str(ranks), "--bind-to", "core", "-x", "RIPPLE_TRACE_LIBRARY"]
    if library:
        library, *options = library.split(",")
        cmd += [os.path.join(build, "cli", "ripple"), "trace", "-o", "/tmp/ripple-trace-ab.h5", "--samples", "off",
                *options, "--"]
    cmd += [os.path.join(build, "bench", bench[0])] + bench[1:]
    env = dict(ENV, RIPPLE_TRACE_LIBRARY=library or "")
    out = subprocess.run(cmd, check=True, env=env, capture_output=True, text=True).stdout
    os.sync()  # the trace's write-back would otherwise fall into the next run's loop
    return json.loads(out.strip().splitlines()[-1])


def ns_per_call(build, iterations, library=None):
    out = run_json(build, 2, ["ripple_trace_pingpong", str(iterations)], library)
    return out["loop_seconds"] / (2 * iterations) * 1e9


def hotpath_ns_per_call(build, library=None):
    return run_json(build, 1, ["ripple_trace_hotpath", "100000", "5"], library)["ns_per_call"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build")
    p.add_argument("libraries", nargs="+")
    p.add_argument("--rounds", type=int, default=21)
    p.add_argument("--iterations", type=int, default=300000)
    p.add_argument("--hotpath", action="store_true", help="the recording path alone instead of the ping-pong")
    a = p.parse_args()
    if len(set(a.libraries)) != len(a.libraries):
        p.error("name each library once (copy it to compare a library with itself)")
    for lib in a.libraries:
        if not os.path.isfile(lib.split(",")[0]):
            p.error(f"no library at '{lib.split(',')[0]}'")
    added = {lib: [] for lib in a.libraries}
    measure = (lambda lib=None: hotpath_ns_per_call(a.build, lib)) if a.hotpath else \
        (lambda lib=None: ns_per_call(a.build, a.iterations, lib))
    for r in range(a.rounds):
        base = measure()
        for lib in a.libraries if r % 2 == 0 else a.libraries[::-1]:
            added[lib].append(measure(lib) - base)
    first = a.libraries[0]
    for lib in a.libraries:
        paired = statistics.median(x - y for x, y in zip(added[lib], added[first]))
        print(f"{lib}: {statistics.median(added[lib]):.1f} ns added per call (median of {a.rounds}); "
              f"{paired:+.1f} ns against {first} (median of the paired differences)")


if __name__ == "__main__":
    main()
