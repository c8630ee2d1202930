"""F24 Query–key space (after AttentionViz, Yeh et al. 2023): one head's queries and keys as points of one plane.

The chapter gives every token three personalities: Q (query, 我在找什么 — what it looks for), K (key,
我能被什么找到 — what it can be found by) and V. A head's weight w_ij grows with q_i·k_j, so the picture
is best when a query lands near the keys it weighs most. Two changes of the vectors leave every weight
exactly as it is and bring the two clouds together:

* **translating the keys** — k_j → k_j + c for one vector c. Query i's scores become
  q_i·(k_j + c) = q_i·k_j + q_i·c: its whole row moves by the constant q_i·c (times the scale), and
  softmax(x + a·1) = softmax(x) for every a, so the weights stay. (A masked score stays −∞; ALiBi's
  bias and the temperature act on the row as before.) c = μ_q − μ_k puts the keys' centroid on the
  queries'.
* **scaling** — q_i → s·q_i and k_j → k_j / s leave every dot product (s·q_i)·(k_j / s) = q_i·k_j,
  hence every score, unchanged. s = √(mean‖k‖ / mean‖q‖) makes the mean norms equal:
  s·mean‖q‖ = mean‖k‖ / s.

Here the scaling comes first (on the vectors as the head made them) and the translation last, so the
two centroids coincide exactly in what is drawn. The plane is then a projection of both clouds together
(PCA: the two directions of greatest spread of the stacked, centred points); what it leaves out is
reported as the share of variance the two axes keep.
"""
from dataclasses import dataclass

import numpy as np

from .errors import NonFiniteError, ShapeError

GRAM_ROWS = 2048  # more points than this: PCA from the d × d Gram matrix rather than the SVD of the points


@dataclass(frozen=True)
class QKPlane:
    """The queries and keys of one head on the plane, and how they were brought there."""

    queries: np.ndarray  # (Lq, 2): each query's place on the plane
    keys: np.ndarray  # (Lk, 2)
    kept: float  # share of the total variance of the Lq + Lk normalised points that the two axes keep (0–1)
    scale: float  # s: queries multiplied by s, keys divided by it
    shift: np.ndarray  # (d,) c, added to every key after the scaling
    axes: np.ndarray  # (2, d): the plane's directions (unit rows; a zero row when d = 1 or nothing spreads)


def head_queries_keys(result, head):
    """The (Lq, d_h) queries and (Lk, d_h) keys query head ``head`` scores with (after RoPE, when on): its
    own columns of Q and the columns of the K/V head it reads (``result.kv_head``, repeat_kv order)."""
    d = result.d_head
    g = result.kv_head(head)
    return result.q[:, head * d:(head + 1) * d], result.k[:, g * d:(g + 1) * d]


def _finite_2d(name, m):
    m = np.asarray(m, dtype=np.float64)
    if m.ndim != 2:
        raise ShapeError(f"{name} must be 2-D (tokens × d), got shape {m.shape}")
    if not np.isfinite(m).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(m))[0])
        raise NonFiniteError(f"{name} has a non-finite value at {bad}")
    return m


def matched_scale(q, k):
    """s = √(mean‖k_j‖ / mean‖q_i‖), so that s·q and k/s have the same mean norm; 1 when either is all zeros
    (nothing to match) or the ratio cannot be formed in floating point."""
    nq, nk = np.linalg.norm(q, axis=1).mean(), np.linalg.norm(k, axis=1).mean()
    if not (nq > 0 and nk > 0):
        return 1.0
    s = float(np.sqrt(nk / nq))
    return s if np.isfinite(s) and s > 0 else 1.0


def normalise(q, k):
    """(s·q, k/s + c, s, c): mean norms matched by s (``matched_scale``), then the keys translated by
    c = mean(s·q) − mean(k/s) onto the queries' centroid. Every row of softmax(q·kᵀ·scale) is unchanged
    (the module's docstring gives the reason)."""
    q = _finite_2d("Q", q)
    k = _finite_2d("K", k)
    if q.shape[1] != k.shape[1]:
        raise ShapeError(f"queries and keys must have the same width, got Q {q.shape} and K {k.shape}")
    if not len(q) or not len(k):
        raise ShapeError(f"need at least one query and one key, got Q {q.shape} and K {k.shape}")
    s = matched_scale(q, k)
    qs, ks = q * s, k / s
    c = qs.mean(axis=0) - ks.mean(axis=0)
    return qs, ks + c, s, c


def principal_plane(points):
    """(coordinates (n, 2), axes (2, d), kept): PCA of the rows of ``points`` — centred on their mean, the
    two right singular vectors of largest singular value, and Σ of their σ² over Σ of all σ² (1 when the
    points do not spread at all). Each axis's sign is fixed so that its largest component (the first of
    equal ones) is positive.

    Beyond GRAM_ROWS rows the same axes come from the d × d matrix XᵀX = V·Σ²·Vᵀ (its eigenvectors are the
    right singular vectors, its eigenvalues the σ²): a BLAS product and a small eigensolver instead of the
    SVD of a tall matrix (at 8,192 × 64, a head's queries and keys at L = 4,096: ~0.02 s against ~1 s here)."""
    x = np.asarray(points, dtype=np.float64)
    n, d = x.shape
    centred = x - x.mean(axis=0)
    big = float(np.abs(centred).max()) if centred.size else 0.0
    axes = np.zeros((2, d))
    if big == 0.0:
        return np.zeros((n, 2)), axes, 1.0
    unit = centred / big  # PCA's directions are those of any multiple: no overflow in σ²
    if n > GRAM_ROWS:
        power, vectors = np.linalg.eigh(unit.T @ unit)
        power, vt = np.clip(power[::-1], 0.0, None), vectors[:, ::-1].T  # largest first, as the SVD gives them
    else:
        _, sigma, vt = np.linalg.svd(unit, full_matrices=False)
        power = sigma ** 2
    m = min(2, len(power))
    axes[:m] = vt[:m]
    for a in axes[:m]:
        size = np.abs(a)
        if a[np.argmax(size >= size.max() * (1 - 1e-9))] < 0:  # the first of the largest (ties to rounding)
            a *= -1
    kept = float(power[:m].sum() / power.sum()) if power.sum() > 0 else 1.0
    return centred @ axes.T, axes, min(kept, 1.0)


def qk_plane(q, k):
    """One head's queries (Lq, d) and keys (Lk, d) normalised (``normalise``) and projected together onto
    their principal plane (``principal_plane``); Lq may differ from Lk (cross-attention)."""
    qn, kn, s, c = normalise(q, k)
    coords, axes, kept = principal_plane(np.vstack([qn, kn]))
    return QKPlane(queries=coords[:len(qn)], keys=coords[len(qn):], kept=kept, scale=s, shift=c, axes=axes)


def strongest(weights, k):
    """The indices of the ``k`` largest entries of a 1-D row of weights, largest first (on equal weights the
    lower index first); weights of exactly 0 (masked pairs) are never among them."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1:
        raise ShapeError(f"weights must be one row (1-D), got shape {w.shape}")
    order = np.argsort(-w, kind="stable")
    order = order[w[order] > 0]
    return order[:max(int(k), 0)]


def top_keys(weights, query, k):
    """Query ``query``'s ``k`` strongest keys in a (Lq, Lk) weight matrix: (key indices, their weights)."""
    w = np.asarray(weights, dtype=np.float64)
    keys = strongest(w[query], k)
    return keys, w[query, keys]


def top_queries(weights, key, k):
    """The ``k`` queries that weigh key ``key`` most in a (Lq, Lk) weight matrix: (query indices, weights)."""
    w = np.asarray(weights, dtype=np.float64)
    queries = strongest(w[:, key], k)
    return queries, w[queries, key]


@dataclass(frozen=True)
class CorpusPlane:
    """AttentionViz's corpus view: the queries and keys of one head over many sentences on one plane. Point n
    of ``plane.queries`` is the query of token ``query_position[n]`` of sentence ``query_sentence[n]``; keys alike."""

    plane: QKPlane
    query_sentence: np.ndarray  # (Σ Lq_i,) int: which sentence each query comes from (from 0)
    query_position: np.ndarray  # (Σ Lq_i,) int: its position in that sentence (from 0)
    key_sentence: np.ndarray
    key_position: np.ndarray

    def query_index(self, sentence, position):
        """The row of ``plane.queries`` of that sentence's query at ``position``."""
        return int(np.flatnonzero(self.query_sentence == sentence)[0]) + int(position)

    def key_index(self, sentence, position):
        return int(np.flatnonzero(self.key_sentence == sentence)[0]) + int(position)


def _whose(lengths):
    sentence = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.repeat(np.cumsum([0, *lengths[:-1]]), lengths)
    return sentence, np.arange(len(sentence)) - starts


def corpus_plane(queries, keys):
    """The (Lq_i, d) queries and (Lk_i, d) keys of each sentence stacked, normalised together (one s, one c for
    the head, as AttentionViz does: every sentence's weights stay, the reason in ``normalise``) and projected
    onto the plane of them all."""
    if len(queries) != len(keys) or not len(queries):
        raise ShapeError(f"need the queries and keys of the same sentences, got {len(queries)} and {len(keys)}")
    queries = [_finite_2d(f"Q of sentence {i + 1}", q) for i, q in enumerate(queries)]
    keys = [_finite_2d(f"K of sentence {i + 1}", k) for i, k in enumerate(keys)]
    widths = {m.shape[1] for m in queries + keys}
    if len(widths) > 1:
        raise ShapeError(f"every sentence's queries and keys must have the same width, got {sorted(widths)}")
    q_len, k_len = [len(q) for q in queries], [len(k) for k in keys]
    plane = qk_plane(np.vstack(queries), np.vstack(keys))
    (qs, qp), (ks, kp) = _whose(q_len), _whose(k_len)
    return CorpusPlane(plane=plane, query_sentence=qs, query_position=qp, key_sentence=ks, key_position=kp)
