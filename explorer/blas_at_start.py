"""One BLAS thread, said before NumPy loads, for the application only (not for ``explorer.models`` used
from a notebook, whose NumPy keeps its own threads).

The app keeps BLAS on one thread per thread: its worker and the forward pass's lanes share the cores
out (explorer/model/worker.py: one_blas_thread). Said before NumPy loads, OpenBLAS starts no helper
threads, whose start and spinning took ~35 ms of wall and ~40 ms of CPU of every start-up here
(issue 18). A setting of the person's own is kept.
"""
import os
import sys

if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
