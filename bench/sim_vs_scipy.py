#!/usr/bin/env python3
"""Side-by-side benchmark of `ripple sim` against SciPy's solve_ivp (RK45, vectorised NumPy) on the
identical problem: an open chain (+-1) of tanh-coupled oscillators, dopri5, rtol = atol = 1e-8, and by
default the same (root-mean-square) error norm as SciPy.

Ripple writes the problem's frequencies (/omega) and initial phases (/phase[0]) to its output file;
SciPy reads them from there, so both solve exactly the same equations. Reports, per N: median wall
time of each (integration only), steps, ns per oscillator-step, the speed ratio and the largest
final phase difference; the STREAM-like triad bandwidth measured in the same run and the
memory-traffic bound of the stepper; and the 2-rank speed-up at the largest N.

usage: bench/sim_vs_scipy.py BUILD_DIR [--sizes 10000,1000000] [--repeats 3] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np
from scipy.integrate import solve_ivp

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
norm = "{norm}"
t_end = {t_end}
[output]
file = "{out}"
interval = {t_end}
"""

# Bytes per oscillator-step that any dopri5 implementation must move through memory when the state
# does not fit in cache (8-byte doubles; every written array is also read for write-allocate),
# counted from Boost.Odeint's dopri5 with dense output (runge_kutta_dopri5.hpp,
# dense_output_runge_kutta.hpp, controlled_runge_kutta.hpp):
#   stages 2..6: x_tmp = x + dt*sum(a_sj k_j): reads s arrays, writes 1            -> 25 + 5 (write-allocate)
#   x_new = x + dt*sum(b_j k_j) (6 terms): reads 6, writes 1                         ->  7 + 1
#   error estimate x_err = dt*sum(db_j k_j) (6 terms): reads 6, writes 1             ->  7 + 1
#   error norm: reads x_err, x_old, dxdt_old (Ripple's DistributedErrorChecker fuses the ratios and
#   their norm in one read-only pass; odeint's default checker writes the ratios and reads them
#   again, 3 more)                                                                    ->  3
#   6 right-hand sides, each at the least: read x and omega, write dxdt              ->  6 x 4
STEPPER_BYTES = 8 * (25 + 5 + 7 + 1 + 7 + 1 + 3)
MIN_RHS_BYTES = 6 * 8 * 4
BOUND_BYTES_PER_OSC_STEP = STEPPER_BYTES + MIN_RHS_BYTES
# What Ripple's right-hand side moves per oscillator: its blocked sweep (model/src/rhs_kernel.cpp,
# BlockPlan) keeps V and the coupling sums of a block of 1024 rows in L1/L2, so from memory it only
# reads x and omega and writes dxdt: the minimum above.
RIPPLE_RHS_BYTES = MIN_RHS_BYTES
BYTES_PER_OSC_STEP = BOUND_BYTES_PER_OSC_STEP


def run_ripple(build, n, t_end, ranks, workdir, norm):
    out = os.path.join(workdir, f"ripple_{n}_{ranks}.h5")
    cfg = os.path.join(workdir, f"chain_{n}.toml")
    summary = os.path.join(workdir, f"summary_{n}_{ranks}.json")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(n=n, t_end=t_end, out=out, norm=norm))
    cmd = [os.path.join(build, "cli", "ripple"), "sim", cfg, "--force", "--quiet", "--summary", summary]
    if ranks > 1:
        cmd = ["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "core"] + cmd
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(cmd, check=True, env=env)
    with open(summary) as f:
        return json.load(f), out


def run_scipy(path, t_end, vp):
    with h5py.File(path, "r") as f:
        omega = f["/omega"][:]
        theta0 = f["/phase"][0, :]
        final = f["/phase"][-1, :]

    def rhs(t, th):
        d = np.tanh(th[:-1] - th[1:])  # V(theta_i - theta_{i+1}); V is odd
        out = omega.copy()
        out[:-1] -= vp * d
        out[1:] += vp * d
        return out

    t0 = time.perf_counter()
    sol = solve_ivp(rhs, (0.0, t_end), theta0, method="RK45", rtol=1e-8, atol=1e-8)
    wall = time.perf_counter() - t0
    if not sol.success:
        sys.exit(f"solve_ivp failed: {sol.message}")
    steps = len(sol.t) - 1
    return wall, steps, sol.nfev, float(np.max(np.abs(sol.y[:, -1] - final)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--sizes", default="10000,1000000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--t-end", type=float, default=0.01, help="simulated seconds (10 periods)")
    ap.add_argument("--t-end-small", type=float, default=0.1,
                    help="simulated seconds for N <= 10^5 (100 periods: fixed costs, such as creating the"
                         " output file, would otherwise weigh on a run of a few milliseconds)")
    ap.add_argument("--norm", default="rms", choices=["rms", "max"],
                    help="Ripple's error norm (SciPy's is rms: the same test of each step)")
    ap.add_argument("--json")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    triad = json.loads(subprocess.run([os.path.join(args.build, "bench", "ripple_stream_triad")], check=True,
                                      capture_output=True, text=True).stdout)
    bw = triad["median_gb_per_s"] * 1e9
    bound_ns = BYTES_PER_OSC_STEP / bw * 1e9
    print(f"memory bandwidth (triad, 1 core, median of 10): {bw / 1e9:.1f} GB/s")
    ripple_ns = (STEPPER_BYTES + RIPPLE_RHS_BYTES) / bw * 1e9
    print(f"memory-traffic bound of dopri5: {BYTES_PER_OSC_STEP} B per oscillator-step -> {bound_ns:.2f} ns"
          f" (Ripple's implementation moves {STEPPER_BYTES + RIPPLE_RHS_BYTES} B -> {ripple_ns:.2f} ns)")
    results = {"triad": triad, "bytes_per_oscillator_step": BYTES_PER_OSC_STEP, "bound_ns": bound_ns,
               "ripple_bytes_per_oscillator_step": STEPPER_BYTES + RIPPLE_RHS_BYTES, "sizes": []}
    with tempfile.TemporaryDirectory() as work:
        for n in sizes:
            t_end = args.t_end_small if n <= 100000 else args.t_end
            # Side by side: each repeat runs Ripple, SciPy (and Ripple on 2 ranks) one after the other,
            # so that the machine's drift (+-20 % within minutes on the development VM) hits both alike.
            ripple_runs, scipy_runs, two = [], [], []
            for _ in range(args.repeats):
                ripple_runs.append(run_ripple(args.build, n, t_end, 1, work, args.norm))
                scipy_runs.append(run_scipy(ripple_runs[0][1], t_end, 2000.0))
                if n == max(sizes):
                    two.append(run_ripple(args.build, n, t_end, 2, work, args.norm)[0])
            r_wall = statistics.median(s["wall_seconds"] for s, _ in ripple_runs)
            r_summary, path = ripple_runs[0]
            s_wall = statistics.median(w for w, _, _, _ in scipy_runs)
            _, s_steps, s_nfev, diff = scipy_runs[0]
            row = {
                "n": n, "t_end": t_end,
                "ripple_wall": r_wall, "ripple_steps": r_summary["steps"], "ripple_rhs": r_summary["rhs_evaluations"],
                "ripple_ns_per_osc_step": r_wall * 1e9 / (n * r_summary["steps"]),
                "scipy_wall": s_wall, "scipy_steps": s_steps, "scipy_rhs": s_nfev,
                "scipy_ns_per_osc_step": s_wall * 1e9 / (n * s_steps),
                "speedup_vs_scipy": s_wall / r_wall, "max_phase_difference": diff,
            }
            row["ripple_vs_bound"] = row["ripple_ns_per_osc_step"] / bound_ns
            if two:
                row["ripple_wall_2ranks"] = statistics.median(s["wall_seconds"] for s in two)
                row["speedup_2ranks"] = r_wall / row["ripple_wall_2ranks"]
            results["sizes"].append(row)
            print(f"N = {n}, t_end = {t_end:g} s: ripple {r_wall:.3f} s ({r_summary['steps']} steps, {row['ripple_ns_per_osc_step']:.1f} ns/osc-step,"
                  f" {row['ripple_vs_bound']:.2f}x bound) | scipy {s_wall:.3f} s ({s_steps} steps,"
                  f" {row['scipy_ns_per_osc_step']:.1f} ns/osc-step) | ripple {row['speedup_vs_scipy']:.1f}x faster |"
                  f" max |dtheta| {diff:.2e} rad" +
                  (f" | 2 ranks {row['speedup_2ranks']:.2f}x" if "speedup_2ranks" in row else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
