"""How a forward pass shares the cores: rows of the dense parts and heads of the attention go to one
lane per core, while BLAS itself stays on one thread.

Why not BLAS's own threads (``threadpool_limits(cores)``): OpenBLAS's threads keep spinning for a
while after each product, and the element-wise passes that follow (softmax, GELU, norms) then share
the cores with them, which made those passes ~2× slower. Lanes calling one-thread BLAS keep the cores
busy with the products and the passes alike; NumPy's element-wise functions and matmul release the
GIL, so the lanes really run side by side. The app's rule of one BLAS thread is kept, not lifted.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable

PARALLEL_CELLS = 1 << 20  # work on fewer numbers than this stays on the calling thread
BLOCK_CELLS = 1 << 18     # element-wise rows are taken this many numbers at a time: every pass stays in cache
DENSE_ROWS = 256          # rows per block of the dense parts at most
MIN_DENSE_ROWS = 32       # and at least: BLAS's full speed needs ~32 rows or more
PARALLEL_PRODUCTS = 1 << 24  # dense parts of fewer multiply-adds stay on the calling thread

_pool: ThreadPoolExecutor | None = None
_controller = None
_in_lane = threading.local()  # work already on a lane runs its inner blocks there: no lane waits on another


def cores() -> int:
    """The CPUs this process may run on (its affinity: under taskset or a cpuset, fewer than the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _lanes() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(cores(), thread_name_prefix="forward-lane")
    return _pool


def _share(work: Callable, items: list) -> None:
    """``work(item)`` for every item, the items dealt round-robin to one lane per core."""
    n = cores()

    def lane(i):
        _in_lane.on = True
        try:
            for item in items[i::n]:
                work(item)
        finally:
            _in_lane.on = False

    list(_lanes().map(lane, range(n)))


def _serial() -> bool:
    return cores() < 2 or getattr(_in_lane, "on", False)


def in_blocks(work: Callable[[int, int], None], rows: int, row_len: int, step: int | None = None,
              lanes: bool = True) -> None:
    """``work(start, stop)`` over blocks of ``step`` rows (by default as many as fit the cache), shared
    between the lanes when ``lanes`` is True and, for cache-sized blocks, the rows hold at least
    PARALLEL_CELLS numbers."""
    cache_sized = step is None
    step = step or max(1, BLOCK_CELLS // max(row_len, 1))
    blocks = [(a, min(a + step, rows)) for a in range(0, rows, step)]
    if not lanes or _serial() or len(blocks) < 2 or (cache_sized and rows * row_len < PARALLEL_CELLS):
        for a, b in blocks:
            work(a, b)
        return
    _share(lambda block: work(*block), blocks)


def dense_rows(work: Callable[[int, int], None], rows: int, width: int) -> None:
    """``work(start, stop)`` over blocks of rows of a dense part (products of width × width matrices and
    what follows them), one block or more per lane."""
    step = max(MIN_DENSE_ROWS, min(DENSE_ROWS, -(-rows // cores())))
    in_blocks(work, rows, 1, step, lanes=rows * width * width >= PARALLEL_PRODUCTS and rows > step)


def by_heads(work: Callable[[int], None], heads: int, cells: int) -> None:
    """``work(i)`` for every head i, the heads shared between the lanes when each holds ``cells`` numbers
    and together at least PARALLEL_CELLS."""
    if _serial() or heads < 2 or heads * cells < PARALLEL_CELLS:
        for i in range(heads):
            work(i)
        return
    _share(work, list(range(heads)))


@contextmanager
def one_blas_thread():
    """BLAS on one thread inside the block (the lanes give the pass its cores); the limit before comes back after."""
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController  # scans the loaded libraries: not at import time
        _controller = ThreadpoolController()
    with _controller.limit(limits=1, user_api="blas"):
        yield
