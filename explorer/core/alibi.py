"""ALiBi (Press et al., 2022): no position vectors; each head h adds −m_h·|i − j| to its scores, so a
key costs more the further it is. The slopes m_h are a geometric sequence fixed per head count."""
import math

import numpy as np


def alibi_slopes(n_heads):
    """The slopes m_1 … m_H of the paper's reference ``get_slopes``: 2^(−8h/H) when H is a power of
    two; otherwise those of the largest power of two c below H, then every other slope of 2c."""
    n = int(n_heads)
    if n < 1:
        raise ValueError(f"ALiBi needs at least one head, got {n}")

    def power_of_two(count):
        return [2.0 ** (-8.0 * h / count) for h in range(1, count + 1)]

    c = 2 ** math.floor(math.log2(n))
    slopes = power_of_two(c)
    if c < n:
        slopes += power_of_two(2 * c)[0::2][:n - c]
    return np.array(slopes, dtype=np.float64)


def alibi_bias(slope, rows, n_keys):
    """−slope·|i − j| for the query rows ``rows`` (an index array or slice bounds) and keys 0 … n_keys−1.

    In a causal session the keys j > i are masked anyway, so this is −slope·(i − j) where it counts."""
    i = np.arange(n_keys, dtype=np.float64)[rows] if isinstance(rows, slice) else np.asarray(rows, np.float64)
    return -slope * np.abs(i[:, None] - np.arange(n_keys, dtype=np.float64)[None, :])
