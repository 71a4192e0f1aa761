"""What `ripple report` finds in a directory tree: the outputs of the batch templates, wherever they
lie (a campaign's points/ID/, a job's --out DIR, a folder of folders).

    scenario    a folder with compare.json (idle-waves.sbatch): compare.h5, waves.json, app.json beside it
    CXL sweep   a folder with table.csv holding measured_speedup and predicted_speedup (cxl-sweep.sbatch),
                its cxl-TILE.json files and the machine file it used
    machine     a *.toml file with [MPI_RECV_LAT] or [LOCAL_MEM_LAT] (ripple calibrate's)
    campaign    DIR/table.csv with id and status columns, DIR/points.json (`ripple campaign`)
    simulation  an *.h5 file whose root attribute schema is ripple-sim (`ripple sim`)
    provenance  every provenance.txt; a result's is the nearest one in its folder or above it, up to DIR
"""
import csv
import json
import os
import re
from dataclasses import dataclass, field


@dataclass
class Provenance:
    path: str  # relative to DIR
    text: str
    fields: dict  # key: value, as lib.sh's provenance() writes them
    anchor: str = ""


@dataclass
class Scenario:
    rel: str
    dir: str
    anchor: str
    compare: dict
    waves: dict | None
    app: dict | None
    provenance: Provenance | None
    files: dict = field(default_factory=dict)  # name -> path of the files beside compare.json


@dataclass
class Sweep:
    rel: str
    dir: str
    anchor: str
    rows: list  # table.csv's rows (dicts)
    cxl: list  # [(tile, path of cxl-TILE.json)]
    machine: str | None  # the machine file it used (absolute), if found
    provenance: Provenance | None


@dataclass
class Machine:
    rel: str
    path: str
    anchor: str
    text: str
    provenance: Provenance | None


@dataclass
class Simulation:
    rel: str
    path: str
    anchor: str
    attrs: dict
    provenance: Provenance | None


@dataclass
class Campaign:
    name: str
    template: str
    header: list
    rows: list
    points: dict  # id -> point from points.json


@dataclass
class Found:
    root: str
    scenarios: list = field(default_factory=list)
    sweeps: list = field(default_factory=list)
    machines: list = field(default_factory=list)
    simulations: list = field(default_factory=list)
    provenances: dict = field(default_factory=dict)  # folder (absolute) -> Provenance
    campaign: Campaign | None = None
    notes: list = field(default_factory=list)  # files that looked like Ripple's but could not be read

    def empty(self):
        return not (self.scenarios or self.sweeps or self.machines or self.simulations or self.campaign)


def slug(text):
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "top"


def unique(anchor, taken):
    name, k = anchor, 2
    while name in taken:
        name, k = f"{anchor}-{k}", k + 1
    taken.add(name)
    return name


def read_provenance(root, path):
    text = open(path, encoding="utf-8", errors="replace").read()
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(": ")
        if sep and re.fullmatch(r"[a-z_]+", key):
            fields[key] = value
    return Provenance(os.path.relpath(path, root), text, fields)


def nearest(found, folder):
    """The provenance of a result in `folder`: the nearest provenance.txt in it or above it, up to DIR."""
    folder = os.path.abspath(folder)
    while True:
        if folder in found.provenances:
            return found.provenances[folder]
        if folder == found.root or os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)


def load_json(path, found):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        found.notes.append(f"{os.path.relpath(path, found.root)}: cannot read it ({e})")
        return None


def is_machine(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError:
        return None
    return text if re.search(r"^\[(MPI_RECV_LAT|LOCAL_MEM_LAT)\]", text, re.M) else None


def sim_attrs(path):
    try:
        import h5py

        with h5py.File(path, "r") as f:
            schema = f.attrs.get("schema", b"")
            schema = schema.decode() if isinstance(schema, bytes) else str(schema)
            if schema != "ripple-sim":
                return None
            attrs = {}
            for key, value in f.attrs.items():
                value = value.decode() if isinstance(value, bytes) else value
                if hasattr(value, "shape") and getattr(value, "size", 1) > 8:
                    continue  # arrays are not for a table
                text = str(value.tolist() if hasattr(value, "tolist") else value)
                if len(text) <= 200:
                    attrs[key] = text
            return attrs
    except (OSError, ImportError):
        return None


def sweep_machine(folder, prov):
    """The machine file a sweep used: its own machine.toml (it calibrated), else --machine in its arguments."""
    own = os.path.join(folder, "machine.toml")
    if os.path.exists(own):
        return os.path.abspath(own)
    if prov:
        m = re.search(r"--machine[ =](\S+)", prov.fields.get("arguments", ""))
        if m:
            path = m.group(1)
            base = prov.fields.get("submit_dir", "")
            candidates = [path] if os.path.isabs(path) else [os.path.join(base, path), os.path.join(folder, path)]
            for c in candidates:
                if os.path.exists(c):
                    return os.path.abspath(c)
    return None


def read_campaign(root, found):
    table = os.path.join(root, "table.csv")
    if not os.path.exists(table):
        return None
    with open(table, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        if "id" not in header or "status" not in header:
            return None
        rows = list(reader)
    points = load_json(os.path.join(root, "points.json"), found) if os.path.exists(os.path.join(root, "points.json")) else {}
    points = points or {}
    return Campaign(points.get("campaign", os.path.basename(root)), points.get("template", ""), header, rows,
                    {p.get("id"): p for p in points.get("points", []) if isinstance(p, dict)})


def find(root):
    """Everything Ripple wrote under root, in a stable order (sorted paths)."""
    root = os.path.abspath(root)
    found = Found(root)
    folders = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        folders.append((folder, sorted(files)))
        if "provenance.txt" in files:
            found.provenances[folder] = read_provenance(root, os.path.join(folder, "provenance.txt"))
    taken = {"summary", "campaign", "cxl", "machines", "simulations", "provenance", "contents"}
    for prov in found.provenances.values():
        prov.anchor = unique("prov-" + slug(os.path.dirname(prov.path)), taken)
    found.campaign = read_campaign(root, found)
    for folder, files in folders:
        rel = os.path.relpath(folder, root)
        prov = nearest(found, folder)
        if "compare.json" in files:
            compare = load_json(os.path.join(folder, "compare.json"), found)
            if isinstance(compare, dict) and compare.get("schema") == "ripple-compare":
                extra = {n: os.path.join(folder, n) for n in ("compare.h5", "waves.json", "app.json", "trace.h5") if n in files}
                waves = load_json(extra["waves.json"], found) if "waves.json" in extra else None
                app = load_json(extra["app.json"], found) if "app.json" in extra else None
                name = rel[len("points/"):] if rel.startswith("points/") else rel
                found.scenarios.append(Scenario(rel, folder, unique("scenario-" + slug(name), taken), compare, waves, app,
                                                prov, extra))
        if "table.csv" in files:  # a campaign's table has no speed-up columns
            with open(os.path.join(folder, "table.csv"), encoding="utf-8", newline="") as f:
                reader = csv.DictReader(f)
                if {"measured_speedup", "predicted_speedup"} <= set(reader.fieldnames or []):
                    rows = list(reader)
                    tiles = []
                    for n in files:
                        m = re.fullmatch(r"cxl-(.+)\.json", n)
                        if m:
                            tiles.append((m.group(1), os.path.join(folder, n)))
                    tiles.sort(key=lambda t: (len(t[0]), t[0]))  # 32 before 128
                    found.sweeps.append(Sweep(rel, folder, unique("cxl-" + slug(rel), taken), rows, tiles,
                                              sweep_machine(folder, prov), prov))
        for n in files:
            path = os.path.join(folder, n)
            if n.endswith(".toml"):
                text = is_machine(path)
                if text is not None:
                    found.machines.append(Machine(os.path.relpath(path, root), path,
                                                  unique("machine-" + slug(os.path.relpath(path, root)), taken), text, prov))
            elif n.endswith(".h5") and n not in ("compare.h5", "trace.h5"):
                attrs = sim_attrs(path)
                if attrs is not None:
                    found.simulations.append(Simulation(os.path.relpath(path, root), path,
                                                        unique("sim-" + slug(os.path.relpath(path, root)), taken), attrs, prov))
    return found
