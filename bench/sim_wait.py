#!/usr/bin/env python3
"""The `wait` potential against `tanh` with the same communication delay: time per oscillator-step
and per right-hand side, and the steps each takes, side by side.

The run: an open chain (+-1) of N oscillators, t_comp = 0.9 ms, t_comm = 0.1 ms (T = 1 ms), the
delay tau = T that `wait` takes by default given to both, synchronous start, one kick of 5 periods
at the middle oscillator after 2 periods, dopri5 with rtol = atol = 1e-8 (max norm unless --norm),
two stored states. `tanh`: normalization none, v_p = beta kappa / T = 2000/s; `wait`: its default
steepness v_p = 100 / T (or --wait-strength). With --noise A, exponential local noise of amplitude A. Each repeat runs
tanh, then wait, so that the machine's drift hits both alike; medians are reported.

Reported per potential: accepted and rejected steps, right-hand-side evaluations, the summary's
wall_seconds, ns per oscillator-step (wall / (N steps), the summary's figure) and ns per oscillator
and right-hand side (wall / (N evaluations): the cost of one evaluation, stage combinations and
error norm included, whatever the number of steps).

usage: bench/sim_wait.py BUILD_DIR [--n 100000] [--periods 20] [--noise 0] [--norm max|rms] [--wait-strength VP]
                         [--ranks 1] [--repeats 3] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

CONFIG = """
[model]
oscillators = {n}
t_comp = 0.9e-3
t_comm = 0.1e-3
potential = "{potential}"
normalization = "none"
{strength}
[topology]
kind = "chain"
distances = [-1, 1]
[delay]
mean = 1.0e-3
[noise]
kind = "exponential"
amplitude = {noise}
[[kick]]
oscillator = {middle}
time = 2.0e-3
delay = 5.0e-3
[solver]
method = "dopri5"
rtol = 1e-8
atol = 1e-8
norm = "{norm}"
t_end = {t_end}
[output]
file = "{out}"
interval = {t_end}
"""


def run(build, args, work, potential):
    out = os.path.join(work, f"{potential}.h5")
    cfg = os.path.join(work, f"{potential}.toml")
    summary = os.path.join(work, f"{potential}.json")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(n=args.n, potential=potential, noise=args.noise, middle=args.n // 2, norm=args.norm,
                              strength=f"strength = {args.wait_strength}" if potential == "wait" and args.wait_strength else "",
                              t_end=args.periods * 1e-3, out=out))
    cmd = ["mpirun", "-np", str(args.ranks), "--oversubscribe", "--bind-to", "core",
           os.path.join(build, "cli", "ripple"), "sim", cfg, "--force", "--quiet", "--summary", summary]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(cmd, check=True, env=env)
    with open(summary) as f:
        s = json.load(f)
    os.remove(out)
    s["ns_per_oscillator_rhs"] = s["wall_seconds"] * 1e9 / (args.n * s["rhs_evaluations"])
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--periods", type=float, default=20)
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--norm", choices=["max", "rms"], default="max")
    ap.add_argument("--wait-strength", type=float, help="wait's v_p in 1/s (default: its own, 100 / T)")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    runs = {"tanh": [], "wait": []}
    with tempfile.TemporaryDirectory(dir=".") as work:
        for _ in range(args.repeats):
            for potential in runs:
                runs[potential].append(run(args.build, args, work, potential))
    rows = {}
    for potential, rs in runs.items():
        rows[potential] = {
            "steps": rs[0]["steps"], "rejected_steps": rs[0]["rejected_steps"], "rhs_evaluations": rs[0]["rhs_evaluations"],
            "wall_seconds": statistics.median(r["wall_seconds"] for r in rs),
            "ns_per_oscillator_step": statistics.median(r["ns_per_oscillator_step"] for r in rs),
            "ns_per_oscillator_rhs": statistics.median(r["ns_per_oscillator_rhs"] for r in rs),
            "all_wall_seconds": [r["wall_seconds"] for r in rs],
        }
    print(f"N = {args.n}, {args.periods:g} periods, noise {args.noise:g}, norm {args.norm}, {args.ranks} ranks, "
          f"median of {args.repeats}")
    for potential, r in rows.items():
        print(f"  {potential:5s}: {r['steps']:6d} steps ({r['rejected_steps']} rejected), {r['rhs_evaluations']} rhs, "
              f"{r['wall_seconds']:7.3f} s, {r['ns_per_oscillator_step']:7.1f} ns/osc-step, "
              f"{r['ns_per_oscillator_rhs']:6.2f} ns/osc-rhs")
    t, w = rows["tanh"], rows["wait"]
    print(f"  wait / tanh: {w['ns_per_oscillator_step'] / t['ns_per_oscillator_step']:.2f}x per oscillator-step, "
          f"{w['ns_per_oscillator_rhs'] / t['ns_per_oscillator_rhs']:.2f}x per evaluation, "
          f"{w['wall_seconds'] / t['wall_seconds']:.2f}x wall")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "periods": args.periods, "noise": args.noise, "norm": args.norm, "ranks": args.ranks,
                       "tanh": t, "wait": w}, f, indent=1)


if __name__ == "__main__":
    main()
