"""Generation, token by token, on a session's own numbers (F15): prefill the first P tokens in one
step, then decode one token at a time. Each step appends its tokens' k and v to the K/V cache and
attends from its new queries to everything cached so far — causal by nature, so the decoded output
rows stacked equal full causal attention.

Steps are computed on demand (``Decoder.step(i)``), so nothing of size L² · d is ever held; a step's
cache is a view into the cache arrays, never a copy.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .errors import ShapeError
from .recompute import prepare
from .softmax import softmax


@dataclass(frozen=True)
class DecodeStep:
    """One step: the rows ``start:stop`` enter the cache, their queries attend to keys ``0:stop``."""

    index: int              # 0 is the prefill
    start: int
    stop: int               # tokens in the cache after this step (t)
    q: np.ndarray           # (n, d_k) the new queries (after RoPE when it is on)
    k_cache: np.ndarray     # (t, d_k) view of the K cache after this step; its rows start: are new
    v_cache: np.ndarray     # (t, d_v) view of the V cache
    weights: np.ndarray     # (H, n, t) the new queries' weights over every cached key
    output: np.ndarray      # (n, d_out) their output rows (W_o applied in projected mode)


def decode_steps(length, prefill=1):
    """(start, stop) of every step: the prefill of ``prefill`` tokens, then one token a step."""
    length, prefill = int(length), int(prefill)
    if not 1 <= prefill <= length:
        raise ShapeError(f"the prefill must hold 1 to {length} tokens (the session has {length}), "
                         f"not {prefill}")
    return [(0, prefill)] + [(t, t + 1) for t in range(prefill, length)]


class Decoder:
    """Decodes a session (its matrices and settings) with a K/V cache. The settings' causal switch
    is ignored: decoding is causal by nature (a session without the mask still decodes).

    ``cross``: a cross-attention session decodes its queries (a translation's target, token by token)
    against the encoder's K and V, computed once and fixed: every step reads all of them. (In a real
    decoder its own self-attention cache is the one that grows.) Grouped K/V heads: query head h reads
    K/V head ⌊h / (H / H_kv)⌋, so the cache holds H_kv heads, not H."""

    def __init__(self, matrices, settings, prefill=1, cross=False):
        self.inputs = prepare(matrices, replace(settings, causal=False))
        self.cross = bool(cross)
        self.steps = decode_steps(self.inputs.q.shape[0], prefill)
        self.k_cache = self.inputs.k  # the cache: step i's view holds its first ``stop`` rows (all, cross)
        self.v_cache = self.inputs.v

    @property
    def n_steps(self):
        return len(self.steps)

    def step(self, index):
        """Step ``index`` (0 = the prefill); IndexError names the valid range."""
        if not 0 <= index < len(self.steps):
            raise IndexError(f"step {index} is out of range: this decode has steps 0..{len(self.steps) - 1}")
        start, stop = self.steps[index]
        inp = self.inputs
        q = inp.q[start:stop]
        t = len(self.k_cache) if self.cross else stop
        k, v = self.k_cache[:t], self.v_cache[:t]
        heads, kv, n = inp.n_heads, inp.n_kv, stop - start
        dh, dvh = inp.d_head, inp.dv_head
        # every head at once, each reading its K/V head: (H, n, d_h) @ (H, d_h, t) → (H, n, t)
        kh = np.repeat(k.reshape(t, kv, dh).transpose(1, 2, 0), heads // kv, axis=0)
        s = np.matmul(q.reshape(n, heads, dh).transpose(1, 0, 2), kh)
        s *= inp.scale / inp.temperature
        for h in range(heads):
            inp.add_bias(s[h], h, np.arange(start, stop))
        if not self.cross:
            allowed = np.arange(t)[None, :] <= np.arange(start, stop)[:, None]  # query i sees keys ≤ i
            s = np.where(allowed, s, -np.inf)
        weights = softmax(s, axis=-1)
        vh = np.repeat(v.reshape(t, kv, dvh).transpose(1, 0, 2), heads // kv, axis=0)
        mixed = np.matmul(weights, vh)  # (H, n, d_vh)
        output = mixed.transpose(1, 0, 2).reshape(n, heads * dvh)
        if inp.wo is not None:
            output = output @ inp.wo.T
        return DecodeStep(index=index, start=start, stop=stop, q=q, k_cache=k, v_cache=v,
                          weights=weights, output=output)

    def step_at(self, t):
        """The step after which ``t`` tokens are decoded (the prefill for any t ≤ P)."""
        for index, (start, stop) in enumerate(self.steps):
            if start < t <= stop:
                return self.step(index)
        raise IndexError(f"t = {t} is out of range: the cache holds 1..{self.steps[-1][1]} tokens")

    def outputs(self):
        """Every step's output rows stacked, (L, d_out): what full causal attention gives."""
        return np.concatenate([self.step(i).output for i in range(len(self.steps))])


@dataclass(frozen=True)
class DecodeShape:
    """What the cost of a decode depends on. Widths are whole matrices: ``q_width`` = H·d_h,
    ``k_width`` = H_kv·d_h, ``v_width`` = H_kv·d_vh (grouped K/V heads shrink the last two);
    ``d_model`` is the token-vector width D when Q, K, V are projected from X (None when edited
    directly), ``d_out`` the width of the output projection's output."""

    heads: int
    q_width: int
    k_width: int
    v_width: int
    d_model: int | None = None
    d_out: int | None = None
    bytes_per_number: int = 4
    cross_keys: int | None = None  # cross-attention: the encoder's L_k keys every query reads

    @property
    def d_head(self):
        return self.q_width // self.heads

    @property
    def kv_heads(self):
        """H_kv: how many d_h-wide heads K holds."""
        return self.k_width // self.d_head

    @property
    def dv_head(self):
        """What one query head mixes: V's width over H_kv."""
        return self.v_width // self.kv_heads if self.k_width else 0

    @classmethod
    def of(cls, inputs, bytes_per_number=4, cross=False):
        """The shape of a prepared session (``recompute.prepare``)."""
        x = inputs.x
        return cls(heads=inputs.n_heads, q_width=inputs.q.shape[1], k_width=inputs.k.shape[1],
                   v_width=inputs.v.shape[1], d_model=None if x is None else x.shape[1],
                   d_out=None if inputs.wo is None else inputs.wo.shape[0], bytes_per_number=bytes_per_number,
                   cross_keys=inputs.k.shape[0] if cross else None)


def step_cost(shape, start, stop, cached=True):
    """(multiply-adds, bytes read) of the decode step that brings the decoded tokens from ``start`` to
    ``stop``. With the cache, only the new tokens are projected and only their queries attend (query i
    to keys 0..i); without it, every step projects all ``stop`` tokens again and attends from all of
    them. Bytes read: the token inputs projected (X rows, or the new Q, K, V rows when edited
    directly), the projection weights, and the K and V rows the attention reads.

    Cross-attention (``shape.cross_keys`` = L_k): every query reads all L_k encoder keys; with the cache
    their K and V are projected once (in the first step), without it again at every step."""
    s = shape
    first = start if cached else 0
    n = stop - first
    dv_head = s.dv_head
    per_query = s.d_head + dv_head
    if s.cross_keys is None:
        pairs = (first + 1 + stop) * n // 2  # Σ over new queries i of (i + 1) keys, per head
        kv_rows, kv_read = n, stop  # K, V rows made, and read by the attention
    else:
        pairs = n * s.cross_keys
        kv_rows = s.cross_keys if (start == 0 or not cached) else 0
        kv_read = s.cross_keys
    macs = s.heads * pairs * per_query
    weights = 0
    if s.d_model is not None:
        macs += n * s.d_model * s.q_width + kv_rows * s.d_model * (s.k_width + s.v_width)
        weights = s.d_model * (s.q_width + s.k_width + s.v_width)
        inputs = (n + (kv_rows if s.cross_keys is not None else 0)) * s.d_model
        if s.d_out is not None:
            concat = s.heads * dv_head
            macs += n * concat * s.d_out
            weights += concat * s.d_out
    else:
        inputs = n * s.q_width + kv_rows * (s.k_width + s.v_width)
    read = (inputs + weights + kv_read * (s.k_width + s.v_width)) * s.bytes_per_number
    return macs, read


def cost_curves(shape, steps):
    """Per step and cumulative multiply-adds and bytes read, with and without the cache:
    {"cached": {"macs", "bytes", "total_macs", "total_bytes"}, "recomputed": {…}} of arrays."""
    out = {}
    for key, cached in (("cached", True), ("recomputed", False)):
        costs = np.array([step_cost(shape, a, b, cached) for a, b in steps], dtype=np.int64).reshape(-1, 2)
        out[key] = {"macs": costs[:, 0], "bytes": costs[:, 1],
                    "total_macs": np.cumsum(costs[:, 0]), "total_bytes": np.cumsum(costs[:, 1])}
    return out


def cache_bytes_per_token(layers, kv_heads, d_head, bytes_per_number, dv_head=None):
    """Bytes the K/V cache grows by per token: layers · H_kv · (d_h + d_vh) · bytes, i.e. the familiar
    2 · layers · H_kv · d_h · bytes when K and V heads have the same width."""
    dv_head = d_head if dv_head is None else dv_head
    return int(layers) * int(kv_heads) * (int(d_head) + int(dv_head)) * int(bytes_per_number)
