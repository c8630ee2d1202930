"""The shown head's q·kᵀ before scale and temperature, kept from one recompute to the next.

A temperature or scale step changes every score but not q·kᵀ: ``scores = (q·kᵀ) · (scale / T)``,
the product made first and then multiplied, in the pipeline as here. So when the shown head's q and k
are the same bits as last time, its product is the one kept, multiplied again: the same numbers bit
for bit, without the matrix multiplication (at L = 1024, on one thread: ~0.5 ms for heads 8 wide,
2–4 ms for heads 64 wide). One head only,
and only up to KEEP_CELLS (at L = 4096 a product is 128 MiB): above it nothing is kept.
"""
import numpy as np

KEEP_CELLS = 2048 * 2048  # a kept product of at most 32 MiB


def _bits(m):
    """A matrix's exact bits (−0.0 is not 0.0), as a contiguous copy."""
    return np.ascontiguousarray(m, dtype=np.float64).view(np.int64).copy()


class RawScores:
    """One q·kᵀ product and the q and k it was made from. Used by one thread at a time (the worker's
    job: one job runs at a time); ``reused`` says whether the last ``product`` was the kept one."""

    def __init__(self):
        self._q = self._k = None  # the bits of the q and k of ``_product`` (None: nothing valid kept)
        self._product = None
        self.reused = False

    def product(self, q, k):
        """q·kᵀ (q: (Lq, d), k: (Lk, d)) in an array kept for the next call, or None when it is larger
        than KEEP_CELLS (the caller multiplies into its own array then)."""
        shape = (q.shape[0], k.shape[0])
        self.reused = False
        if shape[0] * shape[1] > KEEP_CELLS:
            self.forget()
            return None
        q_bits, k_bits = _bits(q), _bits(k)
        if (self._q is not None and self._q.shape == q_bits.shape and self._k.shape == k_bits.shape
                and np.array_equal(self._q, q_bits) and np.array_equal(self._k, k_bits)):
            self.reused = True
            return self._product
        if self._product is None or self._product.shape != shape:
            self._product = None  # the old one is freed before the new one is made
            self._product = np.empty(shape)
        self._q = self._k = None  # not valid while it is rewritten
        with np.errstate(over="ignore", invalid="ignore"):
            np.matmul(q, k.T, out=self._product)
        self._q, self._k = q_bits, k_bits
        return self._product

    @property
    def kept_bytes(self):
        """The memory the kept product takes (0 when none is kept)."""
        return 0 if self._product is None else self._product.nbytes

    def forget(self):
        """Keep nothing (its memory is freed)."""
        self._q = self._k = self._product = None
