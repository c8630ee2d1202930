"""Multi-head attention: cut D into H slices of d_h = D/H, attend in each, concatenate, project with W_o."""
from dataclasses import dataclass

import numpy as np

from .attention import attention
from .checks import as_matrix, require_finite
from .errors import ShapeError
from .translatable import QT_TRANSLATE_NOOP


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


def kv_head_options(n_heads):
    """The K/V head counts H_kv that H query heads may share: the divisors of H (H = ordinary multi-head,
    1 = multi-query attention, anything between = grouped-query attention)."""
    n_heads = int(n_heads)
    return [g for g in range(1, n_heads + 1) if n_heads % g == 0]


def sharing_name(n_heads, n_kv):
    """What H query heads reading H_kv K/V heads is called: "multi-head", "multi-query" (one K/V head) or
    "grouped-query attention"."""
    if n_kv >= n_heads:
        return QT_TRANSLATE_NOOP("Heads", "multi-head attention")
    if n_kv == 1:
        return QT_TRANSLATE_NOOP("Heads", "multi-query attention")
    return QT_TRANSLATE_NOOP("Heads", "grouped-query attention")


def kv_head_count(n_heads, kv_heads=None):
    """H_kv: ``kv_heads``, or H when it is None or 0 (the setting's default, ordinary multi-head attention)."""
    return int(n_heads) if not kv_heads else int(kv_heads)


def kv_head_of(head, n_heads, kv_heads=None):
    """The K/V head that query head ``head`` reads: ⌊h / (H / H_kv)⌋ — Hugging Face's ``repeat_kv`` order
    (query heads 0 … H/H_kv − 1 share K/V head 0, and so on), not h mod H_kv."""
    return int(head) // (int(n_heads) // kv_head_count(n_heads, kv_heads))


@dataclass(frozen=True)
class MultiHeadResult:
    """Per-head stages shaped (H, Lq, Lk) / (H, Lq, d_vh), the concatenation, and the final output.

    d_vh is a head's V width: V width / H_kv (= V width / H without grouped K/V heads)."""

    scores: np.ndarray
    weights: np.ndarray
    head_outputs: np.ndarray
    concat: np.ndarray  # (Lq, H·d_vh): heads side by side, before W_o (= V's width unless K/V heads are shared)
    output: np.ndarray  # the concat, or (Lq, D_out) after @ W_oᵀ
    mask: np.ndarray | None
    masked_rows: np.ndarray  # (Lq,) — the same for every head
    scale: float
    # Made on the way by explorer.core.recompute (None from multi_head_attention): see PipelineResult.
    row_sums: np.ndarray | None = None  # (H, Lq)
    score_range: np.ndarray | None = None  # (H, 2)


def _grouped_shapes(q, k, v, n_heads, kv_heads):
    """(H, H_kv, d_h) for q (Lq, H·d_h), k (Lk, H_kv·d_h), v (Lk, H_kv·d_vh), or ShapeError naming the widths."""
    q, k, v = (as_matrix(m, name, None) for m, name in ((q, "q"), (k, "k"), (v, "v")))
    if q.ndim != 2 or k.ndim != 2 or v.ndim != 2:
        raise ShapeError(f"multi_head_attention expects 2-D q, k, v; got q of shape {q.shape}")
    n_heads = int(n_heads)
    if n_heads < 1:
        raise ShapeError(f"the number of heads must be at least 1, got {n_heads}")
    n_kv = kv_head_count(n_heads, kv_heads)
    if n_kv < 1 or n_heads % n_kv:
        raise ShapeError(f"kv_heads must divide the number of heads H = {n_heads} (possible: "
                         f"{', '.join(map(str, kv_head_options(n_heads)))}), got {kv_heads}")
    if q.shape[1] % n_heads:
        split_heads(q, n_heads)  # raises the message that names the possible H
    d_h = q.shape[1] // n_heads
    if n_kv == n_heads and q.shape[1] != k.shape[1]:
        raise ShapeError(f"q and k must have the same width d: q is {q.shape}, k is {k.shape}")
    if k.shape[1] != n_kv * d_h:
        raise ShapeError(f"k must have kv_heads·d_h = {n_kv}·{d_h} = {n_kv * d_h} columns (d_h = q's width "
                         f"{q.shape[1]} / {n_heads} heads), got {k.shape}")
    if k.shape[0] != v.shape[0]:
        raise ShapeError(f"k and v must have one row per key: k is {k.shape}, v is {v.shape}")
    if v.shape[1] % n_kv:
        what = "H" if n_kv == n_heads else f"the number of K/V heads {n_kv}"
        raise ShapeError(f"cannot split the width of v ({v.shape[1]}) into {n_kv} heads: it must be divisible "
                         f"by {what}")
    return q, k, v, n_heads, n_kv


def _per_group(x, n_kv, group, rows, cols):
    """A mask or bias that broadcasts to (H, Lq, Lk), regrouped (H_kv, H/H_kv, Lq, Lk) like the query heads."""
    if x is None or np.ndim(x) < 3:
        return x
    return np.broadcast_to(x, (n_kv * group, rows, cols)).reshape(n_kv, group, rows, cols)


def multi_head_attention(q, k, v, n_heads, *, kv_heads=None, scale=None, mask=None, causal=False, wo=None,
                         temperature=1.0, bias=None):
    """Split q, k, v into heads, attend in each (scale 1/√d_h by default), concat, then ``@ wo.T``.

    q is (Lq, H·d_h); k is (Lk, H_kv·d_h) and v (Lk, H_kv·d_vh) with H_kv = ``kv_heads`` K/V heads
    (None: H, ordinary multi-head; 1: multi-query; a divisor of H: grouped-query attention). Query head h
    reads K/V head ⌊h / (H/H_kv)⌋ (Hugging Face's ``repeat_kv``), so the concat is (Lq, H·d_vh) — in
    Llama, V has H_kv·d_h columns and the concat H·d_h. Lq may differ from Lk (cross-attention).
    ``bias`` (H, Lq, Lk), e.g. ALiBi's, is added to each head's scaled scores before the temperature."""
    q, k, v, n_heads, n_kv = _grouped_shapes(q, k, v, n_heads, kv_heads)
    group, lq, lk = n_heads // n_kv, q.shape[0], k.shape[0]
    # (H_kv, H/H_kv, Lq, d_h) queries against (H_kv, 1, Lk, d_h) keys: the K/V heads are shared by
    # broadcasting, never copied; query head h = g·(H/H_kv) + r sits at [g, r].
    qh = split_heads(q, n_heads).reshape(n_kv, group, lq, -1)
    kh, vh = split_heads(k, n_kv)[:, None], split_heads(v, n_kv)[:, None]
    r = attention(qh, kh, vh, scale=scale, mask=_per_group(mask, n_kv, group, lq, lk), causal=causal,
                  temperature=temperature, bias=_per_group(bias, n_kv, group, lq, lk))
    scores, weights = r.scores.reshape(n_heads, lq, lk), r.weights.reshape(n_heads, lq, lk)
    head_outputs = r.output.reshape(n_heads, lq, -1)
    applied = r.mask if r.mask is None or r.mask.ndim < 4 else r.mask.reshape(n_heads, lq, lk)
    concat = merge_heads(head_outputs)
    output = concat
    if wo is not None:
        wo = as_matrix(wo, "wo")
        if wo.shape[1] != concat.shape[1]:
            raise ShapeError(f"wo must have {concat.shape[1]} columns to take the concatenated heads, got {wo.shape}")
        with np.errstate(over="ignore", invalid="ignore"):
            output = concat @ wo.T
        require_finite(output, "output concat·W_oᵀ")
    return MultiHeadResult(scores=scores, weights=weights, head_outputs=head_outputs, concat=concat, output=output,
                           mask=applied, masked_rows=r.masked_rows.reshape(n_heads, lq)[0], scale=r.scale)
