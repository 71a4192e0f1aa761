#!/usr/bin/env python3
"""What `[output] iterations = true` costs `ripple sim`: time and peak resident memory of the same
run with and without it, side by side.

The run: the open chain of bench/sim_vs_scipy.py (N tanh-coupled oscillators, v_p = 2000/s,
normalization none, omega uniform within +-20 % of 2 pi / 1 ms, random initial phases in [-pi, pi],
dopri5, rtol = atol = 1e-8), 100 periods (about 100 iterations each), on 2 ranks, two stored states
(t = 0 and t_end) so that /phase does not dominate. Each repeat runs without and then with
iterations, so that the machine's drift hits both alike; medians are reported.

Reported per setting: wall seconds of the integration and output (the summary's wall_seconds), of
the whole mpirun, the summed peak resident memory of the ranks (peak_rss_bytes), steps, K and the
output file's size.

usage: bench/sim_iterations.py BUILD_DIR [--n 1000000] [--periods 100] [--ranks 2] [--repeats 3] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

CONFIG = """
[model]
oscillators = {n}
t_comp = 1.0e-3
frequency_spread = 0.2
frequency_distribution = "uniform"
potential = "tanh"
normalization = "none"
strength = 2000.0
[topology]
kind = "chain"
distances = [-1, 1]
[initial]
kind = "random"
spread = 3.14
[solver]
method = "dopri5"
rtol = 1e-8
atol = 1e-8
t_end = {t_end}
[output]
file = "{out}"
interval = {t_end}
iterations = {iterations}
"""


def run(build, args, work, iterations):
    out = os.path.join(work, f"sim_{iterations}.h5")
    cfg = os.path.join(work, f"chain_{iterations}.toml")
    summary = os.path.join(work, f"summary_{iterations}.json")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(n=args.n, t_end=args.periods * 1e-3, out=out, iterations=str(iterations).lower()))
    cmd = ["mpirun", "-np", str(args.ranks), "--oversubscribe", "--bind-to", "core",
           os.path.join(build, "cli", "ripple"), "sim", cfg, "--force", "--quiet", "--summary", summary]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env)
    wall = time.perf_counter() - t0
    with open(summary) as f:
        s = json.load(f)
    s["process_wall"] = wall
    s["file_bytes"] = os.path.getsize(out)
    os.remove(out)
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--n", type=int, default=1000000)
    ap.add_argument("--periods", type=float, default=100)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    runs = {False: [], True: []}
    with tempfile.TemporaryDirectory(dir=".") as work:
        for _ in range(args.repeats):
            for iterations in (False, True):
                runs[iterations].append(run(args.build, args, work, iterations))
    rows = {}
    for iterations, rs in runs.items():
        rows[iterations] = {
            "wall_seconds": statistics.median(r["wall_seconds"] for r in rs),
            "process_wall": statistics.median(r["process_wall"] for r in rs),
            "peak_rss_bytes": statistics.median(r["peak_rss_bytes"] for r in rs),
            "peak_rss_bytes_max_rank": statistics.median(r["peak_rss_bytes_max_rank"] for r in rs),
            "steps": rs[0]["steps"], "iterations": rs[0]["iterations"], "file_bytes": rs[0]["file_bytes"],
            "all_wall_seconds": [r["wall_seconds"] for r in rs],
        }
    off, on = rows[False], rows[True]
    print(f"N = {args.n}, {args.periods:g} periods, {args.ranks} ranks, median of {args.repeats}")
    for name, r in (("without iterations", off), ("with iterations", on)):
        print(f"  {name:20s}: {r['wall_seconds']:7.2f} s integration+output ({r['process_wall']:.2f} s mpirun), "
              f"peak RSS {r['peak_rss_bytes'] / 2**20:7.1f} MiB summed ({r['peak_rss_bytes_max_rank'] / 2**20:.1f} max rank), "
              f"{r['steps']} steps, K = {r['iterations']}, file {r['file_bytes'] / 2**20:.1f} MiB")
    print(f"  with / without: time {on['wall_seconds'] / off['wall_seconds']:.3f}x, "
          f"memory +{(on['peak_rss_bytes'] - off['peak_rss_bytes']) / 2**20:.1f} MiB "
          f"({(on['peak_rss_bytes'] - off['peak_rss_bytes']) / args.n:.1f} bytes per oscillator)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "periods": args.periods, "ranks": args.ranks, "without": off, "with": on}, f, indent=1)


if __name__ == "__main__":
    main()
