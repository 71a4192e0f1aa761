"""Ripple's figures and its one Python reader of Ripple files (docs/waves.md).

`ripple plot waves|sim INPUT -o FILE` runs this package (python3 -m ripple_plots); the tests and the
examples read traces, simulations and waves results through `ripple_plots.reader`. Needs Debian's
python3-matplotlib and python3-h5py."""
