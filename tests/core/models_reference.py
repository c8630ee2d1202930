"""An independent forward pass for the tests, written plainly from the papers' equations in float64,
one head at a time, sharing no code with explorer.models.

GPT-2 (Radford et al., 2019): h⁰ = W_e[t] + W_p[pos]; a = LN(h)·γ + β; S_h = q_h k_hᵀ/√d_h with q, k, v
from a·W_attn + b (Conv1D: [in, out]); causal softmax; h += concat_h(A_h v_h)·W_proj + b;
h += gelu_tanh(LN(h)·W_fc + b)·W_proj2 + b. Logits = LN_f(h)·W_eᵀ.
Llama (Touvron et al., 2023): RMSNorm x/√(mean x² + ε)·g; RoPE (Su et al., 2021) written with complex
numbers: the pair (x_i, x_{i+d/2}) is z = x_i + i·x_{i+d/2}, turned by e^{i·p·θ_j}; key/value head
⌊h / (H/KV)⌋ serves query head h; SwiGLU (Shazeer, 2020): (silu(x W_g) ⊙ x W_u) W_d.
"""
from __future__ import annotations

import math

import numpy as np


def _ln(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def _rms(x, g, eps):
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * g


def _softmax_causal(s):
    n = s.shape[0]
    s = s.copy()
    s[np.triu_indices(n, 1)] = -np.inf
    e = np.exp(s - s.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _one_head(q, k, v):
    """Scores q·kᵀ/√d_h (−∞ above the diagonal), causal softmax weights, and weights·v."""
    s = q @ k.T / math.sqrt(q.shape[1])
    w = _softmax_causal(s)
    return np.where(np.tril(np.ones(s.shape)) > 0, s, -np.inf), w, w @ v


def _f64(t):
    return {k: np.asarray(v, np.float64) for k, v in t.items()}


def reference_gpt2(tensors, cfg, ids, prefix=""):
    """(scores, weights, layer inputs, last logits): scores/weights (layers, H, L, L) in float64."""
    t = _f64(tensors)
    d, n_heads, eps = cfg["n_embd"], cfg["n_head"], cfg.get("layer_norm_epsilon", 1e-5)
    dh, L = d // n_heads, len(ids)
    h = t[prefix + "wte.weight"][ids] + t[prefix + "wpe.weight"][:L]
    all_s, all_a, inputs = [], [], []
    for i in range(cfg["n_layer"]):
        p = f"{prefix}h.{i}."
        a = _ln(h, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        inputs.append(a)
        qkv = a @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        outs, ss, ws = [], [], []
        for head in range(n_heads):
            q = qkv[:, head * dh:(head + 1) * dh]
            k = qkv[:, d + head * dh:d + (head + 1) * dh]
            v = qkv[:, 2 * d + head * dh:2 * d + (head + 1) * dh]
            for got, kept in zip(_one_head(q, k, v), (ss, ws, outs)):
                kept.append(got)
        all_s.append(ss)
        all_a.append(ws)
        h = h + np.concatenate(outs, 1) @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        m = _ln(h, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps) @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"]
        gelu = 0.5 * m * (1 + np.tanh(math.sqrt(2 / math.pi) * (m + 0.044715 * m ** 3)))
        h = h + gelu @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
    final = _ln(h, t[prefix + "ln_f.weight"], t[prefix + "ln_f.bias"], eps)
    head = t.get("lm_head.weight", t[prefix + "wte.weight"])
    return np.array(all_s), np.array(all_a), np.array(inputs), (final @ head.T)[-1]


def _rope_complex(x, freqs):
    """Turn each pair (x_j, x_{j+d/2}) of row p by the angle p·freqs[j], as a complex product."""
    half = x.shape[1] // 2
    z = x[:, :half] + 1j * x[:, half:]
    z = z * np.exp(1j * np.arange(x.shape[0])[:, None] * freqs[None, :])
    return np.concatenate([z.real, z.imag], axis=1)


def llama3_frequencies(base, d, factor, low, high, old):
    """Llama 3.1's rescaled RoPE frequencies, term by term from Meta's reference code."""
    out = []
    for j in range(d // 2):
        f = base ** (-2 * j / d)
        wavelen = 2 * math.pi / f
        if wavelen < old / high:
            out.append(f)
        elif wavelen > old / low:
            out.append(f / factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append((1 - smooth) * f / factor + smooth * f)
    return np.array(out)


def reference_llama(tensors, cfg, ids, freqs=None):
    """(scores, weights, layer inputs, last logits) of a Llama-family model, float64."""
    t = _f64(tensors)
    n, kv, dh, eps = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"], cfg["rms_norm_eps"]
    if freqs is None:
        freqs = cfg.get("rope_theta", 10000.0) ** (-np.arange(0, dh, 2) / dh)
    h = t["model.embed_tokens.weight"][ids]
    all_s, all_a, inputs = [], [], []
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        a = _rms(h, t[p + "input_layernorm.weight"], eps)
        inputs.append(a)
        proj = {}
        for name in "qkv":
            proj[name] = a @ t[p + f"self_attn.{name}_proj.weight"].T + t.get(p + f"self_attn.{name}_proj.bias", 0.0)
        outs, ss, ws = [], [], []
        for head in range(n):
            g = head // (n // kv)
            q = _rope_complex(proj["q"][:, head * dh:(head + 1) * dh], freqs)
            k = _rope_complex(proj["k"][:, g * dh:(g + 1) * dh], freqs)
            v = proj["v"][:, g * dh:(g + 1) * dh]
            for got, kept in zip(_one_head(q, k, v), (ss, ws, outs)):
                kept.append(got)
        all_s.append(ss)
        all_a.append(ws)
        h = h + np.concatenate(outs, 1) @ t[p + "self_attn.o_proj.weight"].T
        m = _rms(h, t[p + "post_attention_layernorm.weight"], eps)
        gate, up = m @ t[p + "mlp.gate_proj.weight"].T, m @ t[p + "mlp.up_proj.weight"].T
        h = h + (gate / (1 + np.exp(-gate)) * up) @ t[p + "mlp.down_proj.weight"].T
    final = _rms(h, t["model.norm.weight"], eps)
    head = t.get("lm_head.weight", t["model.embed_tokens.weight"])
    return np.array(all_s), np.array(all_a), np.array(inputs), (final @ head.T)[-1]
