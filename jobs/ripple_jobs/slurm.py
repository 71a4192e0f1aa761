"""Slurm: a campaign's points as job arrays (a point per task, the `%` throttle) and an `afterok` job
that aggregates; where each point stands, from squeue and scontrol (accounting may be off)."""
import json
import os
import shlex
import subprocess
import time

from .errors import InputError

SUBMISSIONS = "slurm.json"


def _run(args):
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise InputError(f"{args[0]} is not on PATH: is this a Slurm cluster? (--local runs the points here)") from None
    return p


def _sbatch(args):
    p = _run(["sbatch", "--parsable", *args])
    if p.returncode != 0:
        message = (p.stderr.strip().splitlines() or [f"exit code {p.returncode}"])[-1]
        raise RuntimeError(f"sbatch refused the job: {message}")
    return p.stdout.strip().split(";")[0]


def submissions(cdir):
    try:
        with open(os.path.join(cdir, SUBMISSIONS)) as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def _options(settings, tasks):
    opts = [f"--ntasks={tasks}"]
    for key in ("time", "partition", "nodes"):
        if key in settings:
            opts.append(f"--{key}={settings[key]}")
    return opts + [str(o) for o in settings.get("options", [])]


def submit(cdir, meta, points, settings, ripple):
    """One job array per task count among `points` (usually one), then the aggregation job after
    all of them. Records the submission in slurm.json and returns it."""
    from .point import write_json

    logs = os.path.join(cdir, "logs")
    os.makedirs(logs, exist_ok=True)
    name = f"ripple-{meta['campaign']}"
    throttle = settings.get("throttle")
    arrays = []
    for tasks in sorted({p["ntasks"] for p in points}):
        indices = [p["index"] for p in points if p["ntasks"] == tasks]
        spec = ",".join(map(str, indices)) + (f"%{throttle}" if throttle else "")
        wrap = f"exec {shlex.quote(ripple)} campaign {shlex.quote(cdir)} point $SLURM_ARRAY_TASK_ID"
        job = _sbatch([f"--array={spec}", f"--job-name={name}", f"--output={logs}/%A_%a.out", *_options(settings, tasks),
                       "--wrap", wrap])
        arrays.append({"job": job, "ids": [p["id"] for p in points if p["ntasks"] == tasks]})
    after = ":".join(a["job"] for a in arrays)
    wrap = f"exec {shlex.quote(ripple)} campaign {shlex.quote(cdir)} aggregate"
    aggregate = _sbatch([f"--dependency=afterok:{after}", f"--job-name={name}-aggregate",
                         f"--output={logs}/aggregate-%j.out", *_options(settings, 1), "--wrap", wrap])
    record = {"arrays": arrays, "aggregate": aggregate, "submitted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_json(os.path.join(cdir, SUBMISSIONS), submissions(cdir) + [record])
    return record


def _scontrol_state(job):
    p = _run(["scontrol", "show", "job", "-o", job])
    for field in p.stdout.split():
        if field.startswith("JobState="):
            state = field.split("=", 1)[1]
            reason = next((f.split("=", 1)[1] for f in p.stdout.split() if f.startswith("Reason=")), "None")
            return state, reason
    return None, None


def queue(cdir, ids):
    """(states, aggregate): the Slurm state of each point of `ids` that was submitted (pending,
    running, or how its task ended: cancelled, timeout, ...) from its latest submission, `lost` for
    a task that left the queue without a trace (a pending array task that was cancelled has no
    record of its own), and the latest aggregation job's (job id, state, reason). Only the points
    asked about are looked up: a point with a complete result needs no scontrol call."""
    subs = submissions(cdir)
    if not subs:
        return {}, None
    ids = set(ids)
    task_of = {}
    for s in subs:
        for a in s["arrays"]:
            for i in a["ids"]:
                if i in ids:
                    task_of[i] = f"{a['job']}_{int(i)}"
    jobs = sorted({t.split("_")[0] for t in task_of.values()})
    in_queue = {}
    if jobs:
        p = _run(["squeue", "-h", "-r", "-o", "%i %T", "-j", ",".join(jobs)])
        in_queue = dict(line.split() for line in p.stdout.splitlines() if len(line.split()) == 2)
    states = {}
    for i, task in task_of.items():
        if task in in_queue:
            states[i] = in_queue[task].lower()
        else:
            state, _ = _scontrol_state(task)
            states[i] = state.lower() if state else "lost"
    agg = subs[-1]["aggregate"]
    state, reason = _scontrol_state(agg)
    return states, (agg, (state or "lost").lower(), reason)


def cancel_stale_aggregate(cdir):
    """A resubmission replaces the last aggregation job: cancel it if it still waits (its
    dependency can no longer be met once a task was cancelled)."""
    subs = submissions(cdir)
    if subs:
        state, _ = _scontrol_state(subs[-1]["aggregate"])
        if state == "PENDING":
            _run(["scancel", subs[-1]["aggregate"]])
