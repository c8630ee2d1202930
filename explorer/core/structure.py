"""Shape edits that keep every matrix consistent: a token is a row of each matrix on the L axis, a
width is a column (or row) of each matrix that shares that axis (see ``session.MATRIX_AXES``).

By default the axes are those of a self-attention session without grouped K/V heads (the query rows
are the token rows, K is as wide as Q); ``cross`` keeps the query rows ("Lq") apart from the tokens'
("L"), ``grouped`` keeps K's and W_o's widths apart (``session.matrix_axes``)."""
import numpy as np

from .session import matrix_axes
from .translatable import QT_TRANSLATE_NOOP

# Which axis a "width" button changes, by source: the Q/K width, the V width, X's width, W_o's rows
# (and, with grouped K/V heads, K's own width).
WIDTH_AXES = {
    "direct": {"qk": "d_k", "v": "d_v", "kv": "d_kv"},
    "projected": {"qk": "p_k", "v": "p_v", "x": "D", "out": "D_o", "kv": "p_kv"},
}
AXIS_NAMES = {"d_k": QT_TRANSLATE_NOOP("Edits", "Q and K"), "d_v": "V", "p_k": QT_TRANSLATE_NOOP("Edits", "W_q and W_k"),
              "p_v": QT_TRANSLATE_NOOP("Edits", "W_v (and W_o)"), "D": QT_TRANSLATE_NOOP("Edits", "X and every W"),
              "D_o": "W_o", "d_kv": "K", "p_kv": "W_k", "p_o": QT_TRANSLATE_NOOP("Edits", "W_o's columns"),
              "L": QT_TRANSLATE_NOOP("Edits", "the tokens"), "Lq": QT_TRANSLATE_NOOP("Edits", "the query tokens")}


def members(axis, matrices, *, cross=False, grouped=False):
    """(name, array axis index) of every present matrix that has ``axis``."""
    return [(name, i) for name, axes in matrix_axes(cross=cross, grouped=grouped).items() if name in matrices
            for i, a in enumerate(axes) if a == axis]


def axis_length(axis, matrices, **shape):
    name, i = members(axis, matrices, **shape)[0]
    return matrices[name].shape[i]


def shapes_after_insert(axis, matrices, **shape):
    """{name: shape} of every matrix ``insert_along`` would grow, each one longer along ``axis`` (to check its
    size before it is allocated)."""
    grown = {}
    for name, i in members(axis, matrices, **shape):
        size = list(matrices[name].shape)
        size[i] += 1
        grown[name] = tuple(size)
    return grown


def insert_along(matrices, axis, at, value=0.0, **shape):
    """A new dict with a slice of ``value`` inserted before index ``at`` of ``axis`` in every member."""
    out = dict(matrices)
    for name, i in members(axis, matrices, **shape):
        out[name] = np.insert(matrices[name], at, value, axis=i)
    return out


def delete_along(matrices, axis, at, **shape):
    """A new dict with index ``at`` of ``axis`` removed from every member."""
    out = dict(matrices)
    for name, i in members(axis, matrices, **shape):
        out[name] = np.delete(matrices[name], at, axis=i)
    return out


def permute_tokens(matrices, perm, axis="L", **shape):
    """A new dict whose token rows (``axis`` "L", or "Lq" for the query rows of a cross session) are
    reordered: new row i is old row ``perm[i]``."""
    out = dict(matrices)
    for name, i in members(axis, matrices, **shape):
        out[name] = np.take(matrices[name], perm, axis=i)
    return out


def projection_shapes(q, k, v, *, cross=False, concat_width=None):
    """{name: shape} of what ``projections_reproducing`` makes, to check before it is allocated."""
    width = q.shape[1] + k.shape[1] + v.shape[1]
    concat = v.shape[1] if concat_width is None else concat_width
    shapes = {"X": (len(q), width), "Wq": (q.shape[1], width), "Wk": (k.shape[1], width), "Wv": (v.shape[1], width),
              "Wo": (concat, concat)}
    return {**shapes, "X_src": (len(k), width)} if cross else shapes


def projections_reproducing(q, k, v, *, cross=False, concat_width=None):
    """X and W_q, W_k, W_v, W_o such that X·W_qᵀ = Q, X·W_kᵀ = K, X·W_vᵀ = V and W_o = I.

    X = [Q | K | V] side by side, and each W picks its block: switching a direct session to the
    projected view changes no number, and shows what a projection does (select and mix columns).
    ``cross`` (Q has its own rows): X = [Q | 0 | 0] and X_src = [0 | K | V], so K = X_src·W_kᵀ.
    ``concat_width``: the width of the heads side by side when K/V heads are shared (H·V width / H_kv;
    default V's width): W_o is the identity of that size.
    """
    d_q, d_k, d_v = q.shape[1], k.shape[1], v.shape[1]
    width = d_q + d_k + d_v
    wq, wk, wv = (np.zeros((d, width)) for d in (d_q, d_k, d_v))
    wq[:, :d_q] = np.eye(d_q)
    wk[:, d_q:d_q + d_k] = np.eye(d_k)
    wv[:, d_q + d_k:] = np.eye(d_v)
    out = {"Wq": wq, "Wk": wk, "Wv": wv, "Wo": np.eye(d_v if concat_width is None else concat_width)}
    if not cross:
        return {"X": np.hstack([q, k, v]), **out}
    return {"X": np.hstack([q, np.zeros((len(q), d_k + d_v))]),
            "X_src": np.hstack([np.zeros((len(k), d_q)), k, v]), **out}
