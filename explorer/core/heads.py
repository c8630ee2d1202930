"""Multi-head attention: cut D into H slices of d_h = D/H, attend in each, concatenate, project with W_o."""
from dataclasses import dataclass

import numpy as np

from .attention import attention, check_qkv
from .checks import as_matrix, require_finite
from .errors import ShapeError


def head_count_options(*widths):
    """The head counts H that divide every given width (the only ones a user may choose)."""
    widths = [int(w) for w in widths]
    return [h for h in range(1, min(widths) + 1) if all(w % h == 0 for w in widths)]


def split_heads(x, n_heads):
    """(L, D) → (H, L, D/H): the chapter's "切头" reshape and transpose. D must be divisible by H."""
    x = np.asarray(x)
    if x.ndim != 2:
        raise ShapeError(f"split_heads expects (L, D), got shape {x.shape}")
    n_heads = int(n_heads)
    length, width = x.shape
    if n_heads < 1 or width % n_heads:
        raise ShapeError(f"cannot split width D={width} into {n_heads} heads: D must be divisible by H "
                         f"(possible H: {', '.join(map(str, head_count_options(width)))})")
    return x.reshape(length, n_heads, width // n_heads).transpose(1, 0, 2)


def merge_heads(x):
    """(H, L, d_h) → (L, H·d_h): concatenate the heads' outputs side by side ("拼头")."""
    x = np.asarray(x)
    if x.ndim != 3:
        raise ShapeError(f"merge_heads expects (H, L, d_h), got shape {x.shape}")
    n_heads, length, d_h = x.shape
    return x.transpose(1, 0, 2).reshape(length, n_heads * d_h)


@dataclass(frozen=True)
class MultiHeadResult:
    """Per-head stages shaped (H, Lq, Lk) / (H, Lq, d_v/H), the concatenation, and the final output."""

    scores: np.ndarray
    weights: np.ndarray
    head_outputs: np.ndarray
    concat: np.ndarray  # (Lq, d_v): heads side by side, before W_o
    output: np.ndarray  # (Lq, d_v) or (Lq, D_out) after @ W_oᵀ
    mask: np.ndarray | None
    masked_rows: np.ndarray  # (Lq,) — the same for every head
    scale: float
    # Made on the way by explorer.core.recompute (None from multi_head_attention): see PipelineResult.
    row_sums: np.ndarray | None = None  # (H, Lq)
    score_range: np.ndarray | None = None  # (H, 2)


def multi_head_attention(q, k, v, n_heads, *, scale=None, mask=None, causal=False, wo=None, temperature=1.0,
                         bias=None):
    """Split q, k, v into ``n_heads`` heads, attend in each (scale 1/√d_h by default), concat, then ``@ wo.T``.
    ``bias`` (H, L, L), e.g. ALiBi's, is added to each head's scaled scores before the temperature."""
    q, k, v = check_qkv(q, k, v)
    if q.ndim != 2:
        raise ShapeError(f"multi_head_attention expects 2-D q, k, v; got q of shape {q.shape}")
    if int(n_heads) < 1:
        raise ShapeError(f"the number of heads must be at least 1, got {n_heads}")
    if v.shape[1] % int(n_heads):
        raise ShapeError(f"cannot split the width of v ({v.shape[1]}) into {n_heads} heads: "
                         f"it must be divisible by H")
    qh, kh, vh = split_heads(q, n_heads), split_heads(k, n_heads), split_heads(v, n_heads)
    r = attention(qh, kh, vh, scale=scale, mask=mask, causal=causal, temperature=temperature, bias=bias)
    concat = merge_heads(r.output)
    output = concat
    if wo is not None:
        wo = as_matrix(wo, "wo")
        if wo.shape[1] != concat.shape[1]:
            raise ShapeError(f"wo must have {concat.shape[1]} columns to take the concatenated heads, got {wo.shape}")
        with np.errstate(over="ignore", invalid="ignore"):
            output = concat @ wo.T
        require_finite(output, "output concat·W_oᵀ")
    return MultiHeadResult(scores=r.scores, weights=r.weights, head_outputs=r.output, concat=concat, output=output,
                           mask=r.mask, masked_rows=r.masked_rows[0], scale=r.scale)
