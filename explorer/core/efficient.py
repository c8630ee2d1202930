"""The L² bill's money-saving schools (「L² 大账单的省钱流派」) on one head of a session: the approximate
weights and output of a mechanism, how far they are from the exact ones, and what they cost.

The exact attention is the session's own (its scores, weights and head output, as the pipeline made them);
this module only makes the approximation and compares. Sliding window and sparse patterns keep the session's
scores in their cells and re-normalise there (softmax over the computed cells only); Linformer, linear
attention and Performer make their own similarities from the head's Q, K (as the scores use them, RoPE
included) and V.
"""
from dataclasses import dataclass

import numpy as np

from .linear_attention import (causal_linear_attention, feature_map, linear_attention, linear_weights,
                               positive_features, random_features)
from .low_rank import linformer, pooling_projection, random_projections
from .softmax import softmax
from .sparse_patterns import PATTERNS, pattern_cells, pattern_mask

MECHANISMS = PATTERNS + ("linformer", "linear", "performer")
PROJECTIONS = ("random", "pooling")
DISTRIBUTION_TOL = 1e-9  # a row is a distribution when it is ≥ 0 and sums to 1 within this
BLOCK_CELLS = 1 << 18  # rows are taken in bands of about this many cells: temporaries stay in the cache


@dataclass(frozen=True)
class Mechanism:
    """A mechanism and its parameters (only those of its kind matter)."""

    kind: str = "window"
    window: int = 2  # w: sliding window, global + window
    stride: int = 2  # l: Sparse Transformer strided and fixed (block length)
    summary: int = 1  # c: fixed — the last c positions of each block are its summary
    global_tokens: int = 1  # g: global + window — the first g tokens are global anchors
    rank: int = 2  # Linformer's k
    seed: int = 0  # Linformer's random E, F
    projection: str = "random"  # Linformer's E = F: "random" (seeded, N(0, 1/k)) or "pooling" (means of stretches)
    phi: str = "elu+1"  # linear attention's feature map
    features: int = 64  # Performer's m random features (drawn with ``seed``)

    def __post_init__(self):
        if self.kind not in MECHANISMS:
            raise ValueError(f"mechanism must be one of {', '.join(MECHANISMS)}, got {self.kind!r}")
        if self.projection not in PROJECTIONS:
            raise ValueError(f"Linformer's projection must be one of {', '.join(PROJECTIONS)}, got {self.projection!r}")

    @property
    def pattern_params(self):
        return dict(window=self.window, stride=self.stride, summary=self.summary, global_tokens=self.global_tokens)


@dataclass(frozen=True)
class Approximation:
    """A mechanism's result on one head, with its shape of the exact one's."""

    weights: np.ndarray  # (Lq, Lk): approximate weights (Linformer: the effective P·F)
    output: np.ndarray  # (Lq, d_v)
    computed: np.ndarray | None  # (Lq, Lk) True = a score cell computed; None: no (L, L) table at all
    distributions: bool  # its rows are meant to be distributions (not Linformer's P·F with random E, F)
    projected: np.ndarray | None = None  # Linformer's P = softmax(Q (E K)ᵀ), (Lq, k)


@dataclass(frozen=True)
class ErrorFigures:
    """How far an approximation is from the exact head (None where a figure does not apply)."""

    frobenius: float | None  # ‖O′ − O‖_F / ‖O‖_F (None when O is all zeros)
    kl: float | None  # mean over rows of KL(A′_i ‖ A_i) where both rows are distributions
    kl_rows: int  # how many rows that mean is over
    mass: float | None  # mean over live rows of the exact weight inside the computed cells (None: no pattern of cells)


def head_inputs(result, head):
    """(q, k, v, c) of one head of a PipelineResult: its columns of Q, K (as the scores use them) and V,
    and c = scale / temperature, what multiplies q·k in its scores."""
    d = result.d_head
    g = result.kv_head(head)
    return (result.q[:, head * d:(head + 1) * d], result.k[:, g * d:(g + 1) * d], result.v[:, result.v_columns(head)],
            result.scale / result.temperature)


def approximate(mechanism, scores, q, k, v, c, allowed=None, cancelled=None):
    """The mechanism's weights and output for one head.

    ``scores``: the head's exact scores (what its softmax read, ALiBi's bias included); ``q``, ``k``, ``v``:
    the head's inputs and ``c`` its scale / temperature (``head_inputs``); ``allowed``: the session's mask
    (True = may attend) or None. Patterns respect it; Linformer cannot (see ``low_rank``). ``cancelled()``:
    asked between bands of rows; None is returned once it says stop."""
    m = mechanism
    n_q, n_k = np.shape(scores)
    if m.kind in PATTERNS:
        computed = pattern_mask(m.kind, n_q, n_k, causal=allowed is not None, **m.pattern_params)
        if allowed is not None:
            computed &= allowed
        weights = np.empty(np.shape(scores))
        for rows in _bands(n_q, n_k):
            if cancelled is not None and cancelled():
                return None
            weights[rows] = softmax(np.where(computed[rows], scores[rows], -np.inf))
        return Approximation(weights, weights @ v, computed, True)
    if m.kind == "linformer":
        pooled = m.projection == "pooling"
        e, f = (pooling_projection(m.rank, n_k),) * 2 if pooled else random_projections(m.rank, n_k, m.seed)
        p, out, eff = linformer(q, k, v, e, f, scale=c)
        return Approximation(eff, out, None, pooled, projected=p)  # pooling: P·F's rows are distributions
    if m.kind == "performer":  # φ(q)·φ(k) estimates exp(c·q·k): the features see √c·q and √c·k
        w = random_features(m.features, np.shape(q)[1], m.seed)
        root = np.sqrt(c)
        fq, fk = positive_features(root * q, w, per_row=True), positive_features(root * k, w, per_row=False)
    else:
        fq, fk = feature_map(q, m.phi), feature_map(k, m.phi)
    out = linear_attention(fq, fk, v) if allowed is None else causal_linear_attention(fq, fk, v)
    return Approximation(linear_weights(fq, fk, allowed), out, None, True)


def distribution_rows(weights, tol=DISTRIBUTION_TOL):
    """True for each row that is a distribution: non-negative, summing to 1 within ``tol``."""
    w = np.asarray(weights)
    return (w >= 0).all(axis=1) & (np.abs(w.sum(axis=1) - 1.0) <= tol)


def row_kl(p, q):
    """KL(p_i ‖ q_i) = Σ_j p_ij ln(p_ij / q_ij) for each row (0·ln 0 = 0; ∞ where q_ij = 0 < p_ij)."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1.0)) - np.log(q)), 0.0)
    return terms.sum(axis=1)


def _bands(n_rows, n_cols):
    """Slices of rows of about BLOCK_CELLS cells each, covering ``n_rows``."""
    step = max(1, BLOCK_CELLS // max(n_cols, 1))
    return [slice(top, top + step) for top in range(0, n_rows, step)]


def error_figures(approx, exact_weights, exact_output, cancelled=None):
    """Relative Frobenius error of the output, mean KL(A′ ‖ A) over the rows where both are distributions,
    and the exact weights' mass inside the computed cells — None for a mechanism with no pattern of cells
    (Linformer, linear, Performer): every key counts there, so the mass would be 1 by construction.

    KL is taken from the approximation to the exact weights: for a pattern it is finite, −ln(mass inside)
    per row (the pattern's softmax is the exact row cut to the pattern and re-normalised). ``cancelled()``: asked
    between bands of rows; None is returned once it says stop."""
    norm = float(np.linalg.norm(exact_output))
    frob = float(np.linalg.norm(approx.output - exact_output)) / norm if norm > 0 else None
    n_rows, n_cols = np.shape(exact_weights)
    inside = approx.computed
    live, both = np.zeros(n_rows, bool), np.zeros(n_rows, bool)
    kl, mass = np.zeros(n_rows), np.ones(n_rows)
    for rows in _bands(n_rows, n_cols):  # row by row, in bands: no temporaries the size of the table
        if cancelled is not None and cancelled():
            return None
        a, e = approx.weights[rows], exact_weights[rows]
        live[rows] = distribution_rows(e)
        if approx.distributions:
            both[rows] = live[rows] & distribution_rows(a)
            kl[rows] = row_kl(a, e)
        if inside is not None:
            mass[rows] = np.where(inside[rows], e, 0.0).sum(axis=1)
    mean_kl = float(kl[both].mean()) if both.any() else None
    mean_mass = float(mass[live].mean()) if live.any() and inside is not None else None
    return ErrorFigures(frob, mean_kl, int(both.sum()), mean_mass)


def full_multiply_adds(length, d, d_v):
    """Exact attention's bill: L² scores of d multiply-adds each, then L² weights times rows of d_v."""
    return length * length * (d + d_v)


def score_cells(mechanism, length, causal=False):
    """The similarity cells a mechanism computes for a self-attention of ``length`` tokens: a pattern's
    cells, Linformer's L·k, none for linear attention (it never builds a table)."""
    m = mechanism
    if m.kind in PATTERNS:
        return pattern_cells(m.kind, length, causal=causal, **m.pattern_params)
    if m.kind == "linformer":
        return length * m.rank
    return 0  # linear attention and Performer


def multiply_adds(mechanism, length, d, d_v, causal=False):
    """A mechanism's multiply-adds for one head of ``length`` tokens, query and key width d, value width d_v.

    Patterns: (d + d_v) per computed cell. Linformer: E·K and F·V (k·L·(d + d_v)), then Q(EK)ᵀ and P(FV)
    (L·k·(d + d_v)). Linear attention: φ(K)ᵀV and φ(Q)·that (2·L·d·d_v), φ(K)ᵀ1 and φ(Q)·z (2·L·d).
    Performer: the same with m features instead of d, after W·q and W·k (2·L·m·d)."""
    m = mechanism
    if m.kind in PATTERNS:
        return score_cells(m, length, causal) * (d + d_v)
    if m.kind == "linformer":
        return 2 * length * m.rank * (d + d_v)
    if m.kind == "performer":
        return 2 * length * m.features * d + 2 * length * m.features * (d_v + 1)
    return 2 * length * d * (d_v + 1)


def cost_curve(mechanism, lengths, d, d_v, causal=False):
    """(full, mechanism) multiply-adds at each of ``lengths``, as float arrays (for a log–log plot)."""
    full = np.array([full_multiply_adds(n, d, d_v) for n in lengths], dtype=np.float64)
    mine = np.array([multiply_adds(mechanism, n, d, d_v, causal) for n in lengths], dtype=np.float64)
    return full, mine
