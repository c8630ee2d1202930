"""The explorer's whole computation from a session's inputs and settings, as one pure function.

The Qt model calls this once per event-loop turn; notebooks and tests can call it directly.
"""
from dataclasses import dataclass

import numpy as np

from .heads import MultiHeadResult, multi_head_attention


def scale_for(settings, d_head):
    """The scale that multiplies q·kᵀ in every head: 1/√d_h, 1, or the custom value."""
    if settings.scale_mode == "inv_sqrt_d":
        return 1.0 / np.sqrt(d_head)
    if settings.scale_mode == "none":
        return 1.0
    return float(settings.scale)


@dataclass(frozen=True)
class PipelineResult:
    """Inputs as used and every stage of multi-head attention (H may be 1)."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    heads: MultiHeadResult
    scale: float
    temperature: float

    @property
    def n_heads(self):
        return self.heads.scores.shape[0]

    @property
    def d_head(self):
        return self.q.shape[1] // self.n_heads

    def score_parts(self, head, i, j):
        """How score (i, j) of a head was made: (q_i·k_j, scale, temperature, masked, score)."""
        lo = head * self.d_head
        dot = float(self.q[i, lo:lo + self.d_head] @ self.k[j, lo:lo + self.d_head])
        mask = self.heads.mask
        masked = bool(mask is not None and not np.broadcast_to(mask, self.heads.scores.shape)[head, i, j])
        return dot, self.scale, self.temperature, masked, float(self.heads.scores[head, i, j])


def run_pipeline(matrices, settings):
    """Q, K, V (and the settings) → every stage; raises ShapeError/NonFiniteError on bad input."""
    q, k, v = matrices["Q"], matrices["K"], matrices["V"]
    d_head = q.shape[1] // settings.heads
    scale = scale_for(settings, d_head)
    result = multi_head_attention(q, k, v, settings.heads, scale=scale, causal=settings.causal,
                                  temperature=settings.temperature)
    return PipelineResult(q=q, k=k, v=v, heads=result, scale=scale, temperature=settings.temperature)
