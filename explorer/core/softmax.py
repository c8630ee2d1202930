"""Step ②: softmax turns a row of scores into a budget — non-negative weights that sum to 1."""
import numpy as np


def softmax(x, axis=-1):
    """Softmax along ``axis``, subtracting the row max first (the chapter's "急救包").

    Exact for any finite input. ``-inf`` entries (masked keys) get weight exactly 0, and a row
    that is entirely ``-inf`` (a fully masked query) gives all zeros rather than NaN.
    NaN or ``+inf`` inputs raise ``NonFiniteError``.
    """
    from .errors import NonFiniteError

    x = np.asarray(x, dtype=np.float64)
    if np.isnan(x).any() or np.isposinf(x).any():
        raise NonFiniteError("softmax: the scores contain NaN or +inf; only finite values or -inf (masked) are allowed")
    if x.size == 0:
        return x.copy()
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)  # a fully masked row has max -inf; shift by 0 instead
    with np.errstate(over="ignore", under="ignore"):
        e = np.exp(x - m)
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
