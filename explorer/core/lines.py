"""Which lines to draw for "attention lines": query i → key j, one per weight worth showing.

A row of weights is a query's budget over the keys. Drawing every pair is L² lines, which is fine for
the chapter's four tokens and unreadable (and slow) at L = 1024; so the view keeps the k largest
weights of each row, and at most a few thousand of the strongest lines overall. Masked pairs have a
weight of exactly 0 and never become a line.
"""
import numpy as np

from .errors import NonFiniteError, ShapeError


def _check_weights(weights):
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"weights must be a numeric array: {exc}") from None
    if w.ndim != 2:
        raise ShapeError(f"weights must be 2-D (queries × keys), got shape {w.shape}")
    if not np.isfinite(w).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(w))[0])
        raise NonFiniteError(f"weights has a non-finite value {w[bad]} at {bad}")
    return w


def _empty():
    return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp), np.empty(0, dtype=np.float64)


def top_k_edges(weights, k=None, min_weight=0.0):
    """The edges worth drawing from a (Lq, Lk) weight matrix, as arrays (query_idx, key_idx, weight).

    ``k=None`` keeps every nonzero weight; otherwise each query row keeps its ``k`` largest weights
    (on equal weights the lower key index wins). Weights ``<= min_weight`` are then dropped, and a
    weight of exactly 0 (a masked pair) never appears. Edges come in row-major order: by query, then
    by key.
    """
    w = _check_weights(weights)
    if k is not None:
        k = int(k)
        if k < 0:
            raise ValueError(f"k must be at least 0 (or None for every edge), got {k}")
    n_q, n_k = w.shape
    if w.size == 0 or k == 0:
        return _empty()
    keep = (w > min_weight) & (w != 0.0)
    if k is not None and k < n_k:
        # the k-th largest weight of each row, then everything above it and, among the weights equal
        # to it, the first few by key index, so that exactly k survive per row
        kth = np.partition(w, n_k - k, axis=1)[:, n_k - k][:, None]
        above = w > kth
        room = k - above.sum(axis=1, keepdims=True)
        equal = w == kth
        keep &= above | (equal & (np.cumsum(equal, axis=1) <= room))
    query, key = np.nonzero(keep)
    return query, key, w[query, key]


def strongest_edges(query, key, weight, limit):
    """At most ``limit`` edges: the largest weights (ties: the earlier edge wins), in their given order."""
    query, key, weight = np.asarray(query), np.asarray(key), np.asarray(weight, dtype=np.float64)
    if not query.shape == key.shape == weight.shape or weight.ndim != 1:
        raise ShapeError(f"query, key and weight must be 1-D arrays of one length, got shapes "
                         f"{query.shape}, {key.shape}, {weight.shape}")
    limit = int(limit)
    if limit < 0:
        raise ValueError(f"limit must be at least 0, got {limit}")
    n = weight.size
    if n <= limit:
        return query, key, weight
    if limit == 0:
        return query[:0], key[:0], weight[:0]
    cut = np.partition(weight, n - limit)[n - limit]
    keep = weight > cut
    ties = np.flatnonzero(weight == cut)[: limit - int(keep.sum())]
    keep[ties] = True
    return query[keep], key[keep], weight[keep]


def alignment(weights, allowed=None):
    """Each query row's strongest key (i, j) — a translation's word alignment — among the keys it may
    attend (``allowed``); rows with nothing to attend are left out."""
    w = np.asarray(weights, dtype=np.float64)
    if allowed is not None:
        w = np.where(allowed, w, -np.inf)
    best = np.argmax(w, axis=1)
    keep = np.isfinite(w[np.arange(len(w)), best]) if len(w) else np.zeros(0, bool)
    return [(int(i), int(j)) for i, j in zip(np.flatnonzero(keep), best[keep])]
