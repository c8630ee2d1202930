"""The explorer's whole computation from a session's inputs and settings, as one pure function.

The Qt model calls this once per event-loop turn; notebooks and tests can call it directly.
"""
from dataclasses import dataclass

import numpy as np

from .alibi import alibi_bias, alibi_slopes
from .checks import require_finite
from .heads import MultiHeadResult, merge_heads, multi_head_attention, split_heads
from .positions import sinusoidal_positions
from .rope import rope


def scale_for(settings, d_head):
    """The scale that multiplies q·kᵀ in every head: 1/√d_h, 1, or the custom value."""
    if settings.scale_mode == "inv_sqrt_d":
        return 1.0 / np.sqrt(d_head)
    if settings.scale_mode == "none":
        return 1.0
    return float(settings.scale)


@dataclass(frozen=True)
class PipelineResult:
    """Inputs as used and every stage of multi-head attention (H may be 1)."""

    q: np.ndarray  # as the scores use them: rotated by RoPE when it is on
    k: np.ndarray
    v: np.ndarray
    heads: MultiHeadResult
    scale: float
    temperature: float
    x: np.ndarray | None = None  # projected mode: the token vectors as projected (PE added if on)
    pe: np.ndarray | None = None  # projected mode: the sinusoidal PE(L, D), whether added or not
    q_in: np.ndarray | None = None  # Q and K before RoPE (as edited, or X·W_qᵀ, X·W_kᵀ)
    k_in: np.ndarray | None = None
    wo: np.ndarray | None = None  # projected mode: the output projection (output = concat·W_oᵀ)
    slopes: np.ndarray | None = None  # ALiBi: each head's slope m_h (its bias is −m_h·|i − j|)

    @property
    def n_heads(self):
        return self.heads.scores.shape[0]

    @property
    def d_head(self):
        return self.q.shape[1] // self.n_heads

    def allowed(self, head=None):
        """Where queries may attend (True), per head (H, Lq, Lk) or for one head; None when nothing is masked."""
        mask = self.heads.mask
        if mask is None:
            return None
        full = np.broadcast_to(mask, self.heads.scores.shape)
        return full if head is None else full[head]

    def row_sums(self, head):
        """Σ_j weights[head, i, j] for every row i (each is 1, or 0 for a fully masked row).

        Made on the way by ``recompute`` for the heads it summarises, else here on first use (kept)."""
        sums = self.heads.row_sums
        if sums is None:
            return self.heads.weights[head].sum(axis=1)
        if np.isnan(sums[head]).any():
            sums[head] = self.heads.weights[head].sum(axis=1)
        return sums[head]

    def score_range(self, head):
        """(smallest, largest) score of a head: what its colour levels must cover."""
        extent = self.heads.score_range
        if extent is not None:
            return float(extent[head, 0]), float(extent[head, 1])
        scores = self.heads.scores[head]
        return float(scores.min()), float(scores.max())

    def score_parts(self, head, i, j):
        """How score (i, j) of a head was made: (q_i·k_j, scale, temperature, masked, score)."""
        lo = head * self.d_head
        dot = float(self.q[i, lo:lo + self.d_head] @ self.k[j, lo:lo + self.d_head])
        allowed = self.allowed(head)
        masked = bool(allowed is not None and not allowed[i, j])
        return dot, self.scale, self.temperature, masked, float(self.heads.scores[head, i, j])

    def bias(self, head, i, j):
        """The bias ALiBi adds to score (i, j) of a head before the temperature, or None without it."""
        if self.slopes is None:
            return None
        return float(alibi_bias(self.slopes[head], [i], j + 1)[0, j])


def slopes_for(settings):
    """ALiBi's per-head slopes when the session uses it, else None."""
    return alibi_slopes(settings.heads) if settings.positions == "alibi" else None


def projected_inputs(matrices, settings):
    """The chapter's three personalities: Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ (PE added to X first if on).

    Returns (x, pe, q, k, v); x is the X actually projected.
    """
    x = matrices["X"]
    pe = sinusoidal_positions(*x.shape)
    if settings.positions == "sinusoidal":
        x = x + pe
    with np.errstate(over="ignore", invalid="ignore"):
        q, k, v = x @ matrices["Wq"].T, x @ matrices["Wk"].T, x @ matrices["Wv"].T
    for name, m in (("Q = X·W_qᵀ", q), ("K = X·W_kᵀ", k), ("V = X·W_vᵀ", v)):
        require_finite(m, name)
    return x, pe, q, k, v


def run_pipeline(matrices, settings):
    """Q, K, V (direct) or X and the W (projected), and the settings → every stage.

    Raises ShapeError/NonFiniteError on bad input.
    """
    x = pe = wo = None
    if settings.source == "projected":
        x, pe, q, k, v = projected_inputs(matrices, settings)
        wo = matrices["Wo"]
    else:
        q, k, v = matrices["Q"], matrices["K"], matrices["V"]
    q_in, k_in = q, k
    if settings.rope:
        q, k = rotate_heads(q, k, settings)
    d_head = q.shape[1] // settings.heads
    scale = scale_for(settings, d_head)
    slopes = slopes_for(settings)
    bias = None if slopes is None else np.stack([alibi_bias(m, slice(None), q.shape[0]) for m in slopes])
    result = multi_head_attention(q, k, v, settings.heads, scale=scale, causal=settings.causal,
                                  temperature=settings.temperature, wo=wo, bias=bias)
    return PipelineResult(q=q, k=k, v=v, heads=result, scale=scale, temperature=settings.temperature,
                          x=x, pe=pe, q_in=q_in, k_in=k_in, wo=wo, slopes=slopes)


def rope_positions(settings, length):
    """The positions RoPE rotates by: offset, offset + 1, …"""
    return settings.rope_offset + np.arange(length, dtype=np.float64)


def rotate_heads(q, k, settings):
    """RoPE inside every head: split (L, d) into (H, L, d_h), rotate pairs by position, merge back."""
    positions = rope_positions(settings, q.shape[0])
    h = settings.heads
    turned = [merge_heads(rope(split_heads(m, h), positions, base=settings.rope_base, style=settings.rope_style))
              for m in (q, k)]
    return turned[0], turned[1]
