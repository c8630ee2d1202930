"""The forward pass of both families in NumPy float32, keeping what the explorer shows: every head's
attention weights, each layer's normalized attention input X, and the last position's logits.

GPT-2: h = wte[ids] + wpe[pos]; per block h += Attn(LN₁(h)); h += MLP(LN₂(h)) with gelu_new.
Llama family: h = embed[ids]; per block h += Attn(RMSNorm₁(h)) with RoPE on q, k and K/V heads shared
by groups of query heads (GQA); h += down(silu(gate(x)) ⊙ up(x)) with x = RMSNorm₂(h).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from explorer.core.errors import ShapeError

from .architectures import LayerWeights, Layout
from .config import ModelConfig


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


PARALLEL_CELLS = 1 << 20  # element-wise work above this many numbers is shared out between the cores
_lanes = None


def _by_rows(fn, x, out):
    """``fn(x[rows], out[rows])`` over row blocks, one per core when x is large (NumPy's element-wise
    functions run on one thread; they release the GIL, so the blocks really run side by side)."""
    global _lanes
    cores = os.cpu_count() or 1
    if cores < 2 or x.size < PARALLEL_CELLS or not (x.flags.c_contiguous and out.flags.c_contiguous):
        fn(x, out)
        return out
    rows = x.reshape(-1, x.shape[-1]), out.reshape(-1, out.shape[-1])
    if _lanes is None:
        _lanes = ThreadPoolExecutor(cores, thread_name_prefix="forward-lane")
    edges = np.linspace(0, len(rows[0]), cores + 1).astype(int)
    list(_lanes.map(lambda i: fn(rows[0][edges[i]:edges[i + 1]], rows[1][edges[i]:edges[i + 1]]), range(cores)))
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
    from explorer.core.rope import rope_frequencies
    return rope_frequencies(config.head_dim, config.rope_theta, config.rope_scaling)


def rotate_half(x, cos, sin):
    """RoPE in the "half" convention (GPT-NeoX/Llama): pair i with i + d/2 and turn it by p·θ_i."""
    h = x.shape[-1] // 2
    a, b = x[..., :h], x[..., h:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)


def causal_allowed(length: int, window: int | None) -> np.ndarray:
    """(L, L) True where query i may see key j: j ≤ i, and i − j < window for sliding-window models."""
    i, j = np.arange(length)[:, None], np.arange(length)[None, :]
    allowed = j <= i
    return allowed if window is None else allowed & (i - j < window)


def _softmax(scores, out):
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, in place (the scores are not needed after); C-contiguous scores."""
    return _by_rows(_softmax, scores, scores)


def _heads(m: np.ndarray, n: int, d: int) -> np.ndarray:
    """(L, n·d) → (n, L, d)."""
    return m.reshape(m.shape[0], n, d).transpose(1, 0, 2)


def project_heads(x, w: LayerWeights, config: ModelConfig, rope_cs):
    """q (H, L, d_h), k and v (H_kv, L, d_h) of the rows x (L, D): projections, biases, RoPE."""
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
    q, k, v = _heads(q, h, d), _heads(k, kv, d), _heads(v, kv, d)
    if rope_cs is not None:
        q, k = rotate_half(q, *rope_cs), rotate_half(k, *rope_cs)
    return q, k, v


def attention_block(x, w: LayerWeights, config: ModelConfig, rope_cs, mask_bias, weights_out=None):
    """One layer's attention on its normalized input x (L, D): the weights (H, L, L) and per-head outputs
    (H, L, d_h), before W_o. ``mask_bias`` (L, L) is 0 where a query may look and −∞ where it may not.
    ``weights_out``: a C-contiguous (H, L, L) float32 array to compute the weights in (no copy after)."""
    h, kv, d = config.heads, config.kv_heads, config.head_dim
    q, k, v = project_heads(x, w, config, rope_cs)
    length = x.shape[0]
    # contiguous heads let matmul hand each one to BLAS; query heads h = g·group + j share K/V head g;
    # the scale goes on q (L·D products) rather than on the scores (H·L² of them)
    q = (np.ascontiguousarray(q) * np.float32(1 / np.sqrt(d))).reshape(kv, config.group, length, d)
    k, v = np.ascontiguousarray(k), np.ascontiguousarray(v)
    shape = (kv, config.group, length, length)
    scores = np.matmul(q, k[:, None].transpose(0, 1, 3, 2),
                       out=None if weights_out is None else weights_out.reshape(shape))
    scores += mask_bias
    weights = softmax_rows(scores).reshape(h, length, length)
    out = (weights.reshape(kv, config.group, length, length) @ v[:, None]).reshape(h, length, d)
    return weights, out


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
        raise ShapeError(f"the text has {len(ids)} tokens; this {config.model_type} reads at most "
                         f"{config.max_positions}")
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
    rope_cs = None
    if config.rope_theta is not None:
        angles = np.arange(length, dtype=np.float64)[:, None] * inverse_frequencies(config)[None, :]
        rope_cs = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    mask_bias = np.where(causal_allowed(length, config.sliding_window), np.float32(0), np.float32(-np.inf))
    attentions = np.empty((n, config.heads, length, length), np.float32)
    inputs = np.empty((n, length, config.hidden), np.float32)
    replaced = head_outputs or {}
    for i in range(n):
        if cancelled is not None and cancelled():
            raise RunCancelled(f"stopped before layer {i + 1} of {n}")
        if progress is not None:
            progress(f"layer {i + 1} of {n}")
        w = layout.layer(i)
        x = _norm(h, w.norm1_w, w.norm1_b, config)
        inputs[i] = x
        weights, out = attention_block(x, w, config, rope_cs, mask_bias, weights_out=attentions[i])
        attn = out.transpose(1, 0, 2).reshape(length, -1) @ w.wo
        for (layer, head), (new_weights, contribution) in replaced.items():
            if layer == i:
                d = config.head_dim
                weights[head] = new_weights
                attn += contribution - out[head] @ w.wo[head * d:(head + 1) * d]
        if not np.shares_memory(weights, attentions[i]):  # (computed in place: nothing to copy)
            attentions[i] = weights
        h = h + (attn if w.bo is None else attn + w.bo)
        h = h + mlp_block(_norm(h, w.norm2_w, w.norm2_b, config), w, config)
    final = _norm(h[-1:], layout.get("norm_w"), layout.get("norm_b"), config)
    logits = (final @ layout.output_embedding().T)[0]
    return ForwardResult(attentions=attentions, attn_inputs=inputs, last_logits=logits)
