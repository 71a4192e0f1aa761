#!/usr/bin/env python3
"""Seed 003's Fig. 5 experiment on this machine: heat2d's shared-memory halos against `ripple cxl`.

For each grid and tile: one traced run with `--halo mpi` gives the model's input; `ripple cxl` costs
every receive (CXL_REMOTE_LAT = the measured LOCAL_MEM_LAT, CXL_REMOTE_ATOMIC_LAT = the measured
SHM_ATOMIC_LAT: the paper's on-NUMA DDR case), and the bench sums the difference over the tags each
mode moves (shm:ns: tags 0 and 1, the north/south halos; shm:we: tags 2 and 3; shm:all: all). The
saving per rank and iteration against the best measured `mpi` loop time gives the predicted
speed-up (1 where the mode moves no receive: shm:we on 1x2, a control of the noise; its sign is
n/a). The measured one: best of N untraced runs of each mode (the order rotated every round),
`mpi` over the mode.

Prints a Markdown table (and writes it with --out), with the sign agreement and the relative error.

usage: bench/cxl_heat2d.py BUILD_DIR [--grids 2x2,1x2] [--tiles 32,64,...,2048] [--rounds 5]
       [--updates 2e8] [--machine machine.toml] [--out table.md] [--json rows.json] [--plot fig.png]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
MPIEXEC = os.environ.get("MPIEXEC", "mpirun")
MODES = {"shm:ns": (0, 1), "shm:we": (2, 3), "shm:all": (0, 1, 2, 3)}


def ranks_of(grid):
    x, y = grid.split("x")
    return int(x) * int(y)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, env=ENV, capture_output=True, text=True, timeout=900, **kw)


def heat2d(build, grid, tile, halo, iterations, json_path, traced=None):
    cmd = [MPIEXEC, "-np", str(ranks_of(grid)), "--oversubscribe"]
    if traced:
        cmd += [os.path.join(build, "cli", "ripple"), "trace", "-o", traced, "--"]
    cmd += [os.path.join(build, "proxyapps", "heat2d", "ripple-heat2d"), "--grid", grid, "--tile", str(tile), "--halo", halo,
            "--iterations", str(iterations), "--warmup", "5", "--json", json_path]
    run(cmd)
    with open(json_path) as f:
        return json.load(f)["seconds"]


def machine_values(path):
    import tomllib

    with open(path, "rb") as f:
        return {k: t["value"] for k, t in tomllib.load(f).items() if isinstance(t, dict)}


def predict(build, trace, machine, work):
    m = machine_values(machine)
    out = os.path.join(work, "cxl.json")
    run([os.path.join(build, "cli", "ripple"), "cxl", trace, "--machine", machine, "--json", out,
         "--set", f"CXL_REMOTE_LAT={m['LOCAL_MEM_LAT']}", "--set", f"CXL_REMOTE_ATOMIC_LAT={m['SHM_ATOMIC_LAT']}"])
    with open(out) as f:
        return json.load(f)


def machine_file(a, work):
    """a.machine, else a machine file calibrated now on 2 ranks."""
    if a.machine:
        return a.machine
    machine = os.path.join(work, "machine.toml")
    run([MPIEXEC, "-np", "2", os.path.join(a.build, "cli", "ripple"), "calibrate", "-o", machine, "--repetitions", "5"])
    return machine


def best_times(modes, rounds, time_of):
    """The best of `rounds` times of each mode, measured alternately (the order rotated each round)."""
    best = {}
    for k in range(rounds):
        for mode in modes[k % len(modes):] + modes[:k % len(modes)]:
            best[mode] = min(best.get(mode, float("inf")), time_of(mode))
    return best


def report(m, a, columns, cells, rows):
    """Prints the Markdown table (the machine's values, then a row per `rows` entry: its `cells`,
    then measured, predicted, sign and error) and writes it to a.out, the rows to a.json."""
    table = (f"machine: LOCAL_MEM_LAT {m['LOCAL_MEM_LAT']:.0f} ns, SHM_ATOMIC_LAT {m['SHM_ATOMIC_LAT']:.0f} ns, "
             f"MPI_RECV_LAT {m['MPI_RECV_LAT']:.0f} ns, MPI_RECV_BW {m['MPI_RECV_BW'] / 1e9:.2f} GB/s; best of {a.rounds}\n\n")
    columns = columns + ["measured", "predicted", "sign", "error"]
    table += "| " + " | ".join(columns) + " |\n" + "| " + " | ".join("---" for _ in columns) + " |\n"
    for c, x in zip(cells, rows):
        sign = "n/a" if x["sign"] is None else "yes" if x["sign"] else "no"
        table += "| " + " | ".join(str(v) for v in c) + f" | {x['measured']:.3f} | {x['predicted']:.3f} | {sign} | {100 * x['error']:+.0f} % |\n"
    print(table)
    if a.out:
        with open(a.out, "w") as f:
            f.write(table)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build")
    p.add_argument("--grids", default="2x2,1x2")
    p.add_argument("--tiles", default="32,64,128,256,512,1024,2048")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--updates", type=float, default=2e8, help="lattice updates per rank and run: iterations = this / tile^2")
    p.add_argument("--machine", help="a `ripple calibrate` file (default: measured now on 2 ranks)")
    p.add_argument("--out")
    p.add_argument("--json")
    p.add_argument("--plot", help="also draw `ripple plot cxl` of the traced runs' predictions")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="ripple-cxl-bench-")
    machine = machine_file(a, work)
    m = machine_values(machine)
    rows, results = [], []
    for grid in a.grids.split(","):
        for tile in [int(t) for t in a.tiles.split(",")]:
            iterations = max(20, min(200000, round(a.updates / tile**2)))
            traced = min(iterations, 2000)  # the trace stays small; its saving is scaled per iteration
            trace = os.path.join(work, f"mpi-{grid}-{tile}.h5")
            heat2d(a.build, grid, tile, "mpi", traced, os.path.join(work, "t.json"), traced=trace)
            r = predict(a.build, trace, machine, work)
            results.append((f"{grid} {tile}", os.path.join(work, f"cxl-{grid}-{tile}.json")))
            with open(results[-1][1], "w") as f:
                json.dump(r, f)
            calls = traced + 5  # the trace holds the warm-up too
            best = best_times(["mpi", *MODES], a.rounds,
                              lambda halo: heat2d(a.build, grid, tile, halo, iterations, os.path.join(work, "m.json")))
            for mode, tags in MODES.items():
                saved = sum(g["diff_ns"] for g in r["groups"] if g["tag"] in tags) * 1e-9 / r["ranks"] / calls * iterations
                t_mpi = best["mpi"]
                predicted = t_mpi / (t_mpi - saved) if t_mpi - saved > 0 else float("inf")
                measured = t_mpi / best[mode]
                rows.append(dict(grid=grid, tile=tile, mode=mode, iterations=iterations, t_mpi=t_mpi, t_mode=best[mode],
                                 measured=measured, predicted=predicted,
                                 sign=None if predicted == 1 else (measured >= 1) == (predicted >= 1),
                                 error=(predicted - measured) / measured))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    cells = [[x["grid"], x["tile"], x["mode"], x["iterations"], f"{x['t_mpi']:.4f}", f"{x['t_mode']:.4f}"] for x in rows]
    report(m, a, ["grid", "tile", "mode", "iterations", "mpi [s]", "mode [s]"], cells, rows)
    if a.plot:
        run([os.path.join(a.build, "cli", "ripple"), "plot", "cxl", *[p for _, p in results], "-o", a.plot,
             "--labels", ",".join(l for l, _ in results)])


if __name__ == "__main__":
    main()
