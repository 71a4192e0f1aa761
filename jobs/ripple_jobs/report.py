"""ripple report DIR -o report.html: one self-contained page of everything Ripple wrote under DIR (a
campaign, or any tree of the batch templates' outputs): per scenario the trace, max-plus and POM side
by side, the error table, the CXL sweeps' predicted against measured speed-up, the machine files,
the simulations, and the provenance.txt every number comes from. Figures are `ripple plot`'s SVGs,
inlined; the page loads nothing from anywhere."""
import argparse
import datetime
import os
import sys
import tempfile
from html import escape

from . import report_find, report_sections as sec
from .report_figures import grid_figure, render, sweep_figure

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1500px; padding: 0 24px 48px; color: #1d1d1f; }
header { border-bottom: 3px solid #2a5d9f; margin-bottom: 12px; }
h1 { font-size: 26px; margin: 18px 0 4px; }
h2 { font-size: 20px; border-bottom: 1px solid #ccd; padding-bottom: 3px; margin-top: 34px; color: #17406d; }
h3 { font-size: 16px; margin: 18px 0 6px; }
nav ul { columns: 3; margin: 4px 0; padding-left: 18px; }
section { margin-bottom: 18px; }
table { border-collapse: collapse; margin: 6px 0 10px; font-size: 13px; }
th, td { border: 1px solid #c9ccd4; padding: 3px 8px; text-align: left; vertical-align: top; }
thead th { background: #e8edf5; }
tbody tr:nth-child(even) { background: #f6f7fa; }
table.numbers td { font-variant-numeric: tabular-nums; }
table.facts td:first-child { font-weight: 600; white-space: nowrap; }
.scroll { overflow-x: auto; }
figure { margin: 8px 0 14px; border: 1px solid #dde; padding: 6px; background: #fff; flex: 1 1 0; min-width: 0; }
figure svg { display: block; width: 100%; height: auto; max-height: 720px; }
figcaption { font-size: 12px; color: #444; margin-bottom: 4px; }
figcaption code { color: #666; font-size: 11px; }
.pair { display: flex; gap: 12px; align-items: flex-start; }
pre { background: #f4f5f7; border: 1px solid #dde; padding: 8px; overflow-x: auto; font-size: 12px; max-height: 480px; }
pre.error, .failed figcaption { color: #a40000; }
.source { font-size: 12px; color: #555; margin: 2px 0 8px; }
.missing, .bad { color: #a40000; }
.ok { color: #1b6e20; }
span.dim { color: #777; font-size: 12px; }
.note { font-size: 12px; color: #555; }
.warn { background: #fff3cd; border: 1px solid #e0c36b; padding: 6px 10px; }
"""


def parse(argv):
    p = argparse.ArgumentParser(prog="ripple report", description=__doc__.split("\n\n")[0])
    p.add_argument("dir", help="a campaign directory, or any directory holding the batch templates' outputs")
    p.add_argument("-o", "--output", default="report.html", help="the page to write (default: report.html)")
    p.add_argument("--title", help="the page's title (default: the directory's name)")
    return p.parse_args(argv)


def error(message):
    print(f"ripple: error: {message}", file=sys.stderr)
    return 2


def summary(found, title, failed):
    provs = list(found.provenances.values())
    builds = sorted({p.fields["build"] for p in provs if p.fields.get("build")})
    dates = sorted(p.fields["date"] for p in provs if p.fields.get("date"))
    hosts = sorted({p.fields["host"] for p in provs if p.fields.get("host")})
    gits = sorted({p.fields["git"] for p in provs if p.fields.get("git") and p.fields["git"] != "none"})
    counts = (f"{len(found.scenarios)} scenario(s), {len(found.sweeps)} CXL sweep(s), {len(found.machines)} machine file(s), "
              f"{len(found.simulations)} simulation(s), {len(provs)} provenance file(s)")
    what = f"the campaign {escape(found.campaign.name)}" if found.campaign else "a tree of Ripple's batch outputs"
    rows = [["directory", escape(found.root) + f" ({what})"], ["contents", escape(counts)],
            ["runs", escape(f"{dates[0]} to {dates[-1]}" if len(dates) > 1 else dates[0] if dates else "—")],
            ["hosts", escape(", ".join(hosts) or "—")], ["build", "<br>".join(escape(b) for b in builds) or "—"],
            ["source revision", "<br>".join(escape(g) for g in gits) or "—"],
            ["page written", escape(datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"))]]
    body = sec.table(["", ""], rows, "facts")
    if len(builds) > 1:
        body += '<p class="warn">The results come from more than one build of Ripple.</p>'
    if failed:
        body += '<p class="warn">' + escape(f"{len(failed)} figure(s) could not be drawn; their errors are in place.") + "</p>"
    if found.notes:
        body += "<p class='warn'>Skipped:</p><ul>" + "".join(f"<li>{escape(n)}</li>" for n in found.notes) + "</ul>"
    body += ('<p class="note">Every section names the provenance.txt its numbers come from (the template, its arguments, '
             "the job, the nodes, the build); they are all at the end, verbatim.</p>")
    return sec.section("summary", "Summary", body)


def contents(found):
    items = [("summary", "Summary")]
    if found.campaign:
        items.append(("campaign", "Campaign"))
    items += [(s.anchor, f"Scenario {s.rel}") for s in found.scenarios]
    items += [(s.anchor, f"CXL sweep {s.rel}") for s in found.sweeps]
    if found.machines:
        items.append(("machines", "Machine files"))
    if found.simulations:
        items.append(("simulations", "Simulations"))
    items.append(("provenance", "Provenance"))
    return "<nav><ul>" + "".join(f'<li><a href="#{a}">{escape(t)}</a></li>' for a, t in items) + "</ul></nav>"


def page(found, title):
    scen_figs = [sec.scenario_figures(s) for s in found.scenarios]
    sweep_figs = [sec.sweep_figures(sw, sweep_figure) for sw in found.sweeps]
    sim_figs = {sim.anchor: sec.simulation_figure(sim) for sim in found.simulations[:sec.MAX_SIMULATION_FIGURES]}
    camp_figs = sec.campaign_figures(found.campaign, grid_figure) if found.campaign else {}
    every = [f for d in scen_figs + sweep_figs + [camp_figs] for f in d.values()] + list(sim_figs.values())
    with tempfile.TemporaryDirectory(prefix="ripple-report-") as work:
        failed = render(every, work, found.root)
    parts = [summary(found, title, failed)]
    if found.campaign:
        parts.append(sec.campaign_section(found.campaign, found, camp_figs))
    parts += [sec.scenario_section(s, f) for s, f in zip(found.scenarios, scen_figs)]
    parts += [sec.sweep_section(sw, f, found.machines) for sw, f in zip(found.sweeps, sweep_figs)]
    if found.machines:
        parts.append(sec.machines_section(found.machines))
    if found.simulations:
        parts.append(sec.simulations_section(found.simulations, sim_figs))
    parts.append(sec.provenance_section(found))
    html = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>\n<body>'
            f"<header><h1>{escape(title)}</h1><p class=\"note\">ripple report of {escape(found.root)}</p>{contents(found)}</header>\n"
            + "\n".join(parts) + "\n</body></html>\n")
    return html, failed


def write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv):
    a = parse(argv)
    if not os.path.isdir(a.dir):
        return error(f"{a.dir}: {'not a directory' if os.path.exists(a.dir) else 'no such directory'}")
    folder = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(folder):
        return error(f"{a.output}: its directory {folder} does not exist")
    found = report_find.find(a.dir)
    if found.empty():
        return error(f"{a.dir}: holds nothing Ripple wrote (no compare.json, CXL table.csv, machine file, campaign table "
                     "or simulation)")
    title = a.title or f"Ripple report: {os.path.basename(found.root)}"
    html, failed = page(found, title)
    try:
        write_atomically(a.output, html)
    except OSError as e:
        return error(f"{a.output}: cannot write it ({e.strerror})")
    print(f"report: {len(found.scenarios)} scenarios, {len(found.sweeps)} CXL sweeps, {len(found.machines)} machine files, "
          f"{len(found.simulations)} simulations, {len(found.provenances)} provenance files, {len(failed)} figures failed "
          f"-> {a.output}")
    return 0
