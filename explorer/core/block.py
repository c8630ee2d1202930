"""One Transformer block (the chapter's 全家福): norm → attention → + residual → norm → FFN → + residual.

Pre-LN (GPT-2, Llama): x + attn(norm1(x)), then h + ffn(norm2(h)). Post-LN (the original Transformer,
BERT; PyTorch's ``TransformerEncoderLayer`` with ``norm_first=False``): norm1(x + attn(x)), then
norm2(h + ffn(h)). The attention sublayer is given as a function (the session's own pipeline, see
``block_stack``); everything else — the norms and the FFN — is here, with its weights made from a seed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .erf import erf
from .errors import ShapeError
from .translatable import QT_TRANSLATE_NOOP

# (value, label): pre-LN as GPT-2 and Llama, post-LN as the original Transformer and BERT
PLACEMENTS = (("pre", "pre-LN"), ("post", "post-LN"))
NORMS = (("layernorm", "LayerNorm"), ("rmsnorm", "RMSNorm"))
ACTIVATIONS = (("gelu", "GELU"), ("gelu_tanh", "GELU-tanh"), ("relu", "ReLU"), ("swiglu", "SwiGLU"))
FFN_MULTS = (1, 2, 4, 8)  # F = mult · D (4 in the original Transformer and GPT-2)
EPS = 1e-5  # PyTorch's layer_norm_eps default


@dataclass(frozen=True)
class BlockSettings:
    """How the block is built: where the norms sit, which norm, which activation, the FFN's width F = mult·D,
    the seed of the FFN weights and norm gains, and how many copies of the block are stacked."""

    placement: str = "pre"
    norm: str = "layernorm"
    activation: str = "gelu"
    ffn_mult: int = 4
    seed: int = 0
    blocks: int = 6
    eps: float = EPS

    def __post_init__(self):
        for name, choices in (("placement", PLACEMENTS), ("norm", NORMS), ("activation", ACTIVATIONS)):
            allowed = [value for value, _ in choices]
            if getattr(self, name) not in allowed:
                raise ValueError(f"the block's {name} must be one of {', '.join(map(repr, allowed))}, "
                                 f"not {getattr(self, name)!r}")
        if not 1 <= int(self.blocks) <= 64:
            raise ValueError(f"the number of stacked blocks must lie in 1..64, not {self.blocks}")
        if int(self.ffn_mult) < 1:
            raise ValueError(f"the FFN width multiple must be at least 1, not {self.ffn_mult}")


@dataclass(frozen=True)
class BlockWeights:
    """The block's own weights (the attention's are the session's): norm gains γ and biases β (RMSNorm: no β),
    W1 (F, D) and b1, W2 (D, F) and b2 (SwiGLU: W1 the gate, W3 (F, D) the up projection, no biases)."""

    gain1: np.ndarray
    bias1: np.ndarray | None
    gain2: np.ndarray
    bias2: np.ndarray | None
    w1: np.ndarray
    b1: np.ndarray | None
    w2: np.ndarray
    b2: np.ndarray | None
    w3: np.ndarray | None = None

    @property
    def width(self):
        return self.w1.shape[1]

    @property
    def hidden(self):
        return self.w1.shape[0]


def block_weights(width, settings):
    """Deterministic weights for a block of width D from ``settings.seed``: W ~ N(0, 1/fan_in), biases and
    gain offsets ~ N(0, 0.1²) — the same seed always gives the same block, nothing needs saving."""
    d = int(width)
    f = int(settings.ffn_mult) * d
    rng = np.random.default_rng(int(settings.seed))
    gain = lambda: 1.0 + 0.1 * rng.standard_normal(d)  # noqa: E731
    small = lambda n: 0.1 * rng.standard_normal(n)  # noqa: E731
    rms = settings.norm == "rmsnorm"
    gain1, bias1 = gain(), None if rms else small(d)
    gain2, bias2 = gain(), None if rms else small(d)
    w1 = rng.standard_normal((f, d)) / math.sqrt(d)
    w2 = rng.standard_normal((d, f)) / math.sqrt(f)
    if settings.activation == "swiglu":
        w3 = rng.standard_normal((f, d)) / math.sqrt(d)
        return BlockWeights(gain1, bias1, gain2, bias2, w1, None, w2, None, w3)
    return BlockWeights(gain1, bias1, gain2, bias2, w1, small(f), w2, small(d))


def layer_norm(x, gain, bias, eps=EPS):
    """LayerNorm (Ba et al. 2016): each row centred and divided by its standard deviation, then γ, β."""
    centred = x - x.mean(axis=-1, keepdims=True)
    y = centred / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps) * gain
    return y if bias is None else y + bias


def rms_norm(x, gain, eps=EPS):
    """RMSNorm (Zhang & Sennrich 2019): each row divided by its root mean square, then γ; no centring."""
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * gain


def gelu(x):
    """GELU(x) = x·Φ(x) = x·(1 + erf(x/√2))/2 (Hendrycks & Gimpel), PyTorch's default ``approximate='none'``."""
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    """GELU's tanh approximation, GPT-2's: x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def relu(x):
    return np.maximum(x, 0.0)


def silu(x):
    """SiLU / Swish-1: x·σ(x)."""
    with np.errstate(over="ignore"):
        return x / (1.0 + np.exp(-x))


ACTIVATION_FUNCTIONS = {"gelu": gelu, "gelu_tanh": gelu_tanh, "relu": relu}


def norm(x, gain, bias, settings):
    """The block's norm: LayerNorm with γ, β, or RMSNorm with γ."""
    if settings.norm == "rmsnorm":
        return rms_norm(x, gain, settings.eps)
    return layer_norm(x, gain, bias, settings.eps)


def ffn(x, weights, activation):
    """The position-wise FFN (each token on its own, along D): (hidden (L, F), out (L, D)).

    act(x·W1ᵀ + b1)·W2ᵀ + b2; SwiGLU (Shazeer 2020, Llama's MLP): (silu(x·W1ᵀ) ⊙ x·W3ᵀ)·W2ᵀ."""
    if activation == "swiglu":
        hidden = silu(x @ weights.w1.T) * (x @ weights.w3.T)
    else:
        hidden = ACTIVATION_FUNCTIONS[activation](x @ weights.w1.T + weights.b1)
    out = hidden @ weights.w2.T
    return hidden, (out if weights.b2 is None else out + weights.b2)


@dataclass(frozen=True)
class Node:
    """One step of the block: a key, its caption in the chapter's words, and its live matrix."""

    key: str
    caption: str
    matrix: np.ndarray


@dataclass(frozen=True)
class BlockResult:
    """Every node of one block, in order, from the input x to the output."""

    nodes: tuple[Node, ...]

    def __getitem__(self, key):
        for node in self.nodes:
            if node.key == key:
                return node.matrix
        raise KeyError(key)

    @property
    def output(self):
        return self.nodes[-1].matrix


def transformer_block(x, attend, weights, settings):
    """One block on the residual stream x (L, D); ``attend(y)`` is the attention sublayer, (L, D) → (L, D)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != weights.width:
        raise ShapeError(f"the block's input must be (L, D) with D = {weights.width}, got shape {x.shape}")
    n1 = lambda y: norm(y, weights.gain1, weights.bias1, settings)  # noqa: E731
    n2 = lambda y: norm(y, weights.gain2, weights.bias2, settings)  # noqa: E731
    name = dict(NORMS)[settings.norm]
    nodes = [Node("x", QT_TRANSLATE_NOOP("Block", "x — the residual stream in"), x)]

    def attention_of(y):
        out = np.asarray(attend(y), dtype=np.float64)
        if out.shape != x.shape:
            raise ShapeError(f"the attention sublayer must give back (L, D) = {x.shape} to add to the residual "
                             f"stream, it gave {out.shape}")
        return out

    if settings.placement == "pre":
        a_in = n1(x)
        a = attention_of(a_in)
        h = x + a
        f_in = n2(h)
        hidden, f = ffn(f_in, weights, settings.activation)
        out = h + f
        nodes += [Node("norm1", QT_TRANSLATE_NOOP("Block", "{norm}₁(x) — 归一化, 摁住范数").format(norm=name), a_in),
                  Node("attn", QT_TRANSLATE_NOOP("Block", "Attn — tokens talk along L (交流)"), a),
                  Node("h", QT_TRANSLATE_NOOP("Block", "h = x + Attn — 存款 into the residual stream"), h),
                  Node("norm2", f"{name}₂(h)", f_in)]
    else:
        a = attention_of(x)
        s = x + a
        h = n1(s)
        hidden, f = ffn(h, weights, settings.activation)
        t = h + f
        out = n2(t)
        nodes += [Node("attn", QT_TRANSLATE_NOOP("Block", "Attn(x) — tokens talk along L (交流)"), a),
                  Node("sum1", QT_TRANSLATE_NOOP("Block", "x + Attn — 存款 into the residual stream"), s),
                  Node("h", QT_TRANSLATE_NOOP("Block", "h = {norm}₁(x + Attn) — 摁住范数").format(norm=name), h)]
    act = dict(ACTIVATIONS)[settings.activation]
    nodes += [Node("hidden", QT_TRANSLATE_NOOP("Block", "FFN hidden {act}(·W₁ᵀ) — F wide, each token alone (加工)")
                   .format(act=act), hidden),
              Node("ffn", QT_TRANSLATE_NOOP("Block", "FFN out ·W₂ᵀ — back to D"), f)]
    if settings.placement == "pre":
        nodes.append(Node("out", QT_TRANSLATE_NOOP("Block", "out = h + FFN — 再存款"), out))
    else:
        nodes += [Node("sum2", QT_TRANSLATE_NOOP("Block", "h + FFN — 再存款"), t),
                  Node("out", f"out = {name}₂(h + FFN)", out)]  # (a formula: the same in every language)
    return BlockResult(tuple(nodes))
