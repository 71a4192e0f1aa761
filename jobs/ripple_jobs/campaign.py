"""ripple campaign: a template over a grid of parameters, run here or as Slurm job arrays; one table.

  ripple campaign CAMPAIGN.toml [--local | --slurm] [--resume] [--dir DIR]   run (or submit) the points
  ripple campaign CAMPAIGN.toml|DIR status                                   done / running / failed per point
  ripple campaign DIR aggregate                                              (re)write DIR/table.csv and table.h5
  ripple campaign DIR point INDEX                                            run one point (what each array task runs)

The campaign file (jobs/campaigns/ has examples): see jobs/README.md. A point is complete only when
its result file is whole; --resume runs only the points without a complete one (never run, failed,
cancelled, killed). Input errors (the campaign file, a parameter, a template): one line, exit code 2.
"""
import argparse
import json
import os
import shutil
import sys

from . import point, slurm, spec, table
from .errors import InputError

POINTS = "points.json"
ACTIVE = ("pending", "running", "configuring", "completing", "requeued", "suspended")


def _environment():
    """RIPPLE (the ripple binary), RIPPLE_JOBS (the templates) and where the proxy apps are."""
    ripple = os.environ.get("RIPPLE") or shutil.which("ripple")
    if not ripple:
        raise InputError("cannot find the ripple binary: set RIPPLE")
    jobs = os.environ.get("RIPPLE_JOBS") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.abspath(ripple), os.path.abspath(jobs)


def _apps_dir(ripple, cdir):
    """RIPPLE_APPS; else beside ripple (an installation); else PATH; else the build tree, linked
    into DIR/bin."""
    if os.environ.get("RIPPLE_APPS"):
        return os.environ["RIPPLE_APPS"]
    here = os.path.dirname(ripple)
    if os.path.exists(os.path.join(here, "ripple-ring")):
        return here
    if shutil.which("ripple-ring"):
        return None
    tree = os.path.join(here, "..", "proxyapps")
    if os.path.isdir(tree):
        bin_dir = os.path.join(cdir, "bin")
        os.makedirs(bin_dir, exist_ok=True)
        for app in ("ring", "heat2d", "hpcg"):
            target, link = os.path.abspath(os.path.join(tree, app, f"ripple-{app}")), os.path.join(bin_dir, f"ripple-{app}")
            if os.path.exists(target) and not os.path.lexists(link):
                os.symlink(target, link)
        return bin_dir
    return None


def _load_meta(cdir):
    try:
        with open(os.path.join(cdir, POINTS)) as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError(f"{cdir}: not a campaign folder (no {POINTS})") from None


def _prepare(a, ripple, jobs):
    """The campaign folder and its points (checked), made or (with --resume) found again."""
    source = a.campaign
    if os.path.isdir(source) and os.path.exists(os.path.join(source, POINTS)):
        cdir = os.path.abspath(source)
        if not a.resume:
            raise InputError(f"{source} is a campaign folder: --resume runs its unfinished points")
        source = os.path.join(cdir, "campaign.toml")
        c = spec.load(source)
        c["name"] = _load_meta(cdir)["campaign"]
    else:
        c = spec.load(source)
        cdir = os.path.abspath(a.dir or c["name"])
    exists = os.path.exists(os.path.join(cdir, POINTS))
    if exists and not a.resume:
        raise InputError(f"{cdir} already holds this campaign: --resume runs the points without a complete "
                         "result (or remove the folder)")
    made = not os.path.exists(cdir)
    os.makedirs(cdir, exist_ok=True)
    try:
        apps = _apps_dir(ripple, cdir)
        points = spec.expand(c, source, jobs, ripple, apps)
    except InputError:
        if made:
            shutil.rmtree(cdir, ignore_errors=True)
        raise
    meta = {"campaign": c["name"], "template": c["template"], "file": os.path.abspath(source), "points": points}
    if exists:
        old = _load_meta(cdir)
        if [(p["params"], p["args"], p["ntasks"]) for p in old["points"]] != [(p["params"], p["args"], p["ntasks"]) for p in points]:
            raise InputError(f"the campaign file changed since {cdir} was made: its points differ (use another --dir)")
    else:
        if os.path.abspath(source) != os.path.join(cdir, "campaign.toml"):
            shutil.copyfile(source, os.path.join(cdir, "campaign.toml"))
        point.write_json(os.path.join(cdir, POINTS), meta)
    os.environ.update(RIPPLE=ripple, RIPPLE_JOBS=jobs)
    if apps:
        os.environ["RIPPLE_APPS"] = apps
    return cdir, c, meta


def _describe(p, varying=None):
    return " ".join(f"{k}={v}" for k, v in p["params"].items() if varying is None or k in varying)


def _varying(meta):
    """The parameters whose values differ between points (the grid's and the variants')."""
    points = meta["points"]
    keys = {k for p in points for k in p["params"]}
    return {k for k in keys if len({json.dumps(p["params"].get(k)) for p in points}) > 1} or keys


def _print_status(cdir, meta, states, aggregate=None):
    columns, rows = table.rows(cdir, meta, states)
    counts = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"campaign {meta['campaign']} ({meta['template']}, {len(rows)} points): "
          + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    if aggregate:
        job, state, reason = aggregate
        why = f" ({reason})" if reason and reason != "None" else ""
        queued = any(r["status"] in ACTIVE for r in rows)
        unfinished = sum(r["status"] not in ("done", "failed") for r in rows)
        if state == "pending" and not queued and unfinished:
            why += f": it will not run, {unfinished} point(s) ended without a result; --resume reruns them"
        print(f"aggregation job {job}: {state}{why}")
    varying = _varying(meta)
    for r, p in zip(rows, meta["points"]):
        error = f"  {r['error'][:100]}" if r["error"] else ""
        print(f"  {r['id']}  {r['status']:<10} {r['job'] or '-':<12} {_describe(p, varying)}{error}")
    return counts


def _run_local(cdir, meta, todo):
    failed = 0
    for p in todo:
        print(f"point {p['id']} ({_describe(p)}) ...", flush=True)
        r = point.run(cdir, meta, p, dict(os.environ))
        if r["status"] != "done":
            failed += 1
            print(f"point {p['id']} failed: {r['error']}", flush=True)
        else:
            print(f"point {p['id']} done in {r['seconds']:.0f} s", flush=True)
    table.write(cdir, meta)
    _print_status(cdir, meta, {})
    print(f"table: {cdir}/table.csv, {cdir}/table.h5")
    return 1 if failed else 0


def _run_slurm(cdir, meta, c, todo, resume, ripple):
    if resume:
        states, _ = slurm.queue(cdir, [p["id"] for p in todo])
        todo = [p for p in todo if states.get(p["id"]) not in ACTIVE]
    if not todo:
        print(f"nothing to submit: every point is complete or still queued (ripple campaign {cdir} status)")
        return 0
    slurm.cancel_stale_aggregate(cdir)
    record = slurm.submit(cdir, meta, todo, c.get("slurm", {}), ripple)
    arrays = ", ".join(f"job array {a['job']} ({len(a['ids'])} points)" for a in record["arrays"])
    throttle = c.get("slurm", {}).get("throttle")
    print(f"submitted {arrays}{f', at most {throttle} at once' if throttle else ''}; aggregation job "
          f"{record['aggregate']} after them (afterok)")
    print(f"status: ripple campaign {cdir} status   table: {cdir}/table.csv once aggregated")
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="ripple campaign", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("campaign", help="the campaign file (TOML), or a campaign folder")
    p.add_argument("action", nargs="?", default="run", choices=["run", "status", "aggregate", "point"])
    p.add_argument("index", nargs="?", type=int, help="point: the point's index (the array task id)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--local", action="store_true", help="run the points here, one after another (mpirun)")
    where.add_argument("--slurm", action="store_true", help="submit job arrays (default where sbatch is found)")
    p.add_argument("--resume", action="store_true", help="run only the points without a complete result")
    p.add_argument("--dir", help="the campaign folder (default: the campaign's name, here)")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        ripple, jobs = _environment()
        if a.action in ("status", "aggregate", "point"):
            cdir = a.campaign
            if not os.path.exists(os.path.join(cdir, POINTS)):
                c = spec.load(a.campaign)
                cdir = a.dir or c["name"]
            cdir = os.path.abspath(cdir)
            meta = _load_meta(cdir)
            if a.action == "point":
                if a.index is None or not 0 <= a.index < len(meta["points"]):
                    raise InputError(f"point INDEX: 0 to {len(meta['points']) - 1}")
                os.environ.setdefault("RIPPLE", ripple)
                os.environ.setdefault("RIPPLE_JOBS", jobs)
                point.run(cdir, meta, meta["points"][a.index], dict(os.environ))
                return 0  # a failed point is in its result: the aggregation still runs
            unfinished = [q["id"] for q in meta["points"] if point.read_result(cdir, q) is None]
            states, aggregate = slurm.queue(cdir, unfinished) if slurm.submissions(cdir) else ({}, None)
            if a.action == "aggregate":
                columns, rows = table.write(cdir, meta, states)
                done = sum(r["status"] == "done" for r in rows)
                print(f"table of {len(rows)} points ({done} done): {cdir}/table.csv, {cdir}/table.h5")
                return 0
            _print_status(cdir, meta, states, aggregate)
            return 0
        cdir, c, meta = _prepare(a, ripple, jobs)
        todo = [q for q in meta["points"] if not (a.resume and (point.read_result(cdir, q) or {}).get("status") == "done")]
        use_slurm = a.slurm or (not a.local and shutil.which("sbatch") is not None)
        if use_slurm:
            return _run_slurm(cdir, meta, c, todo, a.resume, ripple)
        return _run_local(cdir, meta, todo)
    except InputError as e:
        print(f"ripple: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"ripple: error: {e}", file=sys.stderr)
        return 1
