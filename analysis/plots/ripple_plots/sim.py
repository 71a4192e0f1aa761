"""Figures of a `ripple sim` run, the oscillator paper's three views and the order parameter: the lag
timeline (each oscillator's phase against the slowest one's, as time ahead of it), the circle
diagram (phases on the unit circle, coloured by natural frequency: blue fast, yellow slow), the
potential timeline (each oscillator's summed interaction potential with its partners) and r(t)."""
import numpy as np

from .reader import neighbours

MAX_LINES = 24     # more oscillators than this are drawn as an image, one column each
MAX_COLUMNS = 256  # at most this many oscillators are read for an image


def chosen(n):
    """The oscillators drawn: all of a small run, evenly spaced ones of a large one."""
    return np.unique(np.linspace(0, n - 1, min(n, MAX_COLUMNS)).round().astype(int))


def potential(config):
    model = config.get("model", {})
    kind = model.get("potential", "tanh")
    if kind == "kuramoto":
        return np.sin
    if kind == "tanh":
        return np.tanh
    sigma = model.get("sigma", np.pi)
    alpha = 3 * np.pi / (2 * sigma)
    return lambda x: np.where(np.abs(x) < sigma, -np.sin(alpha * x), np.sign(x))


def slowest(sim):
    """min over all oscillators of the phase at each stored time, read row by row."""
    ds = sim.file["/phase"]
    return np.array([ds[k, :].min() for k in range(sim.rows)])


def draw_series(ax, sim, picks, values, label):
    """Lines for a few oscillators, an image for many (time along x)."""
    if len(picks) <= MAX_LINES:
        for j, i in enumerate(picks):
            ax.plot(sim.time, values[:, j], lw=1, label=f"{i}")
        if len(picks) <= 8:
            ax.legend(title="oscillator", fontsize="small")
        ax.set_ylabel(label)
    else:
        image = ax.imshow(values.T, aspect="auto", origin="lower", interpolation="nearest", cmap="viridis",
                          extent=(sim.time[0], sim.time[-1], picks[0] - 0.5, picks[-1] + 0.5))
        ax.figure.colorbar(image, ax=ax).set_label(label)
        ax.set_ylabel("oscillator")
    ax.set_xlabel("time [s]")


def draw_lag(ax, sim):
    picks = chosen(sim.oscillators)
    lag = (sim.phases(picks) - slowest(sim)[:, None]) / sim.omega[picks][None, :]
    draw_series(ax, sim, picks, lag * 1e3, "ahead of the slowest oscillator [ms]")
    ax.set_title("lag timeline")


def draw_circle(ax, sim):
    import matplotlib.pyplot as plt

    picks = chosen(sim.oscillators)
    theta = sim.phases(picks)[-1]
    ax.add_patch(plt.Circle((0, 0), 1, fill=False, color="0.7"))
    points = ax.scatter(np.cos(theta), np.sin(theta), c=sim.omega[picks], cmap="viridis_r", s=30, zorder=3)
    ax.figure.colorbar(points, ax=ax).set_label("natural frequency ω [rad/s] (blue fast, yellow slow)")
    ax.set_aspect("equal")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.set_xlabel("cos θ")
    ax.set_ylabel("sin θ")
    ax.set_title(f"circle diagram at t = {sim.time[-1]:g} s")


def draw_potential(ax, sim):
    n, picks = sim.oscillators, chosen(sim.oscillators)
    partners = [neighbours(sim.config, n, int(i)) for i in picks] if sim.config.get("topology", {}).get("kind") != "all" or n <= 1024 else None
    if partners is None or any(p is None for p in partners):
        ax.text(0.5, 0.5, "potential timeline: this topology is not drawn (edge file, or all-to-all beyond 1024)",
                ha="center", va="center", transform=ax.transAxes, wrap=True)
        ax.set_axis_off()
        return
    columns = sorted(set(picks.tolist()) | {j for p in partners for j in p})
    where = {c: k for k, c in enumerate(columns)}
    theta = sim.phases(columns)
    v = potential(sim.config)
    total = np.zeros((len(sim.time), len(picks)))
    for k, (i, p) in enumerate(zip(picks, partners)):
        for j in p:
            total[:, k] += v(theta[:, where[int(i)]] - theta[:, where[j]])
    draw_series(ax, sim, picks, total, "Σ_j V(θ_i − θ_j) over partners")
    ax.set_title(f"potential timeline ({sim.config.get('model', {}).get('potential', 'tanh')})")


def draw_order(ax, sim):
    ax.plot(sim.time, sim.order, color="k", lw=1.5, label="r(t)")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("order parameter r")
    ax.set_title("Kuramoto order parameter r(t) (1 = in step)")
    ax.legend(loc="lower right")


VIEWS = {"lag": draw_lag, "circle": draw_circle, "potential": draw_potential, "order": draw_order}


def figure(sim, view="all"):
    import matplotlib.pyplot as plt

    if view == "all":
        fig, axes = plt.subplots(2, 2, figsize=(13, 9.5))
        for ax, draw in zip(axes.flat, VIEWS.values()):
            draw(ax, sim)
    else:
        fig, ax = plt.subplots(figsize=(7.5, 5.5))
        VIEWS[view](ax, sim)
    fig.suptitle(f"{sim.path}: {sim.oscillators} oscillators, t = {sim.time[0]:g} .. {sim.time[-1]:g} s", fontsize="medium")
    fig.tight_layout()
    return fig
