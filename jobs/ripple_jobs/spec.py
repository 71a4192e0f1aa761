"""The campaign file: a template and a grid of parameters, expanded into points.

    name = "idle-waves"            # default: the file's name without .toml
    template = "idle-waves"        # jobs/NAME.sbatch
    ranks = 16                     # MPI tasks per point (or a parameter of [fixed], [grid], [[variant]])
    [fixed]                        # parameters of every point
    work = "sleep"
    [grid]                         # every combination of these values (in this order)
    delay = ["5:10:0.01", "5:10:0.02"]
    [[variant]]                    # optional: sets of parameters that go together (each x the grid)
    app = "ring"
    [slurm]                        # sbatch settings: throttle (the array's %), time, partition,
    throttle = 4                   # nodes, options (a list of further sbatch options)
"""
import itertools
import os
import tomllib

from . import templates
from .errors import InputError

TOP_KEYS = {"name", "template", "ranks", "fixed", "grid", "variant", "slurm"}
SLURM_KEYS = {"throttle", "time", "partition", "nodes", "options"}
SCALARS = (str, int, float, bool)


def _check_value(where, value):
    ok = isinstance(value, SCALARS) or (isinstance(value, list) and all(isinstance(v, SCALARS) for v in value))
    if not ok:
        raise InputError(f"{where}: a parameter's value is a string, number, boolean or a list of them")


def load(path):
    """The campaign file as a dict, checked: keys, types, a non-empty grid."""
    try:
        with open(path, "rb") as f:
            c = tomllib.load(f)
    except FileNotFoundError:
        raise InputError(f"{path}: no such campaign file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a folder without points.json is not a campaign") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: not valid TOML ({e})") from None
    for key in c:
        if key not in TOP_KEYS:
            raise InputError(f"{path}: unknown key '{key}' (the keys: {', '.join(sorted(TOP_KEYS))})")
    if not isinstance(c.get("template"), str):
        raise InputError(f"{path}: template = \"NAME\" is required (a batch template in jobs/)")
    for key in c.get("slurm", {}):
        if key not in SLURM_KEYS:
            raise InputError(f"{path}: [slurm] unknown key '{key}' (the keys: {', '.join(sorted(SLURM_KEYS))})")
    grid = c.get("grid", {})
    variants = c.get("variant", [])
    if not grid and not variants:
        raise InputError(f"{path}: the grid is empty: give [grid] at least one parameter with values")
    for name, values in grid.items():
        if not isinstance(values, list) or not values:
            raise InputError(f"{path}: [grid] {name}: give a non-empty list of values")
        for v in values:
            _check_value(f"{path}: [grid] {name}", v)
    for name, value in c.get("fixed", {}).items():
        _check_value(f"{path}: [fixed] {name}", value)
    for i, variant in enumerate(variants):
        for name, value in variant.items():
            _check_value(f"{path}: [[variant]] {i + 1} {name}", value)
    c.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return c


def _absolute(params, base):
    return {k: (os.path.normpath(os.path.join(base, v)) if k in templates.PATH_PARAMETERS and isinstance(v, str) else v)
            for k, v in params.items()}


def expand(c, path, jobs_dir, ripple, apps_dir):
    """The points: every variant x every grid combination, each with its parameters, its template
    arguments and its task count. Every point's parameters are checked (InputError)."""
    template = templates.get(c["template"], jobs_dir)
    base = os.path.dirname(os.path.abspath(path))
    fixed = c.get("fixed", {})
    grid = c.get("grid", {})
    variants = c.get("variant", []) or [{}]
    combos = list(itertools.product(*grid.values())) if grid else [()]
    count = len(variants) * len(combos)
    width = max(3, len(str(count - 1)))
    points = []
    for variant in variants:
        for combo in combos:
            params = {}
            for source in (fixed, variant, dict(zip(grid, combo))):
                for k, v in source.items():
                    if k in params:
                        raise InputError(f"{path}: parameter '{k}' is given twice ([fixed], [[variant]], [grid])")
                    params[k] = v
            ranks = params.get("ranks", c.get("ranks", 4))
            if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
                raise InputError(f"{path}: ranks = {ranks!r}: a whole number of MPI tasks >= 1")
            point_id = f"{len(points):0{width}d}"
            try:
                args = templates.arguments(template, _absolute(params, base), ripple, apps_dir)
            except InputError as e:
                raise InputError(f"{path}: point {point_id}: {e}") from None
            points.append({"id": point_id, "index": len(points), "params": params, "args": args, "ntasks": ranks})
    return points
