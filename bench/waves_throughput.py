#!/usr/bin/env python3
"""`ripple waves` on a large trace: events per second on one core, and peak resident memory.

Makes (once) a trace of a 2-rank periodic ring in compute mode with a tiny kernel, about 10^7
events, then runs `ripple waves` on it --repeats times and reports the median wall time, events
per second and the largest peak resident set (/usr/bin/time's maximum resident set size). A second, 10x shorter
trace of the same kind shows how memory scales: with the table's cells (ranks x iterations), not
with the trace's size on disk.

usage: waves_throughput.py BUILD_DIR [--iterations 625000] [--repeats 5] [--work DIR]"""
import argparse
import os
import statistics
import subprocess
import time

import h5py


def make_trace(build, path, iterations):
    if os.path.exists(path):
        return
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(["mpirun", "-np", "2", "--oversubscribe", f"{build}/cli/ripple", "trace", "-o", path, "--", f"{build}/proxyapps/ring/ripple-ring",
                    "--periodic", "--slices", "10", "--iterations", str(iterations), "--warmup", "0", "--delay", "1:100:0.001"],
                   check=True, env=env, stdout=subprocess.DEVNULL)


def measure(build, path, repeats):
    walls, peak = [], 0
    for _ in range(repeats):
        before = time.perf_counter()
        run = subprocess.run(["/usr/bin/time", "-f", "%M", f"{build}/cli/ripple", "waves", path], check=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        walls.append(time.perf_counter() - before)
        peak = max(peak, int(run.stderr.strip().splitlines()[-1]) * 1024)  # KiB
    with h5py.File(path, "r") as f:
        events = int(f["/ranks/count"][:].sum())
    return events, statistics.median(walls), peak


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build")
    p.add_argument("--iterations", type=int, default=625000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--work", default="bench-waves")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    for iterations in (a.iterations // 10, a.iterations):
        path = os.path.join(a.work, f"ring-{iterations}.h5")
        make_trace(a.build, path, iterations)
        events, wall, peak = measure(a.build, path, a.repeats)
        cells = 2 * iterations
        print(f"{events:>10} events, {cells:>8} cells: {wall:6.3f} s median of {a.repeats}, {events / wall / 1e6:5.2f} M events/s, "
              f"peak {peak / 2**20:6.1f} MiB ({peak / cells:5.0f} B per cell), trace {os.path.getsize(path) / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
