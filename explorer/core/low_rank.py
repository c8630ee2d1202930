"""Low rank (Linformer, Wang et al. 2020): project K and V along L to k rows, then attend — L² becomes L·k.

The chapter: "低秩流派(Linformer 等)——赌注意力矩阵本身低秩,先把 K、V 沿 L 轴投影到 k 维再算,L² 变 L·k".
Linformer learns its projections E, F (k × L); here they are either drawn at random with a fixed seed, entries
N(0, 1/k) (the scale of the paper's Johnson–Lindenstrauss argument), or mean pooling — projected row r the
average of the r-th of k stretches of positions (a pooling the paper names as another choice of projection).
Its projection mixes every position, later ones too: it has no causal form (the paper uses it in encoders).
"""
import numpy as np

from .softmax import softmax


def random_projections(k, length, seed=0):
    """(E, F), each k × L with entries drawn from N(0, 1/k) by ``seed``: the same seed draws the same numbers."""
    if int(k) != k or k < 1:
        raise ValueError(f"Linformer k must be a whole number ≥ 1, got {k!r}")
    rng = np.random.default_rng(int(seed))
    scale = 1.0 / np.sqrt(k)
    return rng.standard_normal((k, length)) * scale, rng.standard_normal((k, length)) * scale


def pooling_projection(k, length):
    """k × L: row r averages positions ⌊r·L/k⌋ … ⌊(r + 1)·L/k⌋ − 1 (k ≤ L; at k = L, the identity)."""
    if int(k) != k or not 1 <= k <= length:
        raise ValueError(f"Linformer k must be a whole number from 1 to L = {length} for pooling, got {k!r}")
    edges = (np.arange(k + 1) * length) // k
    p = np.zeros((k, length))
    for r in range(k):
        p[r, edges[r]:edges[r + 1]] = 1.0 / (edges[r + 1] - edges[r])
    return p


def linformer(q, k, v, e, f, scale=1.0):
    """Linformer's head: P = softmax(scale · Q (E K)ᵀ) (Lq × k), output P (F V).

    Returns (P, output, effective weights P·F of shape Lq × Lk: what each query ends up taking from each
    value row — a mix of rows, not a distribution)."""
    q, k, v = (np.asarray(m, dtype=np.float64) for m in (q, k, v))
    e, f = np.asarray(e, dtype=np.float64), np.asarray(f, dtype=np.float64)
    if e.shape != f.shape or e.shape[1] != k.shape[0]:
        raise ValueError(f"E {e.shape} and F {f.shape} must both be k × L with L = {k.shape[0]} keys")
    p = softmax(scale * (q @ (e @ k).T))
    return p, p @ (f @ v), p @ f
