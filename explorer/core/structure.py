"""Shape edits that keep every matrix consistent: a token is a row of each matrix on the L axis, a
width is a column (or row) of each matrix that shares that axis (see ``session.MATRIX_AXES``)."""
import numpy as np

from .session import MATRIX_AXES

# Which axis a "width" button changes, by source: the Q/K width, the V width, X's width, W_o's rows.
WIDTH_AXES = {
    "direct": {"qk": "d_k", "v": "d_v"},
    "projected": {"qk": "p_k", "v": "p_v", "x": "D", "out": "D_o"},
}
AXIS_NAMES = {"d_k": "Q and K", "d_v": "V", "p_k": "W_q and W_k", "p_v": "W_v (and W_o)", "D": "X and every W",
              "D_o": "W_o"}


def members(axis, matrices):
    """(name, array axis index) of every present matrix that has ``axis``."""
    return [(name, i) for name, axes in MATRIX_AXES.items() if name in matrices
            for i, a in enumerate(axes) if a == axis]


def axis_length(axis, matrices):
    name, i = members(axis, matrices)[0]
    return matrices[name].shape[i]


def insert_along(matrices, axis, at, value=0.0):
    """A new dict with a slice of ``value`` inserted before index ``at`` of ``axis`` in every member."""
    out = dict(matrices)
    for name, i in members(axis, matrices):
        out[name] = np.insert(matrices[name], at, value, axis=i)
    return out


def delete_along(matrices, axis, at):
    """A new dict with index ``at`` of ``axis`` removed from every member."""
    out = dict(matrices)
    for name, i in members(axis, matrices):
        out[name] = np.delete(matrices[name], at, axis=i)
    return out


def permute_tokens(matrices, perm):
    """A new dict whose L-axis rows are reordered: new row i is old row ``perm[i]``."""
    out = dict(matrices)
    for name, i in members("L", matrices):
        out[name] = np.take(matrices[name], perm, axis=i)
    return out


def projections_reproducing(q, k, v):
    """X and W_q, W_k, W_v, W_o such that X·W_qᵀ = Q, X·W_kᵀ = K, X·W_vᵀ = V and W_o = I.

    X = [Q | K | V] side by side, and each W picks its block: switching a direct session to the
    projected view changes no number, and shows what a projection does (select and mix columns).
    """
    d_k, d_v = q.shape[1], v.shape[1]
    width = 2 * d_k + d_v
    x = np.hstack([q, k, v])
    wq, wk, wv = (np.zeros((d, width)) for d in (d_k, d_k, d_v))
    wq[:, :d_k] = np.eye(d_k)
    wk[:, d_k:2 * d_k] = np.eye(d_k)
    wv[:, 2 * d_k:] = np.eye(d_v)
    return {"X": x, "Wq": wq, "Wk": wk, "Wv": wv, "Wo": np.eye(d_v)}
