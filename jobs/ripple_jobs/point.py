"""One point of a campaign: its template run in the point's folder, then its result file.

The result file is written whole (a temporary file renamed into place) once the point has ended,
done or failed; a point without one has not finished (still running, or killed or cancelled).
"""
import json
import os
import subprocess
import time

from . import templates

RESULT = "result.json"


def point_dir(cdir, point):
    return os.path.join(cdir, "points", point["id"])


def read_result(cdir, point):
    """The point's result, or None if it has none that is whole."""
    try:
        with open(os.path.join(point_dir(cdir, point), RESULT)) as f:
            result = json.load(f)
    except (OSError, json.JSONDecodeError):
        return None
    return result if isinstance(result, dict) and result.get("status") in ("done", "failed") else None


def write_json(path, value):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _error_line(log_path, code):
    """What went wrong, in one line: the log's last line that says error, else its last line."""
    try:
        with open(log_path, errors="replace") as f:
            lines = [ln.strip() for ln in f if any(c.isalpha() for c in ln)]
    except OSError:
        lines = []
    said = [ln for ln in lines if "error" in ln.lower() or "fail" in ln.lower()]
    line = (said or lines or [""])[-1]
    return f"exit code {code}: {line}" if line else f"exit code {code}"


def run(cdir, meta, point, env):
    """Runs the point's template in its folder (its output in point.log) and writes its result.
    Returns the result."""
    d = point_dir(cdir, point)
    os.makedirs(d, exist_ok=True)
    result_path = os.path.join(d, RESULT)
    if os.path.exists(result_path):
        os.remove(result_path)
    template = meta["template"]
    command = ["bash", os.path.join(env["RIPPLE_JOBS"], f"{template}.sbatch"), "--out", ".", *point["args"]]
    env = dict(env)
    env.setdefault("RIPPLE_NP", str(point["ntasks"]))
    start = time.monotonic()
    with open(os.path.join(d, "point.log"), "w") as log:
        log.write(f"# {' '.join(command)}\n")
        log.flush()
        code = subprocess.run(command, cwd=d, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    seconds = time.monotonic() - start
    job = os.environ.get("SLURM_ARRAY_JOB_ID")
    result = {"id": point["id"], "status": "failed", "error": "", "params": point["params"], "results": {},
              "job": f"{job}_{os.environ.get('SLURM_ARRAY_TASK_ID')}" if job else "local", "seconds": seconds}
    if code != 0:
        result["error"] = _error_line(os.path.join(d, "point.log"), code)
    else:
        try:
            result["results"] = templates.TEMPLATES[template].results(d)
            result["status"] = "done"
        except (ValueError, KeyError, OSError) as e:
            result["error"] = f"the outputs are not whole: {e}"
    write_json(result_path, result)
    return result
