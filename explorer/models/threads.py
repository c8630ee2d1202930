"""Let one forward pass use every core.

The app keeps BLAS to one thread (``explorer.model.worker.one_blas_thread``): its own threads share
the cores, and BLAS threads on top fight the GUI thread. A real model's forward pass is one long
batch of large matrix products, where BLAS's threads pay off; the GUI's worker wraps it in
``with all_cores():`` and the one-thread limit comes back when the block ends.
"""
from __future__ import annotations

import os
from contextlib import contextmanager


@contextmanager
def all_cores(threads: int | None = None):
    """BLAS (and OpenMP) may use ``threads`` threads, every core by default, inside the block."""
    from threadpoolctl import threadpool_limits  # scans the loaded libraries: not at import time

    with threadpool_limits(limits=threads or os.cpu_count() or 1):
        yield
