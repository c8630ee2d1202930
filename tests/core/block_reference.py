"""Independent references for the Transformer block, written from the definitions — not from explorer.core.

- ``torch_encoder_layer``: PyTorch's ``nn.TransformerEncoderLayer.forward`` (batch_first, dropout 0) as its
  documentation and source define it:
      norm_first:  x = x + _sa_block(norm1(x));  x = x + _ff_block(norm2(x))
      otherwise:   x = norm1(x + _sa_block(x));  x = norm2(x + _ff_block(x))
  _ff_block(x) = linear2(activation(linear1(x))); _sa_block is ``nn.MultiheadAttention`` (in_proj, per head
  softmax(q·kᵀ/√d_h + mask)·v, heads side by side, out_proj); LayerNorm(x) = (x − E[x]) / √(Var[x] + eps)·γ + β
  with the biased variance; GELU(x) = x·Φ(x) (approximate='none') or its tanh form (approximate='tanh').
- ``rms_norm``: Zhang & Sennrich 2019, ā_i = a_i / RMS(a)·g_i, RMS(a) = √(1/n Σ a_i²) (eps inside the root,
  as Llama's LlamaRMSNorm).
- ``swiglu_ffn``: Shazeer 2020, FFN_SwiGLU(x, W, V, W2) = (Swish₁(xW) ⊗ xV)·W2 — Llama's MLP
  down_proj(silu(gate_proj(x)) * up_proj(x)).
Every loop runs over single numbers or rows where it keeps the formula plain.
"""
import math

import numpy as np


def linear(x, weight, bias=None):
    """nn.Linear: y = x·Wᵀ + b."""
    y = np.array([[sum(row[k] * w[k] for k in range(len(row))) for w in weight] for row in x])
    return y if bias is None else y + bias


def layer_norm(x, weight, bias, eps):
    out = np.empty_like(x)
    for i, row in enumerate(x):
        mean = sum(row) / len(row)
        var = sum((a - mean) ** 2 for a in row) / len(row)
        out[i] = [(a - mean) / math.sqrt(var + eps) * g + b for a, g, b in zip(row, weight, bias)]
    return out


def rms_norm(x, weight, eps):
    out = np.empty_like(x)
    for i, row in enumerate(x):
        rms = math.sqrt(sum(a * a for a in row) / len(row) + eps)
        out[i] = [a / rms * g for a, g in zip(row, weight)]
    return out


def gelu(x):
    return np.vectorize(lambda a: a * 0.5 * (1.0 + math.erf(a / math.sqrt(2.0))))(x)


def gelu_tanh(x):
    return np.vectorize(lambda a: 0.5 * a * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a ** 3))))(x)


def relu(x):
    return np.vectorize(lambda a: a if a > 0 else 0.0)(x)


def swish(x):
    return np.vectorize(lambda a: a / (1.0 + math.exp(-a)))(x)


def softmax_row(row):
    top = max(row)
    e = [math.exp(s - top) if s != -math.inf else 0.0 for s in row]
    total = sum(e)
    return [v / total for v in e]


def multihead_attention(x, in_proj_weight, in_proj_bias, out_weight, out_bias, n_heads, causal):
    """nn.MultiheadAttention(x, x, x) with attn_mask the causal −inf triangle when ``causal``."""
    d = x.shape[1]
    q = linear(x, in_proj_weight[:d], in_proj_bias[:d])
    k = linear(x, in_proj_weight[d:2 * d], in_proj_bias[d:2 * d])
    v = linear(x, in_proj_weight[2 * d:], in_proj_bias[2 * d:])
    d_h = d // n_heads
    length = len(x)
    heads = np.zeros((length, d))
    for h in range(n_heads):
        cols = slice(h * d_h, (h + 1) * d_h)
        for i in range(length):
            scores = [(-math.inf if causal and j > i else
                       float(np.dot(q[i, cols], k[j, cols])) / math.sqrt(d_h)) for j in range(length)]
            weights = softmax_row(scores)
            heads[i, cols] = sum(w * v[j, cols] for j, w in enumerate(weights))
    return linear(heads, out_weight, out_bias)


def torch_encoder_layer(x, p, *, norm_first, activation, n_heads, causal, eps):
    """nn.TransformerEncoderLayer(d_model=D, nhead=H, dim_feedforward=F, dropout=0, activation, eps,
    batch_first=True, norm_first) on one sequence x (L, D). ``p`` holds its parameters under PyTorch's names."""
    act = {"relu": relu, "gelu": gelu, "gelu_tanh": gelu_tanh}[activation]

    def sa_block(y):
        return multihead_attention(y, p["self_attn.in_proj_weight"], p["self_attn.in_proj_bias"],
                                   p["self_attn.out_proj.weight"], p["self_attn.out_proj.bias"], n_heads, causal)

    def ff_block(y):
        return linear(act(linear(y, p["linear1.weight"], p["linear1.bias"])), p["linear2.weight"], p["linear2.bias"])

    def norm1(y):
        return layer_norm(y, p["norm1.weight"], p["norm1.bias"], eps)

    def norm2(y):
        return layer_norm(y, p["norm2.weight"], p["norm2.bias"], eps)

    if norm_first:
        x = x + sa_block(norm1(x))
        return x + ff_block(norm2(x))
    x = norm1(x + sa_block(x))
    return norm2(x + ff_block(x))


def swiglu_ffn(x, w_gate, w_up, w_down):
    """Shazeer's FFN_SwiGLU with Llama's names: down(swish(gate(x)) ⊙ up(x)), no biases."""
    return linear(swish(linear(x, w_gate)) * linear(x, w_up), w_down)


def llama_block(x, attend, gain1, gain2, w_gate, w_up, w_down, eps):
    """Llama's decoder layer: h = x + attn(RMSNorm₁(x)); out = h + MLP(RMSNorm₂(h))."""
    h = x + attend(rms_norm(x, gain1, eps))
    return h + swiglu_ffn(rms_norm(h, gain2, eps), w_gate, w_up, w_down)


def torch_parameters(m, w):
    """The session's W and the block's weights under nn.TransformerEncoderLayer's names (no attention biases:
    the session's projections have none, so they are zero)."""
    d = m["X"].shape[1]
    return {"self_attn.in_proj_weight": np.concatenate([m["Wq"], m["Wk"], m["Wv"]]),
            "self_attn.in_proj_bias": np.zeros(3 * d), "self_attn.out_proj.weight": m["Wo"],
            "self_attn.out_proj.bias": np.zeros(d), "linear1.weight": w.w1, "linear1.bias": w.b1,
            "linear2.weight": w.w2, "linear2.bias": w.b2, "norm1.weight": w.gain1, "norm1.bias": w.bias1,
            "norm2.weight": w.gain2, "norm2.bias": w.bias2}
