"""The numbers behind the RoPE visualizer (F9), in pure NumPy.

The chapter: "旋转派(RoPE)——把 Q、K 向量按位置旋转不同角度 … 两个被旋转过的向量做点积,结果只依赖角度差,
即相对距离". RoPE cuts a head's q and k into d_h/2 two-dimensional pairs and turns pair i of the vector
at position p by the angle p·θ_i, θ_i = base^(−2i/d_h) (or its llama3 rescaling). A dot product of two vectors
turned by mθ and nθ only sees the difference (m − n)θ, so q_m·k_n depends on m − n alone.

Everything here agrees with ``explorer.core.rope.rope`` (the pipeline's rotation) in both conventions:
``"half"`` (GPT-NeoX / Llama) pairs dimension i with i + d/2, ``"interleaved"`` (GPT-J / RoFormer)
pairs 2i with 2i + 1.
"""
import math
from dataclasses import dataclass

import numpy as np

from .errors import ShapeError
from .plural import count
from .rope import STYLES, rope, rope_frequencies

DEFAULT_STARTS = (0, 10, 100, 1000)  # the absolute positions the score-vs-offset curves start from


def _check_style(style):
    if style not in STYLES:
        raise ShapeError(f"unknown RoPE style {style!r}; use one of {STYLES}")


def pair_dims(d, pair, style):
    """The two dimensions (first, second) of a d-dimensional vector that RoPE turns together as pair ``pair``."""
    d, pair = int(d), int(pair)
    _check_style(style)
    if d < 2 or d % 2:
        raise ShapeError(f"RoPE needs an even dimension d >= 2, got d = {d}")
    if not 0 <= pair < d // 2:
        raise ShapeError(f"pair {pair} does not exist: d = {d} has pairs 0..{d // 2 - 1}")
    if style == "half":
        return pair, pair + d // 2
    return 2 * pair, 2 * pair + 1


def pair_vectors(x, pair, style):
    """The 2-D vector of dimension pair ``pair`` of ``x`` (…, d) in either convention → (…, 2)."""
    x = np.asarray(x, dtype=np.float64)
    a, b = pair_dims(x.shape[-1], pair, style)
    return np.stack([x[..., a], x[..., b]], axis=-1)


def rotate2(vec2, angle):
    """Turn 2-D vectors (…, 2) counter-clockwise by ``angle`` radians (the rotation RoPE uses)."""
    v = np.asarray(vec2, dtype=np.float64)
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([v[..., 0] * c - v[..., 1] * s, v[..., 1] * c + v[..., 0] * s], axis=-1)


def rotated_pair(vec2, position, theta):
    """A pair as RoPE turns it at ``position``: by the angle position·θ."""
    return rotate2(vec2, float(position) * float(theta))


def wrap_angle(angle):
    """An angle brought into (−π, π]."""
    a = np.mod(np.asarray(angle, dtype=np.float64) + np.pi, 2 * np.pi) - np.pi
    a = np.where(a == -np.pi, np.pi, a)
    return float(a) if a.ndim == 0 else a


def direction(vec2):
    """The direction angle of a 2-D vector, atan2(y, x), in (−π, π]."""
    v = np.asarray(vec2, dtype=np.float64)
    return wrap_angle(np.arctan2(v[..., 1], v[..., 0]))


def angle_between(a, b):
    """The signed angle that turns 2-D vector ``b`` onto the direction of ``a``, in (−π, π]."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    cross = b[..., 0] * a[..., 1] - b[..., 1] * a[..., 0]
    dot = a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]
    return wrap_angle(np.arctan2(cross, dot))


def arc_points(start, sweep, radius, n=48):
    """Points (n, 2) of a circular arc around the origin from angle ``start`` through ``sweep`` radians."""
    t = float(start) + np.linspace(0.0, float(sweep), int(n))
    return np.stack([radius * np.cos(t), radius * np.sin(t)], axis=-1)


def head_slice(x, head, n_heads):
    """Columns of head ``head`` of a row (…, D) cut into ``n_heads`` equal heads."""
    x = np.asarray(x, dtype=np.float64)
    width = x.shape[-1]
    if n_heads < 1 or width % n_heads:
        raise ShapeError(f"cannot cut width {width} into {n_heads} heads")
    if not 0 <= head < n_heads:
        raise ShapeError(f"head {head} does not exist: there are {count(n_heads, 'head')}")
    d_h = width // n_heads
    return x[..., head * d_h:(head + 1) * d_h]


def rope_dot(q, k, m, n, *, base=10000.0, style="half", scaling=None):
    """q_m·k_n: the dot product of q turned for position m and k turned for position n (whole vectors)."""
    q = np.asarray(q, dtype=np.float64).reshape(1, -1)
    k = np.asarray(k, dtype=np.float64).reshape(1, -1)
    turn = {"base": base, "style": style, "scaling": scaling}
    return float(rope(q, [m], **turn)[0] @ rope(k, [n], **turn)[0])


def offset_positions(offsets, start):
    """The positions (m, n) with m − n = offset and the smaller of the two equal to ``start``."""
    o = np.asarray(offsets, dtype=np.float64)
    return start + np.maximum(o, 0.0), start + np.maximum(-o, 0.0)


def score_vs_offset(q, k, offsets, starts=DEFAULT_STARTS, *, base=10000.0, style="half", scaling=None):
    """q_m·k_n against the offset m − n, once per absolute start → (len(starts), len(offsets)).

    For start s and offset o, m = s + max(o, 0) and n = s + max(−o, 0): both positions ≥ s. RoPE makes
    every row the same curve (up to rounding): equal offsets give equal scores wherever they sit.
    """
    q = np.asarray(q, dtype=np.float64).reshape(-1)
    k = np.asarray(k, dtype=np.float64).reshape(-1)
    if q.shape != k.shape:
        raise ShapeError(f"q and k must have the same width, got {q.shape[0]} and {k.shape[0]}")
    offsets = np.asarray(offsets, dtype=np.float64).reshape(-1)
    out = np.empty((len(starts), offsets.shape[0]))
    qs = np.broadcast_to(q, (offsets.shape[0], q.shape[0]))
    ks = np.broadcast_to(k, (offsets.shape[0], k.shape[0]))
    turn = {"base": base, "style": style, "scaling": scaling}
    for row, start in enumerate(starts):
        m, n = offset_positions(offsets, float(start))
        out[row] = np.einsum("ij,ij->i", rope(qs, m, **turn), rope(ks, n, **turn))
    return out


def curves_gap(curves):
    """The largest difference between any of the curves (rows) at the same offset: 0 when they coincide."""
    curves = np.asarray(curves, dtype=np.float64)
    if curves.shape[0] < 2:
        return 0.0
    return float(np.max(curves.max(axis=0) - curves.min(axis=0)))


def diagonal_deviation(scores):
    """Max over the diagonals (i − j fixed) of max − min along that diagonal: 0 for a Toeplitz matrix.

    ``scores`` is 2-D (Lq, Lk) or has leading axes (e.g. heads), whose worst diagonal counts.
    Cells that are not finite (masked) are left out. Cost: one pass over the rows, memory Lq + Lk.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim < 2:
        raise ShapeError(f"diagonal_deviation needs a matrix, got shape {s.shape}")
    rows, cols = s.shape[-2:]
    s = s.reshape(-1, rows, cols)
    finite = np.isfinite(s)
    # diagonal j − i = t − (rows − 1) is column t of a running max and min; row i covers t = rows−1−i …
    hi = np.full((s.shape[0], rows + cols - 1), -np.inf)
    lo = np.full((s.shape[0], rows + cols - 1), np.inf)
    for i in range(rows):
        t = slice(rows - 1 - i, rows - 1 - i + cols)
        np.maximum(hi[:, t], np.where(finite[:, i], s[:, i], -np.inf), out=hi[:, t])
        np.minimum(lo[:, t], np.where(finite[:, i], s[:, i], np.inf), out=lo[:, t])
    seen = np.isfinite(hi)  # diagonals with at least one finite cell
    return float((hi[seen] - lo[seen]).max()) if seen.any() else 0.0


def value_range(scores):
    """max − min over the finite cells: how much the scores vary at all."""
    s = np.asarray(scores, dtype=np.float64)
    s = s[np.isfinite(s)]
    return float(s.max() - s.min()) if s.size else 0.0


def is_constant_along_diagonals(scores, rtol=1e-9):
    """True when every diagonal is constant up to ``rtol`` times the size of the scores."""
    s = np.asarray(scores, dtype=np.float64)
    finite = s[np.isfinite(s)]
    size = float(np.abs(finite).max()) if finite.size else 0.0
    return diagonal_deviation(s) <= rtol * max(1.0, size)


def same_row_everywhere(matrix, row):
    """A block with every row equal to row ``row`` of ``matrix``: the same vector at every position."""
    m = np.asarray(matrix, dtype=np.float64)
    return np.tile(m[int(row)], (m.shape[0], 1))


def locked_positions(m, distance, lo, hi):
    """(m, n) with m − n = ``distance`` and both in [lo, hi]; m is moved as little as needed to fit."""
    m, distance, lo, hi = int(m), int(distance), int(lo), int(hi)
    if abs(distance) > hi - lo:
        raise ShapeError(f"a distance of {distance} does not fit in positions {lo}..{hi}")
    m = min(max(m, lo + max(distance, 0)), hi + min(distance, 0))
    return m, m - distance


def wavelength(theta):
    """How many positions a pair needs for one full turn: 2π/θ."""
    return 2 * np.pi / np.asarray(theta, dtype=np.float64)


@dataclass(frozen=True)
class PairView:
    """One pair of q and k in the rotation plane, and what its rotation does to the score."""

    pair: int
    dims: tuple  # the two dimensions of the head that form the pair
    theta: float  # θ_i, radians per position
    m: int  # the query's position
    n: int  # the key's position
    q: np.ndarray  # (2,) the query's pair before rotation
    k: np.ndarray  # (2,) the key's pair before rotation
    q_rot: np.ndarray  # (2,) turned by m·θ_i
    k_rot: np.ndarray  # (2,) turned by n·θ_i
    angle: float  # signed angle from k_rot to q_rot, in (−π, π]
    angle_before: float  # signed angle from k to q before rotation
    turn: float  # (m − n)·θ_i wrapped into (−π, π]: what RoPE adds to the angle
    pair_score: float  # q_rot·k_rot = |q||k| cos(angle): this pair's share of q_m·k_n
    score: float  # q_m·k_n over the whole head (every pair)

    @property
    def offset(self):
        return self.m - self.n


def pair_view(q, k, pair, m, n, *, base=10000.0, style="half", scaling=None):
    """Everything the rotation plane shows for head vectors q, k (d_h,), one pair and positions m, n."""
    q = np.asarray(q, dtype=np.float64).reshape(-1)
    k = np.asarray(k, dtype=np.float64).reshape(-1)
    d = q.shape[0]
    dims = pair_dims(d, pair, style)
    theta = float(rope_frequencies(d, base, scaling)[pair])
    q2, k2 = pair_vectors(q, pair, style), pair_vectors(k, pair, style)
    q_rot, k_rot = rotated_pair(q2, m, theta), rotated_pair(k2, n, theta)
    return PairView(pair=int(pair), dims=dims, theta=theta, m=int(m), n=int(n), q=q2, k=k2, q_rot=q_rot,
                    k_rot=k_rot, angle=angle_between(q_rot, k_rot), angle_before=angle_between(q2, k2),
                    turn=wrap_angle((m - n) * theta), pair_score=float(q_rot @ k_rot),
                    score=rope_dot(q, k, m, n, base=base, style=style, scaling=scaling))


def degrees(angle):
    return math.degrees(float(angle))
