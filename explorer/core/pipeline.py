"""The explorer's whole computation from a session's inputs and settings, as one pure function.

The Qt model calls this once per event-loop turn; notebooks and tests can call it directly.
Self-attention has as many queries as keys; in a cross-attention session Q (or X) has one row per
query token and K, V (or X_src) one row per token, and every stage is (…, Lq, Lk). With grouped K/V
heads (``settings.kv_heads``) K and V hold H_kv heads that the H query heads share.
"""
from dataclasses import dataclass

import numpy as np

from .alibi import alibi_bias, alibi_slopes
from .pooling import needs_overview, overview
from .checks import require_finite
from .heads import MultiHeadResult, kv_head_count, multi_head_attention
from .positions import sinusoidal_positions
from .rope import rope, scaling_of


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
    x: np.ndarray | None = None  # projected mode: the (query) token vectors as projected (PE added if on)
    pe: np.ndarray | None = None  # projected mode: the sinusoidal PE(Lq, D), whether added or not
    q_in: np.ndarray | None = None  # Q and K before RoPE (as edited, or X·W_qᵀ, X·W_kᵀ)
    k_in: np.ndarray | None = None
    wo: np.ndarray | None = None  # projected mode: the output projection (output = concat·W_oᵀ)
    slopes: np.ndarray | None = None  # ALiBi: each head's slope m_h (its bias is −m_h·|i − j|)
    x_src: np.ndarray | None = None  # projected cross-attention: the keys' token vectors as projected
    pe_src: np.ndarray | None = None  # … and their PE(Lk, D)
    # matrices larger than a screen: ("scores" | "weights", head) → each block's extreme value (pooling.py)
    overviews: dict | None = None
    # A partial result (``recompute``'s ``on_shown``): only this head's ① and ② (scores, weights, their row
    # sums, range and overviews) are final; the other heads are still being written and ③ is None.
    partial_head: int | None = None

    def overview(self, stage, head, make=True):
        """The screen-sized overview of a head's scores or weights (pooling.overview), or None when the
        matrix fits a screen. The recompute makes the shown head's on its thread; another head's is
        made here on first use (``make``), about 0.1 s at L = 4096."""
        matrix = getattr(self.heads, stage)[head]
        if not needs_overview(matrix.shape):
            return None
        if self.overviews is None:
            object.__setattr__(self, "overviews", {})
        if (stage, head) not in self.overviews and make:
            self.overviews[(stage, head)] = overview(matrix, signed=stage == "scores")
        return self.overviews.get((stage, head))

    @property
    def n_heads(self):
        return self.heads.scores.shape[0]

    @property
    def d_head(self):
        return self.q.shape[1] // self.n_heads

    @property
    def kv_heads(self):
        """H_kv, the K/V heads the query heads share (= n_heads without grouped K/V heads)."""
        return self.k.shape[1] // self.d_head

    def kv_head(self, head):
        """The K/V head query head ``head`` reads: ⌊h / (H / H_kv)⌋ (Hugging Face's ``repeat_kv`` order)."""
        return head // (self.n_heads // self.kv_heads)

    def query_heads(self, kv_head):
        """The query heads that read K/V head ``kv_head`` (a group, in order)."""
        group = self.n_heads // self.kv_heads
        return list(range(kv_head * group, (kv_head + 1) * group))

    def v_columns(self, head):
        """The columns of V that query head ``head`` mixes (its K/V head's slice, width V width / H_kv)."""
        width = self.heads.head_outputs.shape[2]
        g = self.kv_head(head)
        return slice(g * width, (g + 1) * width)

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
        lo, lo_k = head * self.d_head, self.kv_head(head) * self.d_head
        dot = float(self.q[i, lo:lo + self.d_head] @ self.k[j, lo_k:lo_k + self.d_head])
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


@dataclass(frozen=True)
class Projected:
    """The projections of projected mode: Q from the query side X, K and V from the key side (X_src in a
    cross-attention session, else X again), each side with its sinusoidal PE (added when on)."""

    x: np.ndarray
    pe: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    x_src: np.ndarray | None = None  # cross-attention only
    pe_src: np.ndarray | None = None


def _with_positions(x, settings):
    """(X as projected, PE(L, D)): the sinusoidal PE is added to X by its own positions when on."""
    pe = sinusoidal_positions(*x.shape)
    return (x + pe if settings.positions == "sinusoidal" else x), pe


def project(matrices, settings):
    """The chapter's three personalities: Q = X·W_qᵀ, K = X_src·W_kᵀ, V = X_src·W_vᵀ (X_src = X in
    self-attention); PE is added to each side first if on."""
    x, pe = _with_positions(matrices["X"], settings)
    x_src = pe_src = None
    source = x
    if matrices.get("X_src") is not None:
        x_src, pe_src = _with_positions(matrices["X_src"], settings)
        source = x_src
    with np.errstate(over="ignore", invalid="ignore"):
        q, k, v = x @ matrices["Wq"].T, source @ matrices["Wk"].T, source @ matrices["Wv"].T
    side = "X_src" if x_src is not None else "X"
    for name, m in (("Q = X·W_qᵀ", q), (f"K = {side}·W_kᵀ", k), (f"V = {side}·W_vᵀ", v)):
        require_finite(m, name)
    return Projected(x=x, pe=pe, q=q, k=k, v=v, x_src=x_src, pe_src=pe_src)


def projected_inputs(matrices, settings):
    """(x, pe, q, k, v) of ``project``: x is the X actually projected."""
    p = project(matrices, settings)
    return p.x, p.pe, p.q, p.k, p.v


def alibi_biases(slopes, n_queries, n_keys):
    """ALiBi's (H, Lq, Lk) bias −m_h·|i − j|, i the query index and j the key index (also across sequences)."""
    return np.stack([alibi_bias(m, np.arange(n_queries), n_keys) for m in slopes])


def run_pipeline(matrices, settings):
    """Q, K, V (direct) or X (and X_src) and the W (projected), and the settings → every stage.

    Raises ShapeError/NonFiniteError on bad input.
    """
    p = wo = None
    if settings.source == "projected":
        p = project(matrices, settings)
        q, k, v, wo = p.q, p.k, p.v, matrices["Wo"]
    else:
        q, k, v = matrices["Q"], matrices["K"], matrices["V"]
    q_in, k_in = q, k
    if settings.rope:
        q, k = rotate_heads(q, k, settings)
    d_head = q.shape[1] // settings.heads
    scale = scale_for(settings, d_head)
    slopes = slopes_for(settings)
    bias = None if slopes is None else alibi_biases(slopes, q.shape[0], k.shape[0])
    result = multi_head_attention(q, k, v, settings.heads, kv_heads=kv_heads_of(settings), scale=scale,
                                  causal=settings.causal, temperature=settings.temperature, wo=wo, bias=bias)
    return PipelineResult(q=q, k=k, v=v, heads=result, scale=scale, temperature=settings.temperature,
                          x=getattr(p, "x", None), pe=getattr(p, "pe", None), q_in=q_in, k_in=k_in, wo=wo,
                          slopes=slopes, x_src=getattr(p, "x_src", None), pe_src=getattr(p, "pe_src", None))


def kv_heads_of(settings):
    """H_kv of a session's settings: ``kv_heads``, or ``heads`` when it is 0 (the default)."""
    return kv_head_count(settings.heads, getattr(settings, "kv_heads", 0))


def rope_positions(settings, length):
    """The positions RoPE rotates by: offset, offset + 1, … (queries and keys each by their own index)."""
    return settings.rope_offset + np.arange(length, dtype=np.float64)


def rotate(m, positions, d_head, settings):
    """RoPE inside every head of ``m`` (rows at ``positions``): cut its columns into heads of width
    d_head, rotate the pairs of each, put them back side by side."""
    n, width = len(m), m.shape[1]
    split = m.reshape(n, width // d_head, d_head).transpose(1, 0, 2)
    turned = rope(split, positions, base=settings.rope_base, style=settings.rope_style,
                  scaling=scaling_of(settings))
    return turned.transpose(1, 0, 2).reshape(n, width)


def rotate_heads(q, k, settings):
    """RoPE inside every head of q (H heads) and k (H_kv heads): the queries at positions offset + 0 … Lq − 1,
    the keys at offset + 0 … Lk − 1 — in a cross-attention session each sequence by its own indices."""
    d_head = q.shape[1] // settings.heads
    return tuple(rotate(m, rope_positions(settings, len(m)), d_head, settings) for m in (q, k))
