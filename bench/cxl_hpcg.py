"""Seed 003's validation on hpcg: `--halo shm` against `ripple cxl`'s prediction from a traced `--halo mpi` run.

For each local size (16³ ... 64³ per rank, 2 ranks on one node): one traced `--halo mpi` run of the
same solve (no warm-up) gives the model's input; `ripple cxl` costs every receive with CXL_REMOTE_LAT
= the measured LOCAL_MEM_LAT and CXL_REMOTE_ATOMIC_LAT = the measured SHM_ATOMIC_LAT (the paper's
on-NUMA DDR case, as bench/cxl_heat2d.py). `--halo shm` moves every halo receive, so the predicted
saving is the whole run's difference per rank; the measured speed-up is the best of N untraced `mpi`
solves over the best of N `shm` ones, alternated. The all-reductions stay MPI in both.

usage: bench/cxl_hpcg.py BUILD_DIR [--sizes 16,32,64] [--iterations 50] [--rounds 5] [--machine F]
       [--out table.md] [--json rows.json]
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cxl_heat2d import MPIEXEC, best_times, machine_file, machine_values, predict, report, run  # noqa: E402


def hpcg(build, size, halo, iterations, json_path, traced=None):
    cmd = [MPIEXEC, "-np", "2", "--oversubscribe"]
    if traced:
        cmd += [os.path.join(build, "cli", "ripple"), "trace", "-o", traced, "--"]
    cmd += [os.path.join(build, "proxyapps", "hpcg", "ripple-hpcg"), "--nx", str(size), "--ny", str(size), "--nz", str(size),
            "--halo", halo, "--iterations", str(iterations), "--warmup", "0", "--json", json_path]
    run(cmd)
    with open(json_path) as f:
        return json.load(f)["seconds"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build")
    p.add_argument("--sizes", default="16,32,64")
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--machine", help="a `ripple calibrate` file (default: measured now on 2 ranks)")
    p.add_argument("--out")
    p.add_argument("--json")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="ripple-cxl-hpcg-")
    machine = machine_file(a, work)
    m = machine_values(machine)
    rows = []
    for size in [int(s) for s in a.sizes.split(",")]:
        trace = os.path.join(work, f"mpi-{size}.h5")
        t_traced = hpcg(a.build, size, "mpi", a.iterations, os.path.join(work, "t.json"), traced=trace)
        r = predict(a.build, trace, machine, work)
        best = best_times(["mpi", "shm"], a.rounds,
                          lambda halo: hpcg(a.build, size, halo, a.iterations, os.path.join(work, "m.json")))
        # The trace holds the set-up's exchanges too; they are few against 50 iterations' (each a
        # multigrid V-cycle of halo exchanges on every level), and are counted as the solve's.
        saved = sum(g["diff_ns"] for g in r["groups"]) * 1e-9 / r["ranks"]
        t_mpi = best["mpi"]
        predicted = t_mpi / (t_mpi - saved) if t_mpi - saved > 0 else float("inf")
        measured = t_mpi / best["shm"]
        rows.append(dict(size=size, iterations=a.iterations, receives=sum(g["receives"] for g in r["groups"]), t_mpi=t_mpi,
                         t_shm=best["shm"], t_traced=t_traced, measured=measured, predicted=predicted,
                         sign=(measured >= 1) == (predicted >= 1), error=(predicted - measured) / measured))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    cells = [[f"{x['size']}³", x["iterations"], x["receives"], f"{x['t_mpi']:.4f}", f"{x['t_shm']:.4f}"] for x in rows]
    report(m, a, ["local size", "iterations", "receives", "mpi [s]", "shm [s]"], cells, rows)


if __name__ == "__main__":
    main()
