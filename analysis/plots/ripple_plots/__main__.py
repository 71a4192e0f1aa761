"""python3 -m ripple_plots waves WAVES.json | sim SIM.h5 | compare RESULT.h5 | cxl R.json... -o FILE [--view ...]
(what `ripple plot` runs)."""
import argparse
import sys

try:
    import h5py  # noqa: F401
    import matplotlib
except ImportError as missing:
    print(f"ripple: error: {missing.name} is missing: apt-get install python3-matplotlib python3-h5py "
          "(or set RIPPLE_PYTHON to a Python that has them)", file=sys.stderr)
    sys.exit(1)

matplotlib.use("Agg")  # files only: no display needed
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text in SVG

from . import compare, cxl, reader, sim, waves  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(prog="ripple plot", description=__doc__)
    sub = p.add_subparsers(dest="kind", required=True)
    w = sub.add_parser("waves")
    w.add_argument("input")
    w.add_argument("-o", "--output", required=True)
    w.add_argument("--view", default="all", choices=["all", "heatmap", "arrivals"])
    s = sub.add_parser("sim")
    s.add_argument("input")
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--view", default="all", choices=["all", *sim.VIEWS])
    c = sub.add_parser("compare")
    c.add_argument("input")
    c.add_argument("-o", "--output", required=True)
    c.add_argument("--view", default="all", choices=["all", "heatmaps", "lags"])
    x = sub.add_parser("cxl")
    x.add_argument("input", nargs="+")
    x.add_argument("-o", "--output", required=True)
    x.add_argument("--view", default="all", choices=["all", *cxl.VIEWS])
    x.add_argument("--labels", default="", help="comma-separated, one per input (default: the file names)")
    a = p.parse_args(argv)
    try:
        if a.kind == "cxl":
            labels = a.labels.split(",") if a.labels else [i.rsplit("/", 1)[-1].removesuffix(".json") for i in a.input]
            if len(labels) != len(a.input):
                raise reader.FormatError(f"--labels names {len(labels)} results, but {len(a.input)} are given")
            fig = cxl.figure([reader.read_cxl(i) for i in a.input], labels, a.view)
        elif a.kind == "waves":
            fig = waves.figure(reader.read_waves(a.input), a.view)
        elif a.kind == "compare":
            fig = compare.figure(reader.read_compare(a.input), a.view)
        else:
            fig = sim.figure(reader.Sim(a.input), a.view)
        fig.savefig(a.output, dpi=110)
    except (reader.FormatError, OSError) as e:
        print(f"ripple: error: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError, IndexError) as e:  # a file that holds what it should not
        print(f"ripple: error: {' '.join(a.input) if isinstance(a.input, list) else a.input}: cannot draw it ({type(e).__name__}: {e}): not as `ripple` writes it?", file=sys.stderr)
        return 2
    print(f"ripple plot: wrote {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
