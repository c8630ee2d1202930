"""Greedy generation with a K/V cache in every layer (F15 on a real model): the prompt is prefilled
in one pass, then each new token runs alone — its q attends to the cached k of every earlier token
(a 1 × t row of weights per head, as ``transformers`` reports them while generating), and its own k
and v join the cache. The numbers are those of the full forward pass on the whole text."""
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .architectures import Layout
from .forward import (RunCancelled, _norm, causal_allowed, embed, mlp_block, project_heads, rope_at,
                      softmax_rows)


@dataclass
class Generation:
    """The prompt's ids and the generated ones; per generated token, every layer's 1 × t weights."""

    prompt_ids: list
    new_ids: list = field(default_factory=list)
    rows: list = field(default_factory=list)   # per new token: (layers, heads, t) float32
    cache_tokens: int = 0                      # tokens in every layer's cache now
    ended: bool = False                        # the last new token is the model's end of text (eos_token_id)

    def cache_bytes(self, config, bytes_per_number=4):
        """The K/V cache's size now: 2 · layers · H_kv · d_h · t numbers."""
        return 2 * config.layers * config.kv_heads * config.head_dim * self.cache_tokens * bytes_per_number


class KVCache:
    """Every layer's keys and values so far: (H_kv, t, d_h) each, grown one token at a time."""

    def __init__(self, layers):
        self.k = [None] * layers
        self.v = [None] * layers

    def append(self, layer, k, v):
        self.k[layer] = k if self.k[layer] is None else np.concatenate([self.k[layer], k], axis=1)
        self.v[layer] = v if self.v[layer] is None else np.concatenate([self.v[layer], v], axis=1)
        return self.k[layer], self.v[layer]


def _step(layout: Layout, cache: KVCache, ids, start):
    """Run tokens ``ids`` at positions start, start + 1, … through every layer with the cache; returns
    the last position's logits and each layer's weights of the new rows (layers, H, n, t)."""
    config = layout.config
    n = len(ids)
    h = embed_at(layout, np.asarray(ids), start)
    rope_cs = rope_at(config, range(start, start + n))
    heads, kv, d = config.heads, config.kv_heads, config.head_dim
    t = start + n
    bias = np.where(causal_allowed(t, config.sliding_window, start), np.float32(0), np.float32(-np.inf))
    rows = np.empty((config.layers, heads, n, t), np.float32)
    for i in range(config.layers):
        w = layout.layer(i)
        x = _norm(h, w.norm1_w, w.norm1_b, config)
        q, k, v = project_heads(x, w, config, rope_cs)
        keys, values = cache.append(i, np.ascontiguousarray(k), np.ascontiguousarray(v))
        group = heads // kv
        qg = np.ascontiguousarray(q).reshape(kv, group, n, d)
        scores = qg @ keys[:, None].transpose(0, 1, 3, 2) * np.float32(1 / np.sqrt(d)) + bias
        weights = softmax_rows(scores)
        out = (weights @ values[:, None]).reshape(heads, n, d)
        rows[i] = weights.reshape(heads, n, t)
        attn = out.transpose(1, 0, 2).reshape(n, -1) @ w.wo
        h = h + (attn if w.bo is None else attn + w.bo)
        h = h + mlp_block(_norm(h, w.norm2_w, w.norm2_b, config), w, config)
    final = _norm(h[-1:], layout.get("norm_w"), layout.get("norm_b"), config)
    return (final @ layout.output_embedding().T)[0], rows


def embed_at(layout: Layout, ids, start):
    """Embeddings of ``ids`` at positions start, start + 1, … (learned positions for GPT-2)."""
    config = layout.config
    if config.family != "gpt2":
        return embed(layout, ids)
    if start + len(ids) > config.max_positions:
        from explorer.core.errors import ShapeError
        raise ShapeError(f"the text would reach {start + len(ids)} tokens; the model reads at most "
                         f"{config.max_positions} (its context, max_position_embeddings)")
    return layout.get("embed")[ids].astype(np.float32) + layout.get("positions")[start:start + len(ids)]


def generate(layout: Layout, prompt_ids, n_new, *, progress: Callable[[str], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> Generation:
    """Greedy: prefill the prompt, then ``n_new`` tokens one at a time, each the likeliest next token; it
    stops early after the model's end-of-text token, as Hugging Face's ``generate`` does."""
    config = layout.config
    prompt_ids = [int(i) for i in prompt_ids]
    cache = KVCache(config.layers)
    gen = Generation(prompt_ids=prompt_ids)
    logits, _ = _step(layout, cache, prompt_ids, 0)
    gen.cache_tokens = len(prompt_ids)
    for k in range(int(n_new)):
        if cancelled is not None and cancelled():
            raise RunCancelled(f"stopped after {k} of {n_new} new tokens")
        if progress is not None:
            progress(f"token {k + 1} of {n_new}")
        token = int(np.argmax(logits))
        logits, rows = _step(layout, cache, [token], gen.cache_tokens)
        gen.new_ids.append(token)
        gen.rows.append(rows[:, :, 0])
        gen.cache_tokens += 1
        if token in config.end_ids:
            gen.ended = True
            break
    return gen
