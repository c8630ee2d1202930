"""Permutation equivariance: without positions, shuffling the tokens shuffles the outputs the same way."""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ShuffleCheck:
    """How far the new output is from the old output permuted the same way (≈1e-16 means equivariant)."""

    perm: tuple  # new row i was old row perm[i]
    max_difference: float
    equivariant: bool


def shuffle_permutation(length, seed=0):
    """A seeded permutation of range(length) that moves something whenever length > 1."""
    rng = np.random.default_rng(int(seed))
    if length < 2:
        return np.arange(length)
    while True:
        perm = rng.permutation(length)
        if np.any(perm != np.arange(length)):
            return perm


def permutation_check(before, after, perm, tol=1e-9):
    """Compare ``after`` with ``before[perm]`` (outputs of shape (L, d)); scale-aware tolerance."""
    before, after = np.asarray(before), np.asarray(after)
    if before.shape != after.shape:
        return ShuffleCheck(tuple(int(p) for p in perm), float("inf"), False)
    diff = float(np.max(np.abs(after - before[np.asarray(perm)]))) if after.size else 0.0
    ok = diff <= tol * max(1.0, float(np.max(np.abs(before))) if before.size else 1.0)
    return ShuffleCheck(tuple(int(p) for p in perm), diff, ok)
