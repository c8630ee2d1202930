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
from .pipeline import run_pipeline
from .positions import sinusoidal_positions
from .translatable import QT_TRANSLATE_NOOP

# Work the window does for the block on its own thread: L² per head per block, and L·D·F per block.
MAX_WORK = 150_000_000


class BlockUnavailable(ExplorerError):
    """The session cannot be shown as a block (direct mode, cross-attention, W_o's width, its size)."""


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


def attention_sublayer(matrices, settings):
    """y ↦ the session's multi-head attention output for token vectors y, through the pipeline itself.

    The PE is part of the block's input already (``block_input``), so it is not added to y a second time;
    RoPE and ALiBi belong to the attention and stay."""
    inner = replace(settings, positions="none") if settings.positions == "sinusoidal" else settings
    weights = {name: matrices[name] for name in ("Wq", "Wk", "Wv", "Wo")}

    def attend(y):
        return run_pipeline({**weights, "X": y}, inner).heads.output

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


def session_block(matrices, settings, block_settings, cross=False, first_attention=None, weights=None):
    """The session's block and its stack (``block_settings.blocks`` copies of the same block).

    ``first_attention``: the session's own attention output for X (its pipeline result), reused where the
    first block's attention reads x itself (post-LN) instead of running the pipeline again. ``weights``: the
    block's own weights (BlockWeights), else made from ``block_settings.seed``.
    Raises BlockUnavailable (with the reason) or the pipeline's ShapeError/NonFiniteError."""
    x = block_input(matrices, settings) if "X" in matrices else None
    widths = {"D": 0 if x is None else x.shape[1], "D_o": np.shape(matrices.get("Wo", np.empty((0, 0))))[0],
              "L": 0 if x is None else x.shape[0]}
    reason = why_unavailable(settings, cross, widths)
    if reason:
        raise BlockUnavailable(reason)
    length, width = x.shape
    work = block_work(length, width, matrices, settings.heads, block_settings)
    if work > MAX_WORK:
        raise BlockUnavailable(QT_TRANSLATE_NOOP(
            "Block", "The block of {length} tokens of width {width}, {blocks} deep, would take ~{work} M multiply-adds "
                     "on every edit; it is drawn for smaller sessions (up to ~{most} M) — fewer blocks or tokens.").format(
            length=length, width=width, blocks=block_settings.blocks, work=f"{work / 1e6:.0f}", most=f"{MAX_WORK / 1e6:.0f}"))
    weights = block_weights(width, block_settings) if weights is None else weights
    attend = attention_sublayer(matrices, settings)
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
        stream = transformer_block(stream, attend, weights, block_settings).output
        norms.append(np.linalg.norm(stream, axis=1))
    return BlockStack(first=first, norms=np.array(norms))
