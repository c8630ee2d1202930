"""Large matrices brought down to screen resolution without losing thin patterns: each block of
cells becomes its maximum (a previous-token diagonal one cell wide survives at any size, where
sampling every other row would lose it)."""
import numpy as np


def max_pool(matrix, rows, cols):
    """``matrix`` (..., R, C) reduced to at most (rows, cols) by the maximum of each block; unchanged
    when already that small. Blocks are as even as the sizes allow (edges from ``linspace``)."""
    m = np.asarray(matrix)
    r, c = m.shape[-2:]
    if r <= rows and c <= cols:
        return m
    r_edges = np.linspace(0, r, min(r, rows) + 1).astype(int)
    c_edges = np.linspace(0, c, min(c, cols) + 1).astype(int)
    by_rows = np.maximum.reduceat(m, r_edges[:-1], axis=-2)
    return np.maximum.reduceat(by_rows, c_edges[:-1], axis=-1)


def extreme_pool(matrix, rows, cols):
    """Like ``max_pool``, but each block keeps its value farthest from 0 (its maximum or its minimum):
    for scores on a diverging map, where a strongly negative cell matters as much as a positive one."""
    m = np.asarray(matrix)
    high = max_pool(m, rows, cols)
    if high is m:
        return m
    low = -max_pool(-m, rows, cols)
    return np.where(high >= -low, high, low)


OVERVIEW = 1024  # cells per side of the overview a large matrix keeps (a screen shows fewer)


def needs_overview(shape):
    return shape[-2] > OVERVIEW or shape[-1] > OVERVIEW


def overview(matrix):
    """The matrix seen at screen resolution: ≤ OVERVIEW × OVERVIEW blocks, each its extreme value
    (float32: colours need no more, and at L = 4096 with 8 heads both stages' overviews take 64 MiB
    beside the 2 GiB of scores and weights)."""
    return extreme_pool(matrix, OVERVIEW, OVERVIEW).astype(np.float32)


def refresh_overview_rows(view, matrix, rows):
    """Update ``view`` (an ``overview`` of ``matrix``) in place where the matrix's ``rows`` changed."""
    r, c = matrix.shape
    r_edges = np.linspace(0, r, min(r, OVERVIEW) + 1).astype(int)
    c_edges = np.linspace(0, c, min(c, OVERVIEW) + 1).astype(int)
    for b in np.unique(np.searchsorted(r_edges, np.asarray(rows), side="right") - 1):
        block = matrix[r_edges[b]:r_edges[b + 1]]
        high = np.maximum.reduceat(block.max(axis=0), c_edges[:-1])
        low = np.minimum.reduceat(block.min(axis=0), c_edges[:-1])
        view[b] = np.where(high >= -low, high, low)
