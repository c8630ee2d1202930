"""RoPE: rotate each 2-D pair of q and k by an angle proportional to the position,
so q_m·k_n depends only on the distance m − n."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ShapeError

STYLES = ("half", "interleaved")


@dataclass(frozen=True)
class Llama3Scaling:
    """Hugging Face's RoPE scaling "llama3" (Llama 3.1/3.2), named as its config.json names it: pairs too slow
    to turn within the original context turn ``factor`` times slower, fast pairs keep their speed."""

    factor: float = 8.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    original_max_position_embeddings: int = 8192


def scaling_of(settings) -> Llama3Scaling | None:
    """The RoPE scaling a session's settings turn on, or None (``rope_scaling`` "none")."""
    if settings.rope_scaling == "none":
        return None
    return Llama3Scaling(settings.rope_factor, settings.rope_low_freq_factor, settings.rope_high_freq_factor,
                         settings.rope_original_max_position_embeddings)


def llama3_frequencies(theta, scaling: Llama3Scaling):
    """θ_i rescaled by "llama3". With the wavelength λ_i = 2π/θ_i and the original context C: λ_i < C/high_freq_factor
    keeps θ_i; λ_i > C/low_freq_factor gives θ_i/factor; between, s = (C/λ_i − low)/(high − low) blends the two:
    (1 − s)·θ_i/factor + s·θ_i."""
    s = scaling
    if not (s.factor > 0 and 0 < s.low_freq_factor < s.high_freq_factor and s.original_max_position_embeddings > 0):
        raise ShapeError(f"llama3 RoPE scaling needs factor > 0 and 0 < low_freq_factor < high_freq_factor and an "
                         f"original context > 0, got {s}")
    theta = np.asarray(theta, dtype=np.float64)
    context = float(s.original_max_position_embeddings)
    wavelength = 2 * np.pi / theta
    smooth = (context / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
    blended = (1 - smooth) * theta / s.factor + smooth * theta
    slow = np.where(wavelength > context / s.low_freq_factor, theta / s.factor, blended)
    return np.where(wavelength < context / s.high_freq_factor, theta, slow)


def llama3_limits(scaling: Llama3Scaling) -> tuple[float, float]:
    """(θ_keep, θ_slow) of "llama3": pairs turning faster than θ_keep = 2π·high_freq_factor/C keep their speed,
    pairs slower than θ_slow = 2π·low_freq_factor/C turn ``factor`` times slower, the pairs between are blended."""
    context = float(scaling.original_max_position_embeddings)
    return 2 * np.pi * scaling.high_freq_factor / context, 2 * np.pi * scaling.low_freq_factor / context


def llama3_band(theta: float, scaling: Llama3Scaling) -> str:
    """Which of the three bands of "llama3" a pair of (unscaled) speed θ falls in: "kept", "blended", "slowed"."""
    keep, slow = llama3_limits(scaling)
    return "kept" if theta > keep else "slowed" if theta < slow else "blended"


def rope_frequencies(dim, base=10000.0, scaling: Llama3Scaling | None = None):
    """θ_i = base^(−2i/d) for i = 0 … d/2−1: fast-turning pairs first, slow ones last; rescaled by ``scaling``."""
    dim = int(dim)
    if dim < 2 or dim % 2:
        raise ShapeError(f"RoPE needs an even dimension d >= 2, got d = {dim}")
    if not base > 0:
        raise ShapeError(f"RoPE base must be positive, got {base}")
    theta = np.power(float(base), -np.arange(0, dim, 2, dtype=np.float64) / dim)
    return theta if scaling is None else llama3_frequencies(theta, scaling)


def rope(x, positions, *, base=10000.0, style="half", scaling: Llama3Scaling | None = None):
    """Rotate the last axis of ``x`` (…, L, d) by ``positions`` (L,).

    ``style="half"`` pairs dimension i with i + d/2 (GPT-NeoX/Llama ``rotate_half``);
    ``style="interleaved"`` pairs 2i with 2i+1 (GPT-J/RoFormer). Both rotate pair i by p·θ_i.
    """
    if style not in STYLES:
        raise ShapeError(f"unknown RoPE style {style!r}; use one of {STYLES}")
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ShapeError(f"rope expects (…, L, d), got shape {x.shape}")
    theta = rope_frequencies(x.shape[-1], base, scaling)
    positions = np.asarray(positions, dtype=np.float64).reshape(-1)
    if positions.shape[0] != x.shape[-2]:
        raise ShapeError(f"rope got {positions.shape[0]} positions for {x.shape[-2]} rows of x {x.shape}")
    angles = positions[:, None] * theta[None, :]  # (L, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty_like(x)
    if style == "half":
        h = x.shape[-1] // 2
        a, b = x[..., :h], x[..., h:]
        out[..., :h] = a * cos - b * sin
        out[..., h:] = b * cos + a * sin
    else:
        a, b = x[..., 0::2], x[..., 1::2]
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = b * cos + a * sin
    return out


def half_to_interleaved(d):
    """The permutation p with ``x_interleaved = x_half[..., p]`` that maps one convention onto the other."""
    h = int(d) // 2
    p = np.empty(2 * h, dtype=int)
    p[0::2] = np.arange(h)
    p[1::2] = np.arange(h) + h
    return p
