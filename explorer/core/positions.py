"""Sinusoidal positional encoding (Vaswani et al.): a vector of sines and cosines per position, added to X."""
import numpy as np

from .errors import ShapeError


def sinusoidal_positions(length, dim, base=10000.0):
    """PE (length, dim): PE[p, 2i] = sin(p / base^(2i/dim)), PE[p, 2i+1] = cos(p / base^(2i/dim))."""
    length, dim = int(length), int(dim)
    if length < 1 or dim < 1:
        raise ShapeError(f"sinusoidal_positions needs length >= 1 and dim >= 1, got ({length}, {dim})")
    if not base > 0:
        raise ShapeError(f"base must be positive, got {base}")
    p = np.arange(length, dtype=np.float64)[:, None]
    two_i = np.arange(0, dim, 2, dtype=np.float64)
    angles = p / np.power(float(base), two_i / dim)
    pe = np.empty((length, dim))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : dim // 2])
    return pe
