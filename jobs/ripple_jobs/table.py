"""The campaign's one table: a row per point with its parameters, its results and its error, written
as CSV (table.csv) and HDF5 (table.h5: a dataset per column under /table, in the column order of the
CSV; numbers as float64 with NaN where a point has none, the rest as UTF-8 strings)."""
import csv
import math
import os
import time

from .point import read_result

SCHEMA = "ripple-campaign-table"


def _is_number(v):
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))


def rows(cdir, meta, states=None):
    """(columns, rows): every point, finished or not. `states` maps a point's id to its status when
    it has no result (e.g. from Slurm); the default is "not run"."""
    states = states or {}
    params, results, out = [], [], []
    for p in meta["points"]:
        for k in p["params"]:
            if k not in params:
                params.append(k)
    for p in meta["points"]:
        r = read_result(cdir, p)
        row = {"id": p["id"], **p["params"]}
        if r is None:
            row.update(status=states.get(p["id"], "not run"), error="", job="", point_seconds=None)
        else:
            row.update(status=r["status"], error=r["error"], job=r["job"], point_seconds=r["seconds"])
            for k, v in r["results"].items():
                if k not in results:
                    results.append(k)
                row[k] = v
        out.append(row)
    columns = ["id", "status", *params, *results, "error", "job", "point_seconds"]
    return columns, out


def _text(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    if isinstance(v, list):
        return " ".join(map(str, v))
    return str(v)


def write(cdir, meta, states=None):
    """Writes table.csv and table.h5 (each whole, renamed into place); returns the rows."""
    import h5py
    import numpy as np

    columns, table = rows(cdir, meta, states)
    csv_path = os.path.join(cdir, "table.csv")
    with open(csv_path + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for row in table:
            w.writerow([_text(row.get(c)) for c in columns])
    os.replace(csv_path + ".tmp", csv_path)
    h5_path = os.path.join(cdir, "table.h5")
    with h5py.File(h5_path + ".tmp", "w") as f:
        f.attrs.update(schema=SCHEMA, schema_version=1, campaign=meta["campaign"], template=meta["template"],
                       written=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), columns=columns)
        g = f.create_group("table")
        for c in columns:
            values = [row.get(c) for row in table]
            if all(_is_number(v) for v in values) and any(v is not None for v in values):
                g[c] = np.array([math.nan if v is None else float(v) for v in values])
            else:
                g.create_dataset(c, data=[_text(v) for v in values], dtype=h5py.string_dtype())
    os.replace(h5_path + ".tmp", h5_path)
    return columns, table
