"""The session's Transformer block: its token vectors X as the residual stream, its own attention (the
pipeline, with its W_q, W_k, W_v, W_o, heads, mask, scale, RoPE or ALiBi) as the attention sublayer, and
the residual stream's size across N copies of the block stacked (the same weights in every copy).

The block needs X: a session that edits Q, K, V directly has none (and its attention cannot take a
normalised input), so it is refused with a sentence that says so; so is a cross-attention session (the
block is an encoder block: its tokens attend to themselves).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .block import BlockResult, block_weights, transformer_block
from .errors import ExplorerError, ShapeError
from .memory_size import size_text as _size
from .positions import sinusoidal_positions
from .recompute import recompute
from .translatable import QT_TRANSLATE_NOOP


class BlockUnavailable(ExplorerError):
    """The session cannot be shown as a block (direct mode, cross-attention, W_o's width, its size)."""


class _Stopped(Exception):
    """``cancelled()`` said stop (between attention calls, or inside one)."""


@dataclass(frozen=True)
class BlockStack:
    """The first block's nodes and the residual stream's per-token L2 norm after every block, (N + 1, L):
    row 0 is the input x, row n the output of block n."""

    first: BlockResult
    norms: np.ndarray

    @property
    def mean_norms(self):
        """The mean over the tokens of ‖x_n‖ for n = 0 … N."""
        return self.norms.mean(axis=1)


def block_input(matrices, settings):
    """The residual stream that enters the first block: X (plus the sinusoidal PE when it is on)."""
    x = np.asarray(matrices["X"], dtype=np.float64)
    return x + sinusoidal_positions(*x.shape) if settings.positions == "sinusoidal" else x


def attention_sublayer(matrices, settings, cancelled=None):
    """y ↦ the session's multi-head attention output for token vectors y, through the pipeline's stages.

    The PE is part of the block's input already (``block_input``), so it is not added to y a second time;
    RoPE and ALiBi belong to the attention and stay. Head by head (``recompute``, the same numbers as
    ``run_pipeline`` to rounding), each call writing into the last one's (H, L, L) buffers: one set of
    scores and weights in memory however many blocks, and ``cancelled()`` is heard inside a call."""
    inner = replace(settings, positions="none") if settings.positions == "sinusoidal" else settings
    weights = {name: matrices[name] for name in ("Wq", "Wk", "Wv", "Wo")}
    last = [None]

    def attend(y):
        if cancelled is not None and cancelled():
            raise _Stopped
        result = recompute({**weights, "X": y}, inner, previous=last[0], cancelled=cancelled, summarise=())
        if result is None:
            raise _Stopped
        last[0] = result
        return result.heads.output

    return attend


def why_unavailable(settings, cross, widths):
    """Why the session cannot be shown as a block, or None. ``widths``: L, D and W_o's output rows D_o."""
    if settings.source != "projected":
        return QT_TRANSLATE_NOOP("Block", "The block adds attention's output back to the token vectors X and normalises "
                                          "X before attention reads it — this session edits Q, K, V directly, so it has "
                                          "no X. Switch to projected mode (Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ) to see "
                                          "its block.")
    if cross:
        return QT_TRANSLATE_NOOP("Block", "This is a cross-attention session; the block shown here is an encoder block, "
                                          "whose tokens attend to themselves. Make it self-attention to see its block.")
    if widths["D_o"] != widths["D"]:
        return QT_TRANSLATE_NOOP("Block", "W_o gives back {rows} columns, but the residual stream X is D = {D} wide: "
                                          "x + Attn needs W_o to have D = {D} rows (a session switched from direct "
                                          "mode has X = [Q | K | V] and W_o = I of V's width).").format(
            rows=widths['D_o'], D=widths['D'])
    return None


def stream_wo(wo, width):
    """A W_o that writes the heads' output into a residual stream of ``width`` D: the old W_o in the last rows
    (in a session switched from direct mode, X = [Q | K | V]: attention then adds to X's V columns), zeros in
    the others; a W_o with more rows than D keeps its first D."""
    wo = np.asarray(wo, dtype=np.float64)
    if wo.shape[0] >= width:
        return wo[:width].copy()
    out = np.zeros((int(width), wo.shape[1]))
    out[width - wo.shape[0]:] = wo
    return out


def block_work(length, width, matrices, heads, settings):
    """Roughly the multiply-adds of the N stacked blocks: per block the projections L·(|W_q| + |W_k| + |W_v| +
    |W_o|), the scores and the mixing 2·L²·(Q/K width), a softmax of L² per head, and the FFN's up to 3·L·D·F."""
    sizes = sum(np.size(matrices[name]) for name in ("Wq", "Wk", "Wv", "Wo"))
    qk = np.shape(matrices["Wq"])[0]
    f = int(settings.ffn_mult) * width
    per_block = length * sizes + 2 * length ** 2 * qk + heads * length ** 2 + 3 * length * width * f
    return int(settings.blocks) * per_block


def block_bytes(length, heads):
    """The memory the block needs beyond the session's: its attention's (H, L, L) scores and weights in float64."""
    return 2 * int(heads) * int(length) ** 2 * 8


def session_block(matrices, settings, block_settings, cross=False, first_attention=None, weights=None, memory=None,
                  cancelled=None):
    """The session's block and its stack (``block_settings.blocks`` copies of the same block).

    ``first_attention``: the session's own attention output for X (its pipeline result), reused where the
    first block's attention reads x itself (post-LN) instead of running the pipeline again. ``weights``: the
    block's own weights (BlockWeights), else made from ``block_settings.seed``. ``memory``: the bytes that may be
    used (None: unchecked); a block needing more is refused, the size named. ``cancelled()``: asked between
    steps; None is returned once it says stop.
    Raises BlockUnavailable (with the reason) or the pipeline's ShapeError/NonFiniteError."""
    x = block_input(matrices, settings) if "X" in matrices else None
    widths = {"D": 0 if x is None else x.shape[1], "D_o": np.shape(matrices.get("Wo", np.empty((0, 0))))[0],
              "L": 0 if x is None else x.shape[0]}
    reason = why_unavailable(settings, cross, widths)
    if reason:
        raise BlockUnavailable(reason)
    length, width = x.shape
    need = block_bytes(length, settings.heads)
    if memory is not None and need > memory:
        raise BlockUnavailable(QT_TRANSLATE_NOOP(
            "Block", "The block of {length} tokens with {heads} heads needs {need} for its attention's scores and "
                     "weights (2·H·L² float64), and only {free} of memory is free — fewer tokens or heads.").format(
            length=length, heads=settings.heads, need=_size(need), free=_size(memory)))
    weights = block_weights(width, block_settings) if weights is None else weights
    attend = attention_sublayer(matrices, settings, cancelled)
    try:
        return _stack(x, attend, weights, block_settings, first_attention, cancelled)
    except _Stopped:
        return None


def _stack(x, attend, weights, block_settings, first_attention, cancelled):
    """The first block from x, then N − 1 more from its output; raises _Stopped when ``cancelled()``."""
    if first_attention is not None and block_settings.placement == "post":
        if np.shape(first_attention) != x.shape:
            raise ShapeError(f"the session's attention output is {np.shape(first_attention)}, not (L, D) = {x.shape}")
        given = first_attention
        first = transformer_block(x, lambda y: given if y is x else attend(y), weights, block_settings)
    else:
        first = transformer_block(x, attend, weights, block_settings)
    norms = [np.linalg.norm(x, axis=1), np.linalg.norm(first.output, axis=1)]
    stream = first.output
    for _ in range(int(block_settings.blocks) - 1):
        if cancelled is not None and cancelled():
            raise _Stopped
        stream = transformer_block(stream, attend, weights, block_settings).output
        norms.append(np.linalg.norm(stream, axis=1))
    return BlockStack(first=first, norms=np.array(norms))
