#!/usr/bin/env python3
"""What flushes and checkpoints cost `ripple sim` (issue 30): the same run with a checkpoint at
every step and with none, side by side, and the size of one checkpoint.

The run: the open chain of bench/sim_iterations.py (N tanh-coupled oscillators, random initial
phases), rk4 with a fixed step (10 µs) so that both settings take the same steps, two stored states, on
R ranks. `flush_seconds = 0` writes a flush and a checkpoint between every two steps; `1e9` none
but the output's first. The difference over the steps is the cost of one flush with its checkpoint;
at the default interval (60 s of wall time) the run spends cost / (60 s + cost) of its time on them.
A third run stops by SIGTERM before its last step (--test-pause) and leaves its checkpoint, whose size is
reported per oscillator. Each repeat runs both settings; medians are reported.

usage: bench/sim_checkpoint.py BUILD_DIR [--n 10000000] [--steps 10] [--ranks 2] [--repeats 3] [--set KEY=VALUE]... [--json FILE]
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import tempfile
import time

from sim_iterations import CONFIG  # the chain, with dopri5: set to rk4 below


def run(cmd, cwd):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--set", action="append", default=[], help="more overrides of the run, KEY=VALUE")
    ap.add_argument("--json")
    a = ap.parse_args()
    ripple = os.path.abspath(os.path.join(a.build, "cli", "ripple"))
    mpi = ["mpirun", "-np", str(a.ranks), "--oversubscribe", ripple, "sim", "cfg.toml", "--quiet", "--force",
           "--set", "solver.method=rk4", "--set", "solver.dt=1e-5"] + [x for kv in a.set for x in ("--set", kv)]
    with tempfile.TemporaryDirectory(dir=".") as d:
        d = os.path.abspath(d)  # --test-pause names files from the run's directory
        with open(os.path.join(d, "cfg.toml"), "w") as f:
            f.write(CONFIG.format(n=a.n, t_end=a.steps * 1.0e-5, out="run.h5", iterations="false"))
        walls = {"none": [], "every step": []}
        for _ in range(a.repeats):
            for name, seconds in (("none", "1e9"), ("every step", "0")):
                run(mpi + ["--set", f"output.flush_seconds={seconds}", "--summary", "s.json"], d)
                with open(os.path.join(d, "s.json")) as f:
                    walls[name].append(json.load(f)["wall_seconds"])
        # One checkpoint left on disk: stop before the last step (a delay history is full by then).
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        p = subprocess.Popen(mpi + ["--test-pause", f"{a.steps - 1}:{d}/p"], cwd=d, env=env, stdout=subprocess.DEVNULL)
        while not os.path.exists(f"{d}/p.paused"):
            time.sleep(0.05)
        os.kill(int(open(f"{d}/p.pid.0").read()), signal.SIGTERM)
        with open(f"{d}/p", "w") as f:
            f.write("0\n")
        p.wait()
        size = os.path.getsize(os.path.join(d, "run.h5.checkpoint"))
    none, every = statistics.median(walls["none"]), statistics.median(walls["every step"])
    cost = (every - none) / a.steps
    result = {
        "oscillators": a.n, "ranks": a.ranks, "steps": a.steps, "repeats": a.repeats, "set": a.set,
        "wall_seconds_no_checkpoint": none, "wall_seconds_checkpoint_every_step": every,
        "seconds_per_checkpoint": cost, "fraction_at_60_s": cost / (60.0 + cost),
        "checkpoint_bytes": size, "checkpoint_bytes_per_oscillator": size / a.n,
    }
    print(f"{a.n} oscillators on {a.ranks} ranks, {a.steps} rk4 steps, median of {a.repeats}:")
    print(f"  wall without checkpoints {none:.3f} s, with one every step {every:.3f} s")
    print(f"  one flush with its checkpoint: {cost:.3f} s = {100 * cost / (60 + cost):.2f} % of a run flushing every 60 s")
    print(f"  checkpoint size {size} bytes = {size / a.n:.2f} bytes per oscillator")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
