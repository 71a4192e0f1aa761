"""What the tracer's end-to-end checks read from a trace file: Ripple's one Python reader
(analysis/plots/ripple_plots/reader.py), under the name the checks import (lib.sh puts both
directories on PYTHONPATH)."""
from ripple_plots.reader import Trace  # noqa: F401
