"""The report's figures: `ripple plot` run as a subprocess (the same figures a user draws by hand),
each SVG inlined; and the CXL sweep's predicted-against-measured figure, drawn here (ripple_plots.cxl
has no view of table.csv). A figure that fails leaves its error text in the page, never the page."""
import io
import os
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor


_pyplot = threading.Lock()  # figures drawn here share pyplot, which is not thread-safe


def ripple_binary():
    return os.environ.get("RIPPLE") or shutil.which("ripple") or "ripple"


class Figure:
    """One figure: what draws it, and after render() its SVG text or the error."""

    def __init__(self, title, args=None, draw=None):
        self.title, self.args, self.draw = title, args, draw
        self.svg, self.error = None, None

    def command(self):
        return "ripple " + " ".join(self.args) if self.args else "drawn by ripple report (matplotlib)"


def inline(svg, prefix):
    """An SVG file's text made fit for one HTML page among others: no XML prologue, no metadata
    (it names URLs), and every id prefixed so that two figures' clip paths never collide."""
    svg = re.sub(r"^\s*<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", svg)
    svg = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', svg)
    return svg


def run_plot(fig, workdir, k, cwd, timeout):
    out = os.path.join(workdir, f"figure-{k}.svg")
    try:
        if fig.draw is not None:
            with _pyplot:
                fig.draw(out)
        else:
            p = subprocess.run([ripple_binary(), *fig.args, "-o", out], capture_output=True, text=True,
                               timeout=timeout, cwd=cwd)
            if p.returncode != 0 or not os.path.exists(out):
                lines = [line for line in (p.stderr + p.stdout).splitlines() if line.strip()]
                fig.error = f"exit code {p.returncode}: " + (" / ".join(lines[-3:]) or "no output")
                return
        with open(out, encoding="utf-8") as f:
            fig.svg = inline(f.read(), f"f{k}-")
    except subprocess.TimeoutExpired:
        fig.error = f"took longer than {timeout} s"
    except Exception as e:  # noqa: BLE001 - a figure that cannot be drawn is reported in the page, not fatal
        fig.error = f"{type(e).__name__}: {e}"


def render(figures, workdir, cwd, timeout=300):
    """Draws every figure (a few at once: each is its own Python process) in cwd, the report's
    directory, so that the commands the page shows name its files as the reader sees them; returns
    the failed ones."""
    for f in figures:
        if f.args:
            f.args = [os.path.relpath(a, cwd) if os.path.isabs(a) and a.startswith(cwd + os.sep) else a for a in f.args]
    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        list(pool.map(lambda kf: run_plot(kf[1], workdir, kf[0], cwd, timeout), enumerate(figures)))
    failed = [f for f in figures if f.svg is None]
    for f in failed:
        print(f"ripple report: warning: figure '{f.title}' ({f.command()}) failed: {f.error}", file=sys.stderr)
    return failed


def sweep_figure(rows, path):
    """Measured against predicted speed-up, one marker per tile and halo mode, with y = x: points above
    the line ran faster than the model predicts."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    halos = sorted({r["halo"] for r in rows})
    tiles = sorted({r["tile"] for r in rows}, key=lambda t: (len(t), t))
    markers = "osD^v<>ph*"
    fig, ax = plt.subplots(figsize=(7, 5))
    values = []
    for i, halo in enumerate(halos):
        for j, tile in enumerate(tiles):
            pts = [(float(r["predicted_speedup"]), float(r["measured_speedup"])) for r in rows
                   if r["halo"] == halo and r["tile"] == tile]
            pts = [p for p in pts if all(map(lambda v: v == v and abs(v) != float("inf"), p))]
            if not pts:
                continue
            values += [v for p in pts for v in p]
            ax.scatter(*zip(*pts), s=60, color=f"C{i % 10}", marker=markers[j % len(markers)], edgecolor="black",
                       lw=0.5, label=f"tile {tile}, {halo}", zorder=3)
    lo, hi = (min(values + [1.0]), max(values + [1.0])) if values else (0.9, 1.1)
    pad = max(0.02, 0.1 * (hi - lo))
    lo, hi = lo - pad, hi + pad
    ax.plot([lo, hi], [lo, hi], color="gray", lw=1, ls="--", label="measured = predicted", zorder=1)
    ax.axhline(1, color="black", lw=0.5, zorder=1)
    ax.axvline(1, color="black", lw=0.5, zorder=1)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel("predicted speed-up (ripple cxl)")
    ax.set_ylabel("measured speed-up")
    ax.set_title("CXL sweep: measured against predicted", fontsize="medium")
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    with open(path, "w", encoding="utf-8") as f:
        f.write(buffer.getvalue())


def grid_figure(rows, x, y, results, path):
    """A campaign over two numeric parameters: one heatmap per result over the grid (y down, x
    across), each cell annotated with its value; empty cells (no result, or NaN) stay blank."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt
    import numpy as np

    xs = sorted({float(r[x]) for r in rows})
    ys = sorted({float(r[y]) for r in rows})
    fig, axes = plt.subplots(1, len(results), figsize=(5.2 * len(results), 4.4), squeeze=False)
    for ax, name in zip(axes[0], results):
        grid = np.full((len(ys), len(xs)), np.nan)
        for r in rows:
            try:
                grid[ys.index(float(r[y])), xs.index(float(r[x]))] = float(r.get(name) or "nan")
            except ValueError:
                pass
        image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        for (i, j), v in np.ndenumerate(grid):
            if v == v:  # dark text on viridis' light end, light text on its dark end
                ax.text(j, i, f"{v:.3g}", ha="center", va="center", fontsize=6,
                        color="black" if image.norm(v) > 0.6 else "white")
        ax.set_xticks(range(len(xs)), [f"{v:g}" for v in xs], rotation=45, fontsize="small")
        ax.set_yticks(range(len(ys)), [f"{v:g}" for v in ys], fontsize="small")
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(name, fontsize="medium")
        fig.colorbar(image, ax=ax, shrink=0.85)
    fig.tight_layout()
    fig.savefig(path, format="svg")
    plt.close(fig)
