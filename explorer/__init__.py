"""Attention Explorer: edit the numbers of the attention mechanism and watch every stage recompute."""
import os as _os
import sys as _sys

__version__ = "0.1.0"

# The explorer keeps BLAS on one thread per thread: its worker and lanes share the cores out
# (explorer/model/worker.py: one_blas_thread). Said before NumPy loads, OpenBLAS starts no helper
# threads, whose start and spinning took ~35 ms of wall and ~40 ms of CPU of every start-up here
# (issue 18). A setting of the person's own is kept.
if "numpy" not in _sys.modules:
    _os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
