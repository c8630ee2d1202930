"""Nudge one number and follow it through the softmax: which weights of ② and which outputs of ③ move.

A score s_i of a row moves every weight of that row, by the softmax's Jacobian
∂a_j/∂s_i = a_j(δ_ij − a_i): its own weight up by a_i(1 − a_i), every other down by a_j·a_i, so the row
still sums to 1. The outputs follow by O = A·V (and W_o when the session projects). The changes are the
derivatives, per unit of nudge: a nudge of ε moves a weight by about ε times them (exact as ε → 0).
A score cell is nudged directly; a query cell q[i, c] moves row i of S by q's partner k[:, c]·scale/T;
a key cell k[j, c] moves column j of S by q[:, c]·scale/T, in every query head that reads its K/V head.
Q and K are those the scores use (after RoPE when it is on).
"""
from dataclasses import dataclass

import numpy as np

from .errors import ShapeError

NUDGED = ("S", "Q", "K")  # what may be nudged: a score, a query cell, a key cell
# heads reached × Lq × Lk at most (larger: refused, not computed): one head of the largest session, 8192 tokens.
# Whether that fits the memory free now is the caller's question (``explorer.model.sensitivity_view``).
MAX_CELLS = 1 << 26


def softmax_jacobian(weights):
    """The (n, n) Jacobian of one row's softmax: J[j, i] = ∂a_j/∂s_i = a_j(δ_ij − a_i) = diag(a) − a·aᵀ."""
    a = np.asarray(weights, dtype=np.float64)
    if a.ndim != 1:
        raise ShapeError(f"softmax_jacobian takes one row of weights, got shape {a.shape}")
    return np.diag(a) - np.outer(a, a)


def weights_change(weights, score_change):
    """J·ΔS row by row without forming J: Δa_j = a_j(Δs_j − Σ_i a_i Δs_i). A masked key (a_j = 0) stays 0."""
    a = np.asarray(weights, dtype=np.float64)
    ds = np.asarray(score_change, dtype=np.float64)
    return a * (ds - (a * ds).sum(axis=-1, keepdims=True))


@dataclass(frozen=True)
class Sensitivity:
    """What a unit nudge of one cell changes, to first order: ① the scores of ``head`` it moves, ② that
    head's weights, ③ the whole output (every head it reaches, through W_o when there is one)."""

    what: str  # "S", "Q" or "K"
    row: int  # S and Q: the query; K: the key
    col: int  # S: the key; Q and K: the column inside the head (0 … d_h − 1)
    head: int
    scores: np.ndarray  # (Lq, Lk): ∂S/∂nudge of ``head``
    weights: np.ndarray  # (Lq, Lk): ∂A/∂nudge of ``head``
    output: np.ndarray  # (Lq, D_out): ∂O/∂nudge
    heads: tuple  # the query heads the nudge reaches (more than one: a shared key)


def _score_change(result, head, what, row, col):
    """∂S/∂nudge of query head ``head`` (Lq, Lk) for a nudge of S, Q or K (Q/K column ``col`` of the head)."""
    s = result.heads.scores[head]
    change = np.zeros(s.shape)
    if what == "S":
        change[row, col] = 1.0
        return change
    d = result.d_head
    factor = result.scale / result.temperature
    if what == "Q":  # s_rj = q_r·k_j·scale/T: ∂/∂q[row, c] = k_j[c]·scale/T along row ``row``
        g = result.kv_head(head)
        change[row, :] = result.k[:, g * d + col] * factor
    else:  # ∂/∂k[row, c] = q_i[c]·scale/T down column ``row``
        change[:, row] = result.q[:, head * d + col] * factor
    return change


def _check(result, head, what, row, col):
    n_heads, lq, lk = result.heads.scores.shape
    if what not in NUDGED:
        raise ShapeError(f"a nudge is of {', '.join(NUDGED)}, not {what!r}")
    if not 0 <= head < n_heads:
        raise ShapeError(f"head {head + 1} does not exist: the session has {n_heads}")
    rows, cols = {"S": (lq, lk), "Q": (lq, result.d_head), "K": (lk, result.d_head)}[what]
    if not (0 <= row < rows and 0 <= col < cols):
        raise ShapeError(f"cell ({row}, {col}) is outside {what}'s {rows} × {cols} cells of a head")


def nudge_sensitivity(result, head, what, row, col, cancelled=None):
    """The first-order change of ①, ② and ③ per unit nudge of one cell (``Sensitivity``), from a
    ``PipelineResult``. ``what`` is "S" (score [row, col] of ``head``), "Q" (q[row, head's column col])
    or "K" (k[row, column col of the K/V head ``head`` reads]). None when ``cancelled()`` said stop
    (asked between heads)."""
    _check(result, head, what, row, col)
    heads = tuple(result.query_heads(result.kv_head(head))) if what == "K" else (head,)
    lq, lk = result.heads.scores.shape[1:]
    if len(heads) * lq * lk > MAX_CELLS:
        reach = f"{len(heads)} heads × " if len(heads) > 1 else ""
        raise ShapeError(f"this nudge reaches {reach}{lq} × {lk} weights: too many to follow here (at most "
                         f"{MAX_CELLS:,}){'; a score or a query cell reaches one head' if reach else ''}")
    concat = np.zeros(result.heads.concat.shape)
    width = result.heads.head_outputs.shape[2]
    shown = None
    for h in heads:
        if cancelled is not None and cancelled():
            return None
        ds = _score_change(result, h, what, row, col)
        da = weights_change(result.heads.weights[h], ds)
        concat[:, h * width:(h + 1) * width] = da @ result.v[:, result.v_columns(h)]
        if h == head:
            shown = ds, da
    output = concat if result.wo is None else concat @ result.wo.T
    return Sensitivity(what=what, row=int(row), col=int(col), head=int(head), scores=shown[0], weights=shown[1],
                       output=output, heads=heads)
