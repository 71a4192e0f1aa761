#!/usr/bin/env python3
"""`ripple compare` on a 64-rank, 1000-iteration trace: how long each model takes, and the memory.

Traces (once) the ring, 64 ranks oversubscribed, sleep-emulated 2 ms phases, one 20 ms delay at rank 20
in iteration 100; then runs `ripple compare --model maxplus` and `--model pom --fit-coupling` (the
oscillator model, sixteen runs of the fit and two more) --repeats times each, one process, and
reports the median wall time and the largest peak resident set (/usr/bin/time).

usage: compare_scale.py BUILD_DIR [--ranks 64] [--iterations 1000] [--repeats 3] [--work DIR]"""
import argparse
import os
import statistics
import subprocess
import time


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build")
    p.add_argument("--ranks", type=int, default=64)
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--work", default="bench-compare")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    trace = os.path.join(a.work, f"ring-{a.ranks}x{a.iterations}.h5")
    if not os.path.exists(trace):
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        subprocess.run(["mpirun", "-np", str(a.ranks), "--oversubscribe", f"{a.build}/cli/ripple", "trace", "-o", trace, "--",
                        f"{a.build}/proxyapps/ring/ripple-ring", "--slices", "100", "--work", "sleep", "--compute-time", "0.002",
                        "--iterations", str(a.iterations), "--warmup", "1", "--delay", "20:100:0.02"],
                       check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for args in (["--model", "maxplus"], ["--model", "pom", "--fit-coupling"]):
        walls, peak = [], 0
        for _ in range(a.repeats):
            before = time.perf_counter()
            run = subprocess.run(["/usr/bin/time", "-f", "%M", f"{a.build}/cli/ripple", "compare", trace, *args], check=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            walls.append(time.perf_counter() - before)
            peak = max(peak, int(run.stderr.strip().splitlines()[-1]) * 1024)
        print(f"compare {' '.join(args):32} {statistics.median(walls):6.2f} s median of {a.repeats}, peak {peak / 2**20:6.1f} MiB")


if __name__ == "__main__":
    main()
