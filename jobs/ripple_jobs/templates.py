"""The batch templates a campaign can run, and how a point's parameters become each one's arguments.

Every parameter is checked before anything runs: against the template's own options, and for the
options a template passes through, against the program's own `--help` (the proxy app, `ripple
calibrate`) or `ripple sim --check` (configuration keys). A parameter no one takes is an input error.
"""
import functools
import os
import re
import subprocess
from dataclasses import dataclass, field

from . import results
from .errors import InputError

# Parameters every template takes: the MPI tasks of a point (Slurm's --ntasks, mpirun's -np).
COMMON = {"ranks"}
APPS = ("ring", "heat2d", "hpcg")


@dataclass(frozen=True)
class Template:
    name: str
    passthrough: str  # whose options the other parameters are: "app", "heat2d", "calibrate", "sim"
    results: object  # results.FUNCTION(point_dir) -> {name: value}
    own: dict = field(default_factory=dict)  # campaign name -> the template's option
    reserved: tuple = ("out", "json", "output", "o")  # set by the template itself
    extra: tuple = ()  # arguments the campaign adds to every point


TEMPLATES = {
    t.name: t
    for t in (
        Template("trace-proxy", "app", results.trace_proxy),
        Template("idle-waves", "app", results.idle_waves),
        Template("calibrate", "calibrate", results.calibrate),
        Template(
            "cxl-sweep",
            "heat2d",
            results.cxl_sweep,
            own={"tile": "tiles", "tiles": "tiles", "halo": "halos", "halos": "halos", "iterations": "iterations",
                 "warmup": "warmup", "machine": "machine"},
        ),
        Template("sim", "sim", results.sim, extra=("--summary", "summary.json", "--quiet", "--force")),
    )
}

# Parameters whose values are files: relative ones are taken from the campaign file's folder.
PATH_PARAMETERS = {"config", "machine"}


def get(name, jobs_dir):
    if name not in TEMPLATES:
        known = ", ".join(sorted(TEMPLATES))
        raise InputError(f"template '{name}' does not exist (the campaign templates: {known})")
    if not os.path.isfile(os.path.join(jobs_dir, f"{name}.sbatch")):
        raise InputError(f"template '{name}': {jobs_dir}/{name}.sbatch is missing (set RIPPLE_JOBS)")
    return TEMPLATES[name]


@functools.lru_cache(maxsize=None)
def _options_of(command):
    """The long options a program's --help lists."""
    try:
        text = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60).stdout
    except OSError as e:
        raise InputError(f"cannot run {command[0]} --help to check the parameters: {e.strerror}") from None
    return set(re.findall(r"--([a-z][a-z0-9-]*)", text))


def _app(name, apps_dir):
    return os.path.join(apps_dir, f"ripple-{name}") if apps_dir else f"ripple-{name}"


def _option_args(name, value):
    """--NAME VALUE; a list repeats the option; true is the bare flag, false leaves it out."""
    if value is True:
        return [f"--{name}"]
    if value is False:
        return []
    values = value if isinstance(value, list) else [value]
    return [a for v in values for a in (f"--{name}", str(v))]


def _toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(value)


def arguments(template, params, ripple, apps_dir):
    """The template's command-line arguments (after --out DIR) for one point's parameters; raises
    InputError naming the first parameter the template does not take."""
    t = template
    params = dict(params)
    for name in params:
        if name in t.reserved:
            raise InputError(f"parameter '{name}': the template '{t.name}' sets it itself")
    params.pop("ranks", None)
    head, rest = [], []
    if t.passthrough == "app":
        app = params.pop("app", "ring")
        if app not in APPS:
            raise InputError(f"parameter app = '{app}': one of {', '.join(APPS)}")
        head.append(app)
        known = _options_of((_app(app, apps_dir),))
    elif t.passthrough == "heat2d":
        known = _options_of((_app("heat2d", apps_dir),))
    elif t.passthrough == "calibrate":
        known = _options_of((ripple, "calibrate"))
    else:  # sim: the config, configuration keys (section.key) and ripple sim's options
        if "config" not in params:
            raise InputError("template 'sim' needs the parameter config (a ripple sim TOML file)")
        config = params.pop("config")
        head.append(config)
        sets = [f"{k}={_toml_value(v)}" for k, v in params.items() if "." in k]
        check = subprocess.run([ripple, "sim", config, "--check", *[a for s in sets for a in ("--set", s)]],
                               capture_output=True, text=True)
        if check.returncode != 0:
            message = check.stderr.strip().splitlines()[-1] if check.stderr.strip() else f"exit code {check.returncode}"
            raise InputError(message.removeprefix("ripple: error: "))
        head += [a for s in sets for a in ("--set", s)]
        params = {k: v for k, v in params.items() if "." not in k}
        known = _options_of((ripple, "sim"))
    for name, value in params.items():
        if name in t.own:
            rest += _option_args(t.own[name], value)
        elif name in known:
            rest += _option_args(name, value)
        else:
            whose = {"app": f"ripple-{head[0]}" if head else "the app", "heat2d": "ripple-heat2d",
                     "calibrate": "ripple calibrate", "sim": "ripple sim"}[t.passthrough]
            raise InputError(f"unknown parameter '{name}': neither the template '{t.name}' nor {whose} takes it")
    return head + rest + list(t.extra)
