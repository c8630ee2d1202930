"""The forward pass of both families in NumPy float32, keeping what the explorer shows: every head's
attention weights, each layer's normalized attention input X, and the last position's logits.

GPT-2: h = wte[ids] + wpe[pos]; per block h += Attn(LN₁(h)); h += MLP(LN₂(h)) with gelu_new.
Llama family: h = embed[ids]; per block h += Attn(RMSNorm₁(h)) with RoPE on q, k and K/V heads shared
by groups of query heads (GQA); h += down(silu(gate(x)) ⊙ up(x)) with x = RMSNorm₂(h).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from explorer.core.errors import ShapeError
from explorer.core.rope import rope_frequencies

from .architectures import LayerWeights, Layout
from .config import ModelConfig
from .lanes import by_heads, dense_rows, in_blocks, one_blas_thread


class RunCancelled(Exception):
    """Raised by a forward pass whose ``cancelled()`` returned True (between two layers)."""


@dataclass
class ForwardResult:
    attentions: np.ndarray    # (layers, heads, L, L) float32
    attn_inputs: np.ndarray   # (layers, L, D) float32: X of each layer's attention (after its norm)
    last_logits: np.ndarray   # (vocab,) float32: the next-token logits after the last position


def layer_norm(x, w, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + np.float32(eps)) * w + b


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + np.float32(eps)) * w


def _by_rows(fn, x, out):
    """``fn(x[rows], out[rows])`` over cache-sized row blocks of C-contiguous x and out."""
    xs, outs = x.reshape(-1, x.shape[-1]), out.reshape(-1, out.shape[-1])
    in_blocks(lambda a, b: fn(xs[a:b], outs[a:b]), len(xs), xs.shape[-1])
    return out


def _gelu_new(x, out):
    out[...] = np.float32(0.5) * x * (1 + np.tanh(np.float32(np.sqrt(2 / np.pi))
                                                  * (x + np.float32(0.044715) * (x * x * x))))


def gelu_new(x):
    """GPT-2's tanh approximation of GELU (also transformers' gelu_pytorch_tanh and gelu_fast)."""
    x = np.ascontiguousarray(x)
    return _by_rows(_gelu_new, x, np.empty_like(x))


def silu(x):
    with np.errstate(over="ignore"):
        return x / (1 + np.exp(-x))


ACTIVATIONS = {"gelu_new": gelu_new, "gelu_pytorch_tanh": gelu_new, "gelu_fast": gelu_new,
               "relu": lambda x: np.maximum(x, 0)}


def inverse_frequencies(config: ModelConfig) -> np.ndarray:
    """RoPE's θ_i = base^(−2i/d_h) in float64, changed by Llama 3.1's "llama3" scaling when configured: the one
    formula of ``explorer.core.rope``, which a head's session uses too."""
    return rope_frequencies(config.head_dim, config.rope_theta, config.rope_scaling)


def rope_at(config: ModelConfig, positions) -> tuple[np.ndarray, np.ndarray] | None:
    """cos and sin (len(positions), d_h / 2) of p·θ_i in float32; None for a model without RoPE (GPT-2)."""
    if config.rope_theta is None:
        return None
    angles = np.asarray(positions, dtype=np.float64)[:, None] * inverse_frequencies(config)[None, :]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def rotate_half(x, cos, sin):
    """RoPE in the "half" convention (GPT-NeoX/Llama): pair i with i + d/2 and turn it by p·θ_i."""
    h = x.shape[-1] // 2
    a, b = x[..., :h], x[..., h:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def causal_allowed(length: int, window: int | None, start: int = 0) -> np.ndarray:
    """(L − start, L) True where query i (positions start … L − 1) may see key j: j ≤ i, and i − j < window
    for sliding-window models (generation asks for its new rows only)."""
    i, j = np.arange(start, length)[:, None], np.arange(length)[None, :]
    allowed = j <= i
    return allowed if window is None else allowed & (i - j < window)


# exp's results below this are subnormal, or may become so after the division by a row sum of up to
# 65,536: they are set to 0, as x86 runs exp ~5× and a matrix product ~50× slower on subnormals (a
# weight under 1e-33 changes no float32 output). Scores are first raised to _FLOOR (exp ≈ 3.6e-34, still
# normal), so exp itself never makes one; −∞ (masked) ends as 0 the same way.
_SUBNORMAL_AFTER_DIVISION = np.float32(np.finfo(np.float32).tiny * 2 ** 16)
_FLOOR = np.float32(-77)


def _softmax(s):
    s -= s.max(axis=-1, keepdims=True)
    np.maximum(s, _FLOOR, out=s)
    np.exp(s, out=s)
    np.putmask(s, s < _SUBNORMAL_AFTER_DIVISION, np.float32(0))
    s /= s.sum(axis=-1, keepdims=True)


def softmax_rows(scores: np.ndarray, bias: np.ndarray | None = None, lanes: bool = True) -> np.ndarray:
    """Softmax over the last axis of C-contiguous scores (…, Lq, Lk), in place (the scores are not needed
    after), ``bias`` (Lq, Lk) added first (the causal mask's 0 and −∞), block by block."""
    rows = scores.reshape(-1, scores.shape[-1])
    lq = scores.shape[-2] if scores.ndim > 1 else 1

    def work(a, b):
        block = rows[a:b]
        if bias is not None:
            if a // lq == (b - 1) // lq:
                block += bias[a % lq:(b - 1) % lq + 1]
            else:
                block += bias[np.arange(a, b) % lq]
        _softmax(block)

    in_blocks(work, len(rows), rows.shape[-1], lanes=lanes)
    return scores


def project_rows(x, w: LayerWeights, config: ModelConfig, rope_cs):
    """q (n, H, d_h), k and v (n, H_kv, d_h) of the rows x (n, D): projections, biases, RoPE (``rope_cs``:
    cos and sin (n, d_h / 2) of these rows' positions)."""
    h, kv, d = config.heads, config.kv_heads, config.head_dim
    if w.wqkv is not None:  # fused (GPT-2): the three column slices of one product
        qkv = x @ w.wqkv
        if w.bqkv is not None:
            qkv += w.bqkv
        q, k, v = qkv[:, :h * d], qkv[:, h * d:(h + kv) * d], qkv[:, (h + kv) * d:]
    else:
        q, k, v = x @ w.wq, x @ w.wk, x @ w.wv
        for m, b in ((q, w.bq), (k, w.bk), (v, w.bv)):
            if b is not None:
                m += b
    n = len(x)
    q, k, v = q.reshape(n, h, d), k.reshape(n, kv, d), v.reshape(n, kv, d)
    if rope_cs is not None:
        cos, sin = rope_cs[0][:, None], rope_cs[1][:, None]
        q, k = rotate_half(q, cos, sin), rotate_half(k, cos, sin)
    return q, k, v


def project_heads(x, w: LayerWeights, config: ModelConfig, rope_cs):
    """As ``project_rows``, heads first: q (H, n, d_h), k and v (H_kv, n, d_h)."""
    return tuple(m.transpose(1, 0, 2) for m in project_rows(x, w, config, rope_cs))


def attention_heads(q, k, v, config: ModelConfig, mask_bias, weights):
    """Every head's weights, written into ``weights`` (H, L, L), and outputs (H, L, d_h) from q (L, H, d_h),
    already scaled, and k, v (L, H_kv, d_h); query heads i = g·group + j share K/V head g (Hugging Face's
    repeat_kv order). ``mask_bias`` (L, L) is 0 where a query may look and −∞ where it may not."""
    out = np.empty((config.heads, len(q), config.head_dim), np.float32)

    def head(i):
        g = i // config.group
        np.matmul(q[:, i], k[:, g].T, out=weights[i])
        softmax_rows(weights[i], mask_bias, lanes=False)
        np.matmul(weights[i], v[:, g], out=out[i])

    by_heads(head, config.heads, weights[0].size)
    return out


def mlp_block(x, w: LayerWeights, config: ModelConfig):
    m = w.mlp
    if config.family == "gpt2":
        return ACTIVATIONS[config.activation](x @ m["fc"] + m["fc_b"]) @ m["proj"] + m["proj_b"]
    gate, up = x @ m["gate"], x @ m["up"]
    if m["gate_b"] is not None:
        gate += m["gate_b"]
    if m["up_b"] is not None:
        up += m["up_b"]
    out = (silu(gate) * up) @ m["down"]
    return out if m["down_b"] is None else out + m["down_b"]


def _norm(x, weight, bias, config):
    return layer_norm(x, weight, bias, config.norm_eps) if config.family == "gpt2" else rms_norm(x, weight,
                                                                                                config.norm_eps)


def embed(layout: Layout, ids: np.ndarray) -> np.ndarray:
    config = layout.config
    if len(ids) > config.max_positions:
        raise ShapeError(f"the text has {len(ids)} tokens; the model reads at most {config.max_positions} "
                         f"(its context, max_position_embeddings)")
    if len(ids) == 0:
        raise ShapeError("the text has no tokens")
    if ids.min() < 0 or ids.max() >= config.vocab:
        raise ShapeError(f"token id {int(ids.max())} is outside the vocabulary of {config.vocab}")
    h = layout.get("embed")[ids].astype(np.float32)
    if config.family == "gpt2":
        h += layout.get("positions")[:len(ids)]
    return h


def forward(layout: Layout, ids, *, progress: Callable[[str], None] | None = None,
            cancelled: Callable[[], bool] | None = None,
            head_outputs: Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]] | None = None) -> ForwardResult:
    """Run token ids through the model. ``head_outputs`` replaces heads: (layer, head) → (weights (L, L),
    that head's contribution to the attention output (L, D)), e.g. from an edited session."""
    config = layout.config
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    h = embed(layout, ids)
    length, n = len(ids), config.layers
    rope_cs = rope_at(config, range(length))
    mask_bias = np.where(causal_allowed(length, config.sliding_window), np.float32(0), np.float32(-np.inf))
    attentions = np.empty((n, config.heads, length, length), np.float32)
    inputs = np.empty((n, length, config.hidden), np.float32)
    d, scale = config.head_dim, np.float32(1 / np.sqrt(config.head_dim))
    q = np.empty((length, config.heads, d), np.float32)
    k, v = np.empty((length, config.kv_heads, d), np.float32), np.empty((length, config.kv_heads, d), np.float32)
    replaced = head_outputs or {}
    with one_blas_thread():
        for i in range(n):
            if cancelled is not None and cancelled():
                raise RunCancelled(f"stopped before layer {i + 1} of {n}")
            if progress is not None:
                progress(f"layer {i + 1} of {n}")
            w, x, weights = layout.layer(i), inputs[i], attentions[i]
            swaps = [(head, new, contribution) for (layer, head), (new, contribution) in replaced.items()
                     if layer == i]

            def first(a, b):  # the norm, then q (scaled: L·D products, not H·L² scores), k and v of rows a:b
                x[a:b] = _norm(h[a:b], w.norm1_w, w.norm1_b, config)
                cs = None if rope_cs is None else (rope_cs[0][a:b], rope_cs[1][a:b])
                q[a:b], k[a:b], v[a:b] = project_rows(x[a:b], w, config, cs)
                q[a:b] *= scale

            def second(a, b):  # W_o (edited heads swapped in), the residual, the MLP and its residual
                attn = out[:, a:b].transpose(1, 0, 2).reshape(b - a, -1) @ w.wo
                for head, _, contribution in swaps:
                    attn += contribution[a:b] - out[head, a:b] @ w.wo[head * d:(head + 1) * d]
                h[a:b] += attn if w.bo is None else attn + w.bo
                h[a:b] += mlp_block(_norm(h[a:b], w.norm2_w, w.norm2_b, config), w, config)

            dense_rows(first, length, config.hidden)
            out = attention_heads(q, k, v, config, mask_bias, weights)
            dense_rows(second, length, config.hidden)
            for head, new, _ in swaps:
                weights[head] = new
    final = _norm(h[-1:], layout.get("norm_w"), layout.get("norm_b"), config)
    logits = (final @ layout.output_embedding().T)[0]
    return ForwardResult(attentions=attentions, attn_inputs=inputs, last_logits=logits)
