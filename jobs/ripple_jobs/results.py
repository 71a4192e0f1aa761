"""A point's results: the numbers a template's outputs hold, as one flat {name: value} row.

Each function reads one template's outputs in the point's folder and raises ValueError (with what
is missing) when they are not whole. Names that end in `seconds` or `_error`, and the speeds, come
from timings: `ripple campaign` on another machine or launcher gives other values for them.
"""
import csv
import json
import os
import re
import tomllib

import numpy as np


def _json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise ValueError(f"{os.path.basename(path)} was not written") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{os.path.basename(path)} is not whole ({e.msg})") from None


def _app_summary(d):
    a = _json(os.path.join(d, "app.json"))
    return {"iterations": a["iterations"], "seconds": a["seconds"], "sleep_overruns": a.get("sleep_overruns"),
            "verification": a.get("verification")}


def trace_proxy(d):
    if not os.path.isfile(os.path.join(d, "trace.h5")):
        raise ValueError("trace.h5 was not written")
    return _app_summary(d)


def _slug(name):
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def idle_waves(d):
    """Per model run of `ripple compare` (trace, max-plus replay and predict, POM tanh and wait): its
    errors against the trace, and the largest delay's wave: where it started, the speed of its fronts
    up and down the ranks (ranks per iteration), how many hops it went and when the ranks were back in
    step."""
    c = _json(os.path.join(d, "compare.json"))
    row = {"period_seconds": c["period"], "delay_seconds": c["delay"]}
    for run in c["runs"]:
        k = _slug(run["name"])
        wave = run.get("wave") or {}
        fronts = wave.get("fronts") or {}
        if k == "trace":
            row["wave_rank"] = wave.get("rank")
            row["wave_iteration"] = wave.get("iteration")
        else:
            row[f"{k}_lag_error"] = run.get("lag_error")
            row[f"{k}_end_error"] = run.get("end_error")
        row[f"{k}_speed_up"] = (fronts.get("up") or {}).get("speed")
        row[f"{k}_speed_down"] = (fronts.get("down") or {}).get("speed")
        row[f"{k}_reached_hops"] = (fronts.get("all") or {}).get("reached_hops")
        row[f"{k}_resync_iteration"] = wave.get("resync_iteration")
    return row


def calibrate(d):
    path = os.path.join(d, "machine-node.toml")
    try:
        with open(path, "rb") as f:
            machine = tomllib.load(f)
    except FileNotFoundError:
        raise ValueError("machine-node.toml was not written") from None
    return {k: v["value"] for k, v in machine.items() if isinstance(v, dict) and v.get("source") == "measured"}


def cxl_sweep(d):
    path = os.path.join(d, "table.csv")
    if not os.path.isfile(path):
        raise ValueError("table.csv was not written")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise ValueError("table.csv has no rows")
    row = {}
    for r in rows:  # one row per tile and mode; the prefix only when a point holds several
        prefix = "" if len(rows) == 1 else f"{r['tile']}_{_slug(r['halo'])}_"
        for k in ("seconds", "mpi_seconds", "measured_speedup", "predicted_speedup"):
            row[prefix + k] = float(r[k])
    return row


def resynchronisation(time, spread, t_kick):
    """(peak, final, t_resync) of the phase spread (the slowest process behind the fastest, in
    periods) after a kick at t_kick: its peak after the kick, its final level (the mean of the run's
    last tenth), and how long after the kick it first came back 95 % of the way from the peak to that
    level (NaN if it never did, or if it never rose above that level: a wavefront that keeps growing)."""
    time, spread = np.asarray(time), np.asarray(spread)
    after = np.nonzero(time >= t_kick)[0]
    if len(after) == 0:
        return float("nan"), float("nan"), float("nan")
    tail = max(1, len(spread) // 10)
    final = float(np.mean(spread[-tail:]))
    top = after[0] + int(np.argmax(spread[after[0]:]))
    peak = float(spread[top])
    if peak - final <= 1e-12:
        return peak, final, float("nan")
    back = np.nonzero(spread[top:] <= peak - 0.95 * (peak - final))[0]
    return peak, final, float(time[top + back[0]] - t_kick) if len(back) else float("nan")


def sim(d):
    """A `ripple sim` run: its final order parameter and lag (the summary), and from the stored
    phases the delay's lag peak and the resynchronisation time after the first kick."""
    import h5py

    s = _json(os.path.join(d, "summary.json"))
    with h5py.File(os.path.join(d, s["output_file"]), "r") as f:
        if int(f.attrs.get("complete", 0)) != 1:
            raise ValueError(f"{s['output_file']} is not complete")
        config = tomllib.loads(f.attrs["config"] if isinstance(f.attrs["config"], str) else f.attrs["config"].decode())
        period = 2 * np.pi / float(np.mean(f["omega"][:]))
        phase = f["phase"]
        spread = np.array([np.ptp(phase[k, :]) for k in range(phase.shape[0])]) / (2 * np.pi)
        time = f["time"][:]
    kicks = config.get("kick", [])
    t_kick = min(k["time"] for k in kicks) if kicks else 0.0
    peak, final, t_resync = resynchronisation(time, spread, t_kick)
    return {"oscillators": s["oscillators"], "final_order_parameter": s["final_order_parameter"],
            "final_lag_seconds": s["final_lag_seconds"], "lag_peak_periods": peak, "lag_final_periods": final,
            "resync_seconds": t_resync, "resync_periods": t_resync / period, "wall_seconds": s["wall_seconds"]}
