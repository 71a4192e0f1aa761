#!/usr/bin/env python3
"""heat2d against the memory-bandwidth roofline, and hpcg's GFLOP/s, measured side by side.

heat2d on one rank with a tile far larger than the caches moves, per lattice update, 24 bytes at the
least: u read once (its neighbours come from cache), unew written plus its write-allocate read. Its
attainable rate is the triad bandwidth (measured in the same run, 32 B per element with
write-allocate) divided by 24 B. hpcg reports GFLOP/s with HPCG 3.1's operation count.

usage: bench/proxy_roofline.py BUILD_DIR [--repeats 3] [--tile 4096]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

BYTES_PER_UPDATE = 24


def run_json(cmd, path):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(cmd + ["--json", path], check=True, env=env, stdout=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tile", type=int, default=4096)
    args = ap.parse_args()
    b = args.build
    with tempfile.TemporaryDirectory() as work:
        triad, heat = [], []
        for _ in range(args.repeats):  # interleaved, so both see the same machine state
            t = json.loads(subprocess.run([os.path.join(b, "bench", "ripple_stream_triad")], check=True, capture_output=True,
                                          text=True).stdout)
            triad.append(t["median_gb_per_s"])
            h = run_json([os.path.join(b, "proxyapps", "heat2d", "ripple-heat2d"), "--tile", str(args.tile), "--iterations", "20",
                          "--warmup", "2"], os.path.join(work, "heat.json"))
            heat.append(h["lups"])
        bw, lups = statistics.median(triad), statistics.median(heat)
        roof = bw * 1e9 / BYTES_PER_UPDATE
        print(f"heat2d tile {args.tile}^2, 1 rank: {lups / 1e6:.0f} MLUP/s = {lups * BYTES_PER_UPDATE / 1e9:.1f} GB/s at "
              f"{BYTES_PER_UPDATE} B/LUP; triad {bw:.1f} GB/s -> roofline {roof / 1e6:.0f} MLUP/s; {100 * lups / roof:.0f} % of it")
        for n in (16, 32):
            g = [run_json([os.path.join(b, "proxyapps", "hpcg", "ripple-hpcg"), "--nx", str(n), "--ny", str(n), "--nz", str(n)],
                          os.path.join(work, "hpcg.json"))["gflops"] for _ in range(args.repeats)]
            print(f"hpcg {n}^3, 1 rank, 50 iterations: {statistics.median(g):.2f} GFLOP/s (median of {args.repeats})")


if __name__ == "__main__":
    main()
