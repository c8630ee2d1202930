"""RoPE: rotate each 2-D pair of q and k by an angle proportional to the position,
so q_m·k_n depends only on the distance m − n."""
import numpy as np

from .errors import ShapeError

STYLES = ("half", "interleaved")


def rope_frequencies(dim, base=10000.0):
    """θ_i = base^(−2i/d) for i = 0 … d/2−1: fast-turning pairs first, slow ones last."""
    dim = int(dim)
    if dim < 2 or dim % 2:
        raise ShapeError(f"RoPE needs an even dimension d >= 2, got d = {dim}")
    if not base > 0:
        raise ShapeError(f"RoPE base must be positive, got {base}")
    return np.power(float(base), -np.arange(0, dim, 2, dtype=np.float64) / dim)


def rope(x, positions, *, base=10000.0, style="half"):
    """Rotate the last axis of ``x`` (…, L, d) by ``positions`` (L,).

    ``style="half"`` pairs dimension i with i + d/2 (GPT-NeoX/Llama ``rotate_half``);
    ``style="interleaved"`` pairs 2i with 2i+1 (GPT-J/RoFormer). Both rotate pair i by p·θ_i.
    """
    if style not in STYLES:
        raise ShapeError(f"unknown RoPE style {style!r}; use one of {STYLES}")
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ShapeError(f"rope expects (…, L, d), got shape {x.shape}")
    theta = rope_frequencies(x.shape[-1], base)
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
