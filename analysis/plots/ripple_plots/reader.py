"""The one Python reader of Ripple's files: traces (schema ripple-trace), simulations (ripple-sim)
and waves results (ripple-waves JSON), CXL model results (ripple-cxl JSON). Each checks the schema
and the versions it reads."""
import json
import tomllib

import h5py
import numpy as np

TRACE_VERSIONS = (1, 1)  # oldest and newest schema_version read
SIM_VERSIONS = (1, 3)
WAVES_VERSIONS = (1, 1)
COMPARE_VERSIONS = (1, 1)


class FormatError(Exception):
    """A file that is not what it should be; the message names it."""


def text(value):
    """HDF5 fixed-length strings come back as bytes."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _check(path, schema, version, want, versions):
    if schema != want:
        raise FormatError(f"{path}: not a {want} file (schema {schema!r})")
    if not versions[0] <= int(version) <= versions[1]:
        raise FormatError(f"{path}: {want} schema_version {version}, but this reader reads {versions[0]} to {versions[1]}")


class Trace:
    """A trace: its call names, its events (all ranks, in rank order) and where each rank's are."""

    def __init__(self, path):
        self.file = h5py.File(path, "r")
        _check(path, text(self.file.attrs.get("schema", b"")), self.file.attrs.get("schema_version", 0), "ripple-trace",
               TRACE_VERSIONS)
        self.names = text(self.file.attrs["call_names"]).split("\n")
        self.events = self.file["/events"][:]
        self.offset = self.file["/ranks/offset"][:]
        self.count = self.file["/ranks/count"][:]

    def id(self, name):
        """The call's number in the `call` column of /events."""
        return self.names.index(name)

    def rank(self, r):
        """One rank's events, in the order it committed them."""
        return self.events[self.offset[r]:self.offset[r] + self.count[r]]

    def calls(self, name, events=None):
        """The events of one call: of every rank, or of `events`."""
        events = self.events if events is None else events
        return events[events["call"] == self.id(name)]


class Sim:
    """A `ripple sim` output: stored times, phases [time, oscillator], frequencies, r(t), its
    configuration (a dict) and, where written, the iteration crossings [oscillator, iteration]."""

    def __init__(self, path):
        self.path = path
        self.file = h5py.File(path, "r")
        _check(path, text(self.file.attrs.get("schema", b"")), self.file.attrs.get("schema_version", 0), "ripple-sim",
               SIM_VERSIONS)
        # A run that stopped or died (schema 3 on): only its first stored_states rows are final.
        attrs = self.file.attrs
        self.rows = int(attrs["stored_states"]) if int(attrs.get("complete", 1)) == 0 else self.file["/time"].shape[0]
        self.time = self.file["/time"][: self.rows]
        self.omega = self.file["/omega"][:]
        self.order = self.file["/order_parameter"][: self.rows]
        self.config = tomllib.loads(text(self.file.attrs["config"]))
        self.oscillators = self.omega.shape[0]

    def phases(self, columns=None):
        """Phases at every stored time, of all oscillators or of the `columns` given (sorted)."""
        ds = self.file["/phase"]
        return ds[: self.rows, :] if columns is None else ds[: self.rows, np.asarray(columns)]

    def iteration_end(self):
        """When each oscillator's phase reached 2 pi (k + 1), or None if the run did not record it."""
        return self.file["/iteration_end"][:] if "/iteration_end" in self.file else None


def _read_json(path, schema, versions):
    with open(path) as f:
        try:
            r = json.load(f)
        except json.JSONDecodeError as e:
            raise FormatError(f"{path}: not JSON ({e})") from e
    if not isinstance(r, dict):
        raise FormatError(f"{path}: not a {schema} result")
    _check(path, r.get("schema"), r.get("schema_version", 0), schema, versions)
    return r


def read_waves(path):
    """A `ripple waves --json` result as a dict (docs/waves.md)."""
    return _read_json(path, "ripple-waves", WAVES_VERSIONS)


CXL_VERSIONS = (1, 1)


def read_cxl(path):
    """A `ripple cxl --json` result as a dict (docs/cxl.md)."""
    return _read_json(path, "ripple-cxl", CXL_VERSIONS)


def neighbours(config, n, i):
    """The oscillators coupled into oscillator i by the configuration's topology (model/src/topology.cpp's
    rules), or None for an edge file that cannot be read."""
    topo = config.get("topology", {})
    kind = topo.get("kind", "chain")
    if kind in ("chain", "ring"):
        out = set()
        for d in topo.get("distances", [-1, 1]):
            j = i + d
            if kind == "ring":
                j %= n
            if 0 <= j < n and j != i:
                out.add(j)
        return sorted(out)
    if kind in ("grid2d", "grid3d"):
        dims, periodic = topo.get("dims", []), topo.get("periodic", False)
        out, stride, rest = set(), 1, i
        for extent in dims:
            coord = rest % extent
            rest //= extent
            for step in (-1, 1):
                c = coord + step
                if periodic:
                    c %= extent
                if 0 <= c < extent and c != coord:
                    out.add(i + (c - coord) * stride)
            stride *= extent
        return sorted(out)
    if kind == "all":
        return [j for j in range(n) if j != i]
    return None


def read_compare(path):
    """A `ripple compare -o` result: its attributes and, per model run (the trace first), its name,
    errors, coupling, the largest wave's source, and end, wait, compute and lag [rank, iteration]."""
    with h5py.File(path, "r") as f:
        _check(path, text(f.attrs.get("schema", b"")), f.attrs.get("schema_version", 0), "ripple-compare", COMPARE_VERSIONS)
        out = {"input": text(f.attrs["input"]), "period": float(f.attrs["period"]), "delay": float(f.attrs["delay"]),
               "first_iteration": int(f.attrs["first_iteration"]), "runs": []}
        for key in sorted(f["/runs"]):
            g = f["/runs"][key]
            run = {name: g[name][:] for name in ("end", "wait", "compute", "lag")}
            run.update({"name": text(g.attrs["name"]), "end_error": float(g.attrs["end_error"]),
                        "lag_error": float(g.attrs["lag_error"]), "coupling": float(g.attrs["coupling"]),
                        "first_iteration": int(g.attrs["first_iteration"]), "wave_rank": int(g.attrs["wave_rank"]),
                        "wave_iteration": int(g.attrs["wave_iteration"])})
            out["runs"].append(run)
    return out
