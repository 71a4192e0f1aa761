"""Figures of `ripple cxl --json` results, like seed 003's Figs. 5, 7 and 8: per call-site tag, the
modelled cost of one receive over MPI (transfer + load) beside its cost over CXL (transfer + load),
one group of bars per result (a tile size, a machine), and the whole run's predicted speed-up per
result. Per receive, so that runs of different lengths compare."""
import numpy as np

VIEWS = ("costs", "speedup")


def tag_label(group):
    return f"tag {group['tag']}"


def matched(result, group, kind):
    """The access cost of the matching that drives the result's totals."""
    window = result.get("matching") == "window"
    return group[f"{kind}_access_window_ns" if window else f"{kind}_access_ns"]


def draw_costs(ax, results, labels):
    tags = sorted({g["tag"] for r in results for g in r["groups"]})
    width = 0.8 / (2 * max(1, len(tags)))
    scale, unit = 1e-3, "µs"

    def per_receive(gs, key):
        n = sum(g["receives"] for g in gs)
        return sum(key(g) for g in gs) / n if n else 0.0

    top = 0.0
    for r in results:
        for tag in tags:
            gs = [g for g in r["groups"] if g["tag"] == tag]
            for kind in ("mpi", "cxl"):
                top = max(top, per_receive(gs, lambda g: g[f"{kind}_transfer_ns"] + matched(r, g, kind)))
    for k, tag in enumerate(tags):
        for side, kind in enumerate(("mpi", "cxl")):
            x = np.arange(len(results)) - 0.4 + width * (2 * k + side + 0.5)
            trans, load = [], []
            for r in results:
                gs = [g for g in r["groups"] if g["tag"] == tag]  # the tag's call sites together
                trans.append(per_receive(gs, lambda g: g[f"{kind}_transfer_ns"]) * scale)
                load.append(per_receive(gs, lambda g: matched(r, g, kind)) * scale)
            colour = f"C{k % 10}"
            hatch = "" if kind == "mpi" else "//"
            ax.bar(x, trans, width, color=colour, alpha=0.9, hatch=hatch, edgecolor="black", lw=0.5)
            ax.bar(x, load, width, bottom=trans, color=colour, alpha=0.35, hatch=hatch, edgecolor="black", lw=0.5)
    ax.set_xticks(np.arange(len(results)))
    ax.set_xticklabels(labels)
    ax.set_ylabel(f"cost per receive [{unit}]")
    ax.set_title("per tag: MPI (plain) vs CXL (hatched); transfer (dark) + load (light)", fontsize="medium")
    from matplotlib.patches import Patch

    keys = [Patch(color=f"C{k % 10}", label=f"tag {tag}") for k, tag in enumerate(tags)]
    keys += [Patch(facecolor="white", edgecolor="black", label="MPI"),
             Patch(facecolor="white", edgecolor="black", hatch="//", label="CXL"),
             Patch(facecolor="gray", alpha=0.9, label="transfer"), Patch(facecolor="gray", alpha=0.35, label="load")]
    ax.legend(handles=keys, fontsize="small", ncol=min(len(keys), 6), loc="upper left")
    ax.set_ylim(0, top * scale * 1.25 if top > 0 else 1)


def draw_speedup(ax, results, labels):
    s = [r["speedup"] for r in results]
    colours = ["C2" if v >= 1 else "C3" for v in s]
    ax.bar(np.arange(len(results)), [v - 1 for v in s], 0.5, bottom=1, color=colours)
    ax.axhline(1, color="black", lw=0.8)
    for i, v in enumerate(s):
        ax.annotate(f"{v:.4f}x", (i, v), ha="center", va="bottom" if v >= 1 else "top", fontsize="small")
    lo, hi = min(s + [1]), max(s + [1])
    pad = max(0.02, 0.15 * (hi - lo))
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_xticks(np.arange(len(results)))
    ax.set_xticklabels(labels)
    ax.set_ylabel("predicted speed-up")
    ax.set_title("the whole run, every receive through CXL (> 1: CXL is faster)", fontsize="medium")


def figure(results, labels, view):
    import matplotlib.pyplot as plt

    notes = sorted({r["access"]["from"].split(" (")[0] for r in results} | {"weights: " + r["weights"]["from"].split(" (")[0]
                                                                           for r in results})
    if view == "all":
        fig, (a, b) = plt.subplots(2, 1, figsize=(min(16, max(7, 1.1 * len(results) + 4)), 8), height_ratios=(2, 1))
        draw_costs(a, results, labels)
        draw_speedup(b, results, labels)
    else:
        fig, a = plt.subplots(figsize=(min(16, max(7, 1.1 * len(results) + 4)), 5))
        (draw_costs if view == "costs" else draw_speedup)(a, results, labels)
    fig.suptitle("seed 003's model: message-free communication through CXL.mem", fontsize="medium")
    fig.text(0.01, 0.005, "; ".join(notes), fontsize="x-small", color="dimgray")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    return fig
