"""Figures of a `ripple compare` result: the idle-time heatmaps of the trace, the max-plus timeline
model's prediction and the oscillator model that fits best, side by side on one colour scale, and the
lag timelines of a few ranks near the delay, the three overlaid."""
import math

import numpy as np


def chosen_runs(c):
    """The trace, max-plus predict (else replay), and the oscillator model with the smallest lag error."""
    runs = {r["name"]: r for r in c["runs"]}
    picks = [runs["trace"]]
    for name in ("max-plus predict", "max-plus replay"):
        if name in runs:
            picks.append(runs[name])
            break
    pom = [r for r in c["runs"] if r["name"].startswith("POM")]
    if pom:
        picks.append(min(pom, key=lambda r: r["lag_error"] if math.isfinite(r["lag_error"]) else math.inf))
    return picks


def label(run):
    name = run["name"]
    if name.startswith("POM"):
        name += f" (v_p {run['coupling']:.3g}/s)"
    if name != "trace" and math.isfinite(run["lag_error"]):
        name += f", lag error {100 * run['lag_error']:.0f} %"
    return name


def draw_heatmaps(axes, c, runs):
    idle = [np.clip(r["wait"] * 1e3, 0, None) for r in runs]  # a simulation's negative waits (pulled ahead) as 0
    top = max(float(np.nanmax(i)) if np.isfinite(i).any() else 0 for i in idle) or 1.0
    first = c["first_iteration"]
    for ax, run, values in zip(axes, runs, idle):
        image = ax.imshow(values, aspect="auto", origin="lower", interpolation="nearest", cmap="magma", vmin=0, vmax=top,
                          extent=(first - 0.5, first + values.shape[1] - 0.5, -0.5, values.shape[0] - 0.5))
        ax.set_title(label(run), fontsize="medium")
        ax.set_xlabel("iteration")
        ax.set_ylabel("rank")
    ax.figure.colorbar(image, ax=list(axes)).set_label("idle time [ms] (one scale for all)")


def draw_lags(ax, c, runs):
    trace = runs[0]
    ranks = trace["lag"].shape[0]
    source = trace["wave_rank"] if trace["wave_rank"] >= 0 else ranks // 2
    watched = [r for r in (source + 1, source + 2, source + 4, source - 1) if 0 <= r < ranks][:4]
    styles = ["-", "--", ":"]
    first = c["first_iteration"]
    for k, rank in enumerate(watched):
        colour = f"C{k}"
        for run, style in zip(runs, styles):
            lag = run["lag"][rank] * 1e3
            ax.plot(first + np.arange(len(lag)), lag, style, color=colour, lw=1.5,
                    label=f"rank {rank}, {run['name']}" if k == 0 or style == "-" else None)
    ax.set_xlabel("iteration")
    ax.set_ylabel("lag behind the iteration's earliest end [ms]")
    ax.set_title("lag timelines (solid: trace, dashed: max-plus, dotted: oscillator model)")
    ax.legend(fontsize="small", ncol=2)


def figure(c, view="all"):
    import matplotlib.pyplot as plt

    runs = chosen_runs(c)
    if view == "heatmaps":
        # constrained: the rank labels of the second and third map clear the maps beside them
        fig, axes = plt.subplots(1, len(runs), figsize=(5 * len(runs), 4.5), squeeze=False, layout="constrained")
        draw_heatmaps(axes[0], c, runs)
    elif view == "lags":
        fig, ax = plt.subplots(figsize=(9, 5))
        draw_lags(ax, c, runs)
    else:
        fig = plt.figure(figsize=(5 * len(runs), 9.5))
        grid = fig.add_gridspec(2, len(runs))
        draw_heatmaps([fig.add_subplot(grid[0, i]) for i in range(len(runs))], c, runs)
        draw_lags(fig.add_subplot(grid[1, :]), c, runs)
    fig.suptitle(f"{c['input']}: the run against its models (mean iteration {1e3 * c['period']:.3g} ms, "
                 f"largest delay {1e3 * c['delay']:.3g} ms)", fontsize="medium")
    return fig
