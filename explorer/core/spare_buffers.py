"""Result buffers made ready while a large session file is still being read (issue 18).

Fresh memory is mapped and zeroed by the kernel at its first touch: for the shown head of a 4096-token
session (its scores and weights, 256 MiB) 0.1–0.9 s on a VM, the larger part of the wait for its first
results. A file's description gives the shape before its matrices are read, so a thread touches that
head's rows meanwhile; the recompute then ``take``s the arrays, the threads stopped first (never two
writers), or they are ``release``d.
"""
from __future__ import annotations

import mmap
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from .settings_schema import SCHEMA, check_value

# Made only for results at least this large (every head's scores and weights): below it the first
# touch is too short to be worth a thread.
SPARE_BYTES = 256 * 2**20
_CHUNK_BYTES = 4 * 2**20  # touched a block of rows at a time: ``take`` waits for one block at most
_SMALL_PAGES_FROM = 4 * 2**20  # bytes: NumPy asks for transparent huge pages from here on


def results_array(shape) -> np.ndarray:
    """Fresh float64 memory for a stage of every head's results, a large one in 4 KiB pages rather than the
    transparent huge pages NumPy asks for. On a VM that hands freed memory back to its host (this one's
    free page reporting) the first touch of a huge page faults 512 host pages: 256 MiB took 0.5–0.8 s,
    against a steady 0.12–0.25 s in small pages; on bare metal small pages cost a little more (more faults),
    mostly while a file is read or for heads nobody is looking at yet."""
    size = 8 * int(np.prod(shape))
    advise = getattr(mmap, "MADV_NOHUGEPAGE", None)
    if size < _SMALL_PAGES_FROM or advise is None:
        return np.empty(shape)
    try:
        memory = mmap.mmap(-1, size)  # anonymous, zero-filled when touched, unmapped when the array goes
    except OSError as exc:  # ENOMEM: said as NumPy says it, which the callers expect
        raise MemoryError(f"cannot allocate {size} bytes for results") from exc
    try:
        memory.madvise(advise)
    except OSError:  # a kernel without transparent huge pages
        pass
    return np.frombuffer(memory, dtype=np.float64).reshape(shape)


def outline_shape(n_queries: int, n_keys: int, settings: Mapping[str, Any]) -> tuple[int, int, int, int] | None:
    """(heads, queries, keys, the head shown first) as a file's description gives them, before any
    check of the matrices; None where the settings cannot be a session's (the read refuses it later)."""
    try:
        heads = check_value("heads", settings.get("heads", SCHEMA["heads"].default))
        head = check_value("selected_head", settings.get("selected_head", SCHEMA["selected_head"].default))
    except (ValueError, TypeError):
        return None
    if n_queries < 1 or n_keys < 1:
        return None
    return heads, int(n_queries), int(n_keys), min(head, heads - 1)


def spare_for(shape, keep=None):
    """SpareBuffers for ``shape`` (``outline_shape``'s) when its results are large (≥ SPARE_BYTES) and not
    of the shape ``keep`` (H, Lq, Lk: results a recompute will reuse anyway); else, or out of memory, None."""
    if shape is None or tuple(shape[:3]) == keep or 16 * shape[0] * shape[1] * shape[2] < SPARE_BYTES:
        return None
    try:
        return SpareBuffers(*shape)
    except (MemoryError, ValueError):
        return None


class SpareBuffers:
    """Fresh (H, Lq, Lk) scores and weights arrays whose head ``head`` two threads are touching, one each."""

    def __init__(self, heads: int, n_queries: int, n_keys: int, head: int):
        self.shape = (heads, n_queries, n_keys)
        self.head = head
        self.scores = results_array(self.shape)
        self.weights = results_array(self.shape)
        self.touched_rows = 0  # rows of ``scores[head]`` touched so far
        self._stop = threading.Event()
        # one thread per array: the kernel's work of mapping pages goes faster on two cores (and
        # the read of the file, beside them, spends much of its time waiting for the disk)
        self._threads = [threading.Thread(target=self._touch, args=(which,), name=f"spare-{which}", daemon=True)
                         for which in ("scores", "weights")]
        for thread in self._threads:
            thread.start()

    def _touch(self, which):
        rows = max(1, _CHUNK_BYTES // (8 * self.shape[2]))
        for top in range(0, self.shape[1], rows):
            if self._stop.is_set():
                return
            array = getattr(self, which)
            if array is None:
                return
            array[self.head, top:top + rows] = 0.0
            if which == "scores":
                self.touched_rows = min(top + rows, self.shape[1])

    def _join(self):
        for thread in self._threads:
            thread.join()

    def take(self, shape):
        """(scores, weights) for results of ``shape`` (H, Lq, Lk), once the threads have stopped (they
        are stopped whatever the shape); None when the shape differs or they were taken or released."""
        self._stop.set()
        self._join()
        arrays = (self.scores, self.weights)
        self.scores = self.weights = None
        return arrays if tuple(shape) == self.shape and arrays[0] is not None else None

    def release(self):
        """Not wanted: the threads stop at their next block and the arrays go with it (no wait)."""
        self._stop.set()
        self.scores = self.weights = None
