"""Scaled dot-product attention: ① scores = QKᵀ·scale, ② weights = softmax(scores), ③ output = weights·V."""
from dataclasses import dataclass

import numpy as np

from .checks import as_matrix, require_finite
from .errors import NonFiniteError, ShapeError
from .masks import combine_masks
from .softmax import softmax


@dataclass(frozen=True)
class AttentionResult:
    """Every stage of one attention call; shapes are (..., Lq, Lk) for scores/weights, (..., Lq, d_v) for output."""

    scores: np.ndarray  # q·kᵀ·scale/temperature, before masking
    weights: np.ndarray  # softmax of the masked scores; masked cells are exactly 0
    output: np.ndarray  # weights·v: each row a convex combination of the rows of v
    mask: np.ndarray | None  # the mask applied (True = may attend), or None when nothing was masked
    masked_rows: np.ndarray  # bool (..., Lq): rows with no key to attend to (zero weights, zero output)
    scale: float  # the scale that multiplied q·kᵀ (before the temperature)


def default_scale(d_k):
    """The chapter's 1/√d: keeps the spread of q·k near 1 whatever the dimension."""
    return 1.0 / np.sqrt(d_k)


def scores(q, k, scale):
    """Step ①: all Lq×Lk dot products in one matrix multiplication, times ``scale``."""
    s = np.matmul(q, np.swapaxes(k, -1, -2))
    s *= scale
    return s


def check_qkv(q, k, v):
    """Validate and convert q (…, Lq, d), k (…, Lk, d), v (…, Lk, d_v); errors name the shapes."""
    q, k, v = as_matrix(q, "q", None), as_matrix(k, "k", None), as_matrix(v, "v", None)
    if q.shape[-1] != k.shape[-1]:
        raise ShapeError(f"q and k must have the same width d: q is {q.shape}, k is {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ShapeError(f"k and v must have one row per key: k is {k.shape}, v is {v.shape}")
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ShapeError(f"the leading (batch/head) axes of q, k, v do not broadcast: "
                         f"q is {q.shape}, k is {k.shape}, v is {v.shape}") from None
    return q, k, v


def attention(q, k, v, *, scale=None, mask=None, causal=False, temperature=1.0, bias=None):
    """Scaled dot-product attention, every stage kept.

    ``scale=None`` means 1/√d_k. ``mask`` is boolean, True = may attend (PyTorch's
    ``scaled_dot_product_attention`` convention); ``causal=True`` ands in the lower triangle.
    ``temperature`` divides the scores before the softmax. A fully masked row gets zero
    weights and zero output and is reported in ``masked_rows``. ``bias`` (broadcast to the scores,
    e.g. ALiBi's) is added after the scale and before the temperature: (q·kᵀ·scale + bias) / T.
    """
    q, k, v = check_qkv(q, k, v)
    if scale is None:
        scale = default_scale(q.shape[-1])
    scale = float(scale)
    temperature = float(temperature)
    if not np.isfinite(scale):
        raise NonFiniteError(f"scale must be finite, got {scale}")
    if not (np.isfinite(temperature) and temperature > 0):
        raise NonFiniteError(f"temperature must be a positive finite number, got {temperature}")
    with np.errstate(over="ignore", invalid="ignore"):
        s = scores(q, k, scale / temperature)
        if bias is not None:
            s += np.asarray(bias, dtype=np.float64) / temperature
    require_finite(s, "scores q·kᵀ·scale")
    return attend(s, v, mask=mask, causal=causal, scale=scale)


def attend(s, v, *, mask=None, causal=False, scale=1.0):
    """Steps ② and ③ from given scores: mask, softmax row by row, then mix the rows of v."""
    applied = combine_masks(mask, causal, s.shape)
    if applied is None:
        masked_scores = s
        masked_rows = np.zeros(s.shape[:-1], dtype=bool)
    else:
        masked_scores = np.where(applied, s, -np.inf)
        masked_rows = ~applied.any(axis=-1)
        masked_rows = np.broadcast_to(masked_rows, s.shape[:-1]).copy()
    w = softmax(masked_scores, axis=-1)
    with np.errstate(over="ignore", invalid="ignore"):
        o = np.matmul(w, v)
    require_finite(o, "output weights·v")
    return AttentionResult(scores=s, weights=w, output=o, mask=applied, masked_rows=masked_rows, scale=scale)
