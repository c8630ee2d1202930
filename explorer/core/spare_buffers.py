"""Result buffers made ready while a large session file is still being read (issue 18).

Fresh memory is mapped and zeroed by the kernel at its first touch: for the shown head of a 4096-token
session (its scores and weights, 256 MiB) 0.1–0.9 s on a VM, the larger part of the wait for its first
results. A file's description gives the shape before its matrices are read, so a thread touches that
head's rows meanwhile; the recompute then ``take``s the arrays, the thread stopped first (never two
writers), or they are ``release``d.
"""
from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from .settings_schema import SCHEMA, check_value

# Made only for results at least this large (every head's scores and weights): below it the first
# touch is too short to be worth a thread.
SPARE_BYTES = 256 * 2**20
_CHUNK_BYTES = 4 * 2**20  # touched a block of rows at a time: ``take`` waits for one block at most


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
    """Fresh (H, Lq, Lk) scores and weights arrays whose head ``head`` a thread is touching (its scores
    first, the first array QKᵀ writes, then its weights)."""

    def __init__(self, heads: int, n_queries: int, n_keys: int, head: int):
        self.shape = (heads, n_queries, n_keys)
        self.head = head
        self.scores = np.empty(self.shape)
        self.weights = np.empty(self.shape)
        self.touched_rows = 0  # rows of ``scores[head]`` touched so far
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._touch, name="spare-buffers", daemon=True)
        self._thread.start()

    def _touch(self):
        rows = max(1, _CHUNK_BYTES // (8 * self.shape[2]))
        for which in ("scores", "weights"):
            for top in range(0, self.shape[1], rows):
                if self._stop.is_set():
                    return
                array = getattr(self, which)
                if array is None:
                    return
                array[self.head, top:top + rows] = 0.0
                if which == "scores":
                    self.touched_rows = min(top + rows, self.shape[1])

    def take(self, shape):
        """(scores, weights) for results of ``shape`` (H, Lq, Lk), once the thread has stopped (it is
        stopped whatever the shape); None when the shape differs or they were taken or released."""
        self._stop.set()
        self._thread.join()
        arrays = (self.scores, self.weights)
        self.scores = self.weights = None
        return arrays if tuple(shape) == self.shape and arrays[0] is not None else None

    def release(self):
        """Not wanted: the thread stops at its next block and the arrays go with it (no wait)."""
        self._stop.set()
        self.scores = self.weights = None
