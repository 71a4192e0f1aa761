"""The report's sections as HTML: each function takes what report_find found and returns a
<section> (text escaped, numbers formatted, "—" where a value is absent)."""
import math
import os
from html import escape

from .report_figures import Figure

DASH = "—"


def num(value, digits=4):
    if value is None or isinstance(value, str) and not value.strip():
        return DASH
    try:
        x = float(value)
    except (TypeError, ValueError):
        return escape(str(value))
    if math.isnan(x):
        return DASH
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


def pct(value):
    return DASH if value is None or not math.isfinite(float(value)) else f"{100 * float(value):.1f} %"


def ms(value):
    """A duration in seconds, in the unit that reads best (ms for an iteration, µs for a latency)."""
    if value is None:
        return DASH
    x = float(value)
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x * 1e9:.3g} ns"


def fixed(value, decimals=4):
    """A speed-up: its decimals matter (1.0003 is not 1)."""
    text = num(value)
    return text if text in (DASH, "∞", "−∞") or not _numeric(text) else f"{float(value):.{decimals}f}"


def table(header, rows, cls=""):
    """rows: lists of cells already HTML (escape text before)."""
    head = "<thead><tr>" + "".join(f"<th>{h}</th>" for h in header) + "</tr></thead>" if any(header) else ""
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table class="{cls}">{head}<tbody>{body}</tbody></table></div>'


def source(prov, what="numbers from"):
    if prov is None:
        return f'<p class="source missing">{what}: no provenance.txt found beside this result or above it</p>'
    return f'<p class="source">{what} <a href="#{prov.anchor}">{escape(prov.path)}</a></p>'


def figure_html(fig):
    caption = f"<figcaption>{escape(fig.title)} <code>{escape(fig.command())}</code></figcaption>"
    if fig.svg is None:
        return f'<figure class="failed">{caption}<pre class="error">figure failed: {escape(fig.error or "not drawn")}</pre></figure>'
    return f"<figure>{caption}{fig.svg}</figure>"


def section(anchor, title, body, cls=""):
    return f'<section id="{anchor}" class="{cls}"><h2>{escape(title)}</h2>{body}</section>'


# --- scenarios -------------------------------------------------------------------------------------

def scenario_figures(s):
    figs = {}
    if "compare.h5" in s.files:
        h5 = s.files["compare.h5"]
        figs["heatmaps"] = Figure("idle time: trace, max-plus and POM, one colour scale",
                                  ["plot", "compare", h5, "--view", "heatmaps"])
        figs["lags"] = Figure("lag timelines of four ranks near the delay", ["plot", "compare", h5, "--view", "lags"])
    if "waves.json" in s.files:
        figs["arrivals"] = Figure("the wave's arrivals per hop and the speed fits",
                                  ["plot", "waves", s.files["waves.json"], "--view", "arrivals"])
    return figs


def front_speeds(wave):
    """Per front (down, up, all): its speed per iteration and how far it reached."""
    fronts = (wave or {}).get("fronts") or {}
    cells = []
    for d in ("down", "up", "all"):
        f = fronts.get(d) or {}
        hops = f.get("reached_hops", 0)
        speed = DASH if f.get("speed") is None else f"{float(f['speed']):.2f}"
        cells.append(f'{speed} <span class="dim">({hops} hop{"" if hops == 1 else "s"})</span>')
    return cells


def coupling(value):
    if value is None:
        return DASH
    return f"{float(value):.0f}/s" if abs(float(value)) >= 100 else f"{num(value, 3)}/s"


def error_table(c):
    rows = []
    for r in c.get("runs", []):
        w = r.get("wave") or {}
        src = DASH if w.get("rank") is None or w.get("rank", -1) < 0 else f"rank {w['rank']}, it. {w.get('iteration')}"
        rows.append([escape(r.get("name", "?")), pct(r.get("end_error")), pct(r.get("lag_error")),
                     coupling(r.get("coupling")), src, *front_speeds(w),
                     DASH if w.get("resync_iteration") is None else f"iteration {w['resync_iteration']}"])
    return table(["model", "end error", "lag error", "coupling v<sub>p</sub>", "wave from",
                  "speed down", "speed up", "speed all (hops)", "resynchronised"], rows, "numbers")


def scenario_facts(s):
    c, app = s.compare, s.app or {}
    p = c.get("params") or {}
    pom = c.get("pom") or {}
    facts = [("input", escape(str(c.get("input", DASH)))), ("mean iteration", ms(c.get("period"))),
             ("largest injected delay", ms(c.get("delay"))),
             ("max-plus α, β", f"{ms(p.get('alpha'))}, {num(p.get('beta') and p['beta'] * 1e9, 3)} ns/B"),
             ("POM β, κ, paper coupling", f"{num(pom.get('beta'))}, {num(pom.get('kappa'))}, {num(pom.get('paper_coupling'))}/s")]
    if app:
        facts.insert(0, ("app", escape(f"{app.get('app', '?')}: {app.get('ranks', '?')} ranks, {app.get('iterations', '?')} "
                                       f"iterations (+{app.get('warmup', 0)} warm-up), work {app.get('work', '?')}, "
                                       f"{num(app.get('seconds'), 3)} s, verification "
                                       f"{'passed' if app.get('verification') else 'FAILED' if 'verification' in app else '—'}")))
    w = s.waves or {}
    if w:
        facts.append(("waves found", escape(f"{len(w.get('waves', []))} wave(s) in {w.get('description', '')}")))
    return table(["", ""], [[escape(k), v] for k, v in facts], "facts")


def scenario_section(s, figs):
    notes = "".join(f"<li>{escape(str(n))}</li>" for n in s.compare.get("notes", []))
    body = [source(s.provenance), scenario_facts(s), "<h3>Trace, max-plus and POM side by side</h3>"]
    body += [figure_html(figs[k]) for k in ("heatmaps",) if k in figs]
    body.append('<div class="pair">' + "".join(figure_html(figs[k]) for k in ("lags", "arrivals") if k in figs) + "</div>")
    body += ["<h3>Errors against the trace</h3>", error_table(s.compare),
             '<p class="note">end error: RMS of the end times against the trace over the mean iteration; lag error: RMS of '
             "the lags against the trace over the largest injected delay; speeds in ranks (all: hops) per iteration, the front's reach in brackets (docs/compare.md). From "
             f"<code>{escape(os.path.join(s.rel, 'compare.json'))}</code>.</p>"]
    if notes:
        body.append(f"<details><summary>ripple compare's notes</summary><ul>{notes}</ul></details>")
    return section(s.anchor, f"Scenario {s.rel}", "".join(body), "scenario")


# --- CXL sweeps ------------------------------------------------------------------------------------

def sweep_figures(sw, draw):
    figs = {"measured": Figure("measured against predicted speed-up", draw=lambda out: draw(sw.rows, out))}
    if sw.cxl:
        figs["costs"] = Figure("the model's cost per receive, MPI against CXL, per tile",
                               ["plot", "cxl", *[p for _, p in sw.cxl], "--labels", ",".join(f"tile {t}" for t, _ in sw.cxl)])
    return figs


def sweep_section(sw, figs, machines):
    rows = []
    for r in sw.rows:
        try:
            ratio = float(r["measured_speedup"]) / float(r["predicted_speedup"])
        except (ValueError, ZeroDivisionError, KeyError):
            ratio = None
        rows.append([escape(r.get("tile", "")), escape(r.get("halo", "")), num(r.get("seconds")), num(r.get("mpi_seconds")),
                     fixed(r.get("measured_speedup")), fixed(r.get("predicted_speedup")), fixed(ratio, 3)])
    machine = DASH
    if sw.machine:
        m = next((m for m in machines if os.path.realpath(m.path) == os.path.realpath(sw.machine)), None)
        machine = f'<a href="#{m.anchor}">{escape(m.rel)}</a>' if m else escape(sw.machine)
    body = [source(sw.provenance), f"<p>machine file: {machine}</p>",
            table(["tile", "halo", "seconds", "mpi seconds", "measured speed-up", "predicted speed-up", "measured / predicted"],
                  rows, "numbers"),
            f'<p class="note">From <code>{escape(os.path.join(sw.rel, "table.csv"))}</code>: measured is the mpi run\'s seconds '
            "over the mode's; predicted is ripple cxl's saving on the mpi trace for the receives the mode moves.</p>",
            '<div class="pair">' + "".join(figure_html(figs[k]) for k in ("measured", "costs") if k in figs) + "</div>"]
    return section(sw.anchor, f"CXL sweep {sw.rel}", "".join(body), "cxl")


# --- the rest --------------------------------------------------------------------------------------

def machines_section(machines):
    parts = []
    for m in machines:
        parts.append(f'<div id="{m.anchor}" class="machine"><h3>{escape(m.rel)}</h3>{source(m.provenance, "written by the job of")}'
                     f"<pre>{escape(m.text)}</pre></div>")
    return section("machines", "Machine files", "".join(parts))


def simulation_figure(sim):
    return Figure("the simulation", ["plot", "sim", sim.path])


# Each simulation's figure costs a plot of its whole output: a campaign of many gets the first few.
MAX_SIMULATION_FIGURES = 6


def simulations_section(sims, figs):
    parts = []
    if len(sims) > MAX_SIMULATION_FIGURES:
        parts.append(f'<p class="note">{len(sims)} simulations: the figures of the first {MAX_SIMULATION_FIGURES}; '
                     "<code>ripple plot sim FILE -o F.svg</code> draws any other.</p>")
    for sim in sims:
        attrs = table(["attribute", "value"], [[escape(k), escape(v)] for k, v in sim.attrs.items()], "facts")
        fig = figure_html(figs[sim.anchor]) if sim.anchor in figs else ""
        parts.append(f'<div id="{sim.anchor}"><h3>{escape(sim.rel)}</h3>{source(sim.provenance)}{fig}'
                     f"<details><summary>root attributes</summary>{attrs}</details></div>")
    return section("simulations", "Simulations", "".join(parts))


# Results worth a map when a campaign spans two numeric parameters, in this order (at most three).
GRID_RESULTS = ("resync_periods", "final_order_parameter", "lag_peak_periods", "measured_speedup", "predicted_speedup",
                "pom_wait_lag_error", "max_plus_predict_lag_error")


def campaign_figures(camp, draw):
    """{"grid": the results over the grid} when exactly two parameters vary and both are numeric."""
    params = []
    for p in camp.points.values():
        params += [k for k in p.get("params", {}) if k not in params]
    varying = [k for k in params if k in camp.header and len({r.get(k) for r in camp.rows}) > 1]
    if len(varying) != 2 or not all(_numeric(r.get(k) or "") for k in varying for r in camp.rows):
        return {}
    results = [k for k in GRID_RESULTS if k in camp.header][:3]
    if not results:
        return {}
    y, x = varying
    return {"grid": Figure(f"{', '.join(results)} over {y} and {x}", draw=lambda out: draw(camp.rows, x, y, results, out))}


def campaign_section(camp, found, figs=None):
    by_point = {s.rel[len("points/"):]: s for s in found.scenarios if s.rel.startswith("points/")}
    rows = []
    for r in camp.rows:
        cells = []
        for h in camp.header:
            v = r.get(h) or ""
            if h == "id" and v in by_point:
                cells.append(f'<a href="#{by_point[v].anchor}">{escape(v)}</a>')
            elif h in ("id", "job"):
                cells.append(escape(v))
            elif h == "status":
                cells.append(f'<span class="{"ok" if v == "done" else "bad"}">{escape(v)}</span>')
            else:
                cells.append(num(v) if _numeric(v) else escape(v))
        rows.append(cells)
    head = f"<p>campaign <b>{escape(camp.name)}</b>" + (f", template <code>{escape(camp.template)}</code>" if camp.template else "")
    head += f", {len(camp.rows)} point(s), {sum(r.get('status') == 'done' for r in camp.rows)} done. From <code>table.csv</code>"
    head += " and <code>points.json</code>; each point's numbers from its <code>points/ID/</code>.</p>"
    grid = figure_html(figs["grid"]) if figs and "grid" in figs else ""
    return section("campaign", "Campaign", head + grid + table([escape(h) for h in camp.header], rows, "numbers"))


def _numeric(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def provenance_section(found):
    parts = []
    for prov in sorted(found.provenances.values(), key=lambda p: p.path):
        parts.append(f'<div id="{prov.anchor}" class="prov"><h3>{escape(prov.path)}</h3><pre>{escape(prov.text)}</pre></div>')
    if not parts:
        parts.append('<p class="missing">no provenance.txt anywhere under the directory</p>')
    return section("provenance", "Provenance", "".join(parts))
