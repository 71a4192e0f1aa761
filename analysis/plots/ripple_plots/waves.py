"""Figures of a `ripple waves` result: the rank x iteration heatmap of idle time (the view of
Vampir's and ITAC's timelines, one cell per rank and iteration) and each wave's arrival iteration
against its distance from the source, with the least-squares speed fit."""
import numpy as np

MAX_WAVES_DRAWN = 4  # the arrivals panel draws the largest ones


def idle_matrix(w):
    """[ranks, iterations] of time inside MPI in ms (a simulation: the crossing's delay against free
    running, per iteration), or None when the result carries no table."""
    table = w.get("table")
    if not table:
        return None
    return np.array([[np.nan if v is None else v for v in row] for row in table["wait"]], dtype=float) * 1e3


def draw_heatmap(ax, w):
    idle = idle_matrix(w)
    if idle is None:
        ax.text(0.5, 0.5, "no table in this result (too large): see ripple waves --csv", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return None
    first, ranks = w["first_iteration"], w["ranks"]
    signed = np.nanmin(idle) < 0 if np.isfinite(idle).any() else False
    clipped = None
    if signed:  # a simulation: ahead of free running (negative) and behind (positive)
        # The kicked oscillator's catching up dwarfs the lag it drags its neighbours back by: the
        # colours end at the 99th percentile of the magnitudes, so that the wave shows.
        limit = float(np.nanpercentile(np.abs(idle), 99)) or float(np.nanmax(np.abs(idle))) or 1.0
        clipped = limit if limit < np.nanmax(np.abs(idle)) else None
        image = ax.imshow(idle, aspect="auto", origin="lower", interpolation="nearest", cmap="RdBu_r", vmin=-limit,
                          vmax=limit, extent=(first - 0.5, first + idle.shape[1] - 0.5, -0.5, ranks - 0.5))
    else:
        image = ax.imshow(idle, aspect="auto", origin="lower", interpolation="nearest", cmap="magma",
                          extent=(first - 0.5, first + idle.shape[1] - 0.5, -0.5, ranks - 0.5))
    sources = w.get("sources", [])
    if sources:
        ax.scatter([s["iteration"] for s in sources], [s["rank"] for s in sources], marker="x", color="cyan", s=40,
                   label="delay source (injected)" if sources[0]["injected"] else "delay source (detected)")
        ax.legend(loc="upper right", fontsize="small")
    unit = "oscillator" if w["source"] == "simulation" else "rank"
    integer_ticks(ax)
    ax.set_xlabel("iteration")
    ax.set_ylabel(unit)
    ax.set_title("idle time per " + unit + " and iteration")
    colorbar = ax.figure.colorbar(image, ax=ax)
    label = "delay against free running [ms]" if w["source"] == "simulation" else "idle time (in MPI) [ms]"
    colorbar.set_label(label + (f", clipped at ±{clipped:.2g}" if clipped else ""))
    return image


def integer_ticks(ax):
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def draw_arrivals(ax, w):
    waves = sorted(range(len(w["waves"])), key=lambda i: -(w["waves"][i]["source"]["delay"] or 0))[:MAX_WAVES_DRAWN]
    drawn, by_hops = 0, False
    for i in sorted(waves):
        wave = w["waves"][i]
        fronts = [f for f in wave["fronts"] if f["direction"] in ("down", "up")]
        if not fronts:  # collectives or a lone rank: every direction at once, by hop
            fronts = [f for f in wave["fronts"] if f["direction"] == "all"]
        s = wave["source"]
        for f in fronts:
            by_hop = f["direction"] == "all"
            by_hops = by_hops or by_hop
            a = f["arrivals"]
            if not a:
                continue
            x = np.array([p["hop"] if by_hop else p["offset"] for p in a], dtype=float)
            y = np.array([p["iteration"] for p in a], dtype=float)
            speed = f["speed"]["hops_per_iteration" if by_hop else "ranks_per_iteration"]
            r2 = f["speed"]["r2_iteration"]
            label = f"wave {i} (rank {s['rank']}, it. {s['iteration']}) {f['direction']}: "
            label += (f"{speed:.2f} {'hops' if by_hop else 'ranks'}/iteration, R² = {r2:.3f}" if speed is not None
                      else "all in one iteration")
            points = ax.plot(x, y, "o", label=label)[0]
            if speed is not None and speed > 0:
                # iteration = intercept + distance / speed, through the points' means
                d = np.abs(x)
                ends = np.array([0.0, d.max()])
                ax.plot(np.sign(x[0]) * ends, y.mean() + (ends - d.mean()) / speed, "-", color=points.get_color(), alpha=0.6)
            drawn += 1
    if drawn == 0:
        ax.text(0.5, 0.5, "no idle wave", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(fontsize="small")
    integer_ticks(ax)
    ax.set_xlabel("hops from the source" if by_hops else "rank offset from the source (lower ranks < 0 < higher ranks)")
    ax.set_ylabel("arrival iteration")
    ax.set_title("idle-wave arrival and speed")


def figure(w, view="all"):
    import matplotlib.pyplot as plt

    if view == "all":
        fig, axes = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [1.25, 1]})
        draw_heatmap(axes[0], w)
        draw_arrivals(axes[1], w)
    else:
        fig, ax = plt.subplots(figsize=(7.5, 5))
        (draw_heatmap if view == "heatmap" else draw_arrivals)(ax, w)
    fig.suptitle(f"{w['input']}: {w['ranks']} {'oscillators' if w['source'] == 'simulation' else 'ranks'}, "
                 f"{w['iterations']} iterations ({w['source']})", fontsize="medium")
    fig.tight_layout()
    return fig
