"""Large matrices brought down to screen resolution without losing thin patterns: each block of
cells becomes its maximum (a previous-token diagonal one cell wide survives at any size, where
sampling every other row would lose it)."""
import numpy as np


def max_pool(matrix, rows, cols):
    """``matrix`` (..., R, C) reduced to at most (rows, cols) by the maximum of each whole block (the
    last ones may be smaller); unchanged when already that small."""
    m = np.asarray(matrix)
    if m.shape[-2] <= rows and m.shape[-1] <= cols:
        return m
    blocks = blocks_for(m.shape[-2:], (rows, cols))
    flat = [block_extreme(x, *blocks, signed=False) for x in m.reshape(-1, *m.shape[-2:])]
    return np.stack(flat).reshape(*m.shape[:-2], *flat[0].shape)


def block_extreme(matrix, br, bc, signed=True):
    """Each br × bc block of ``matrix`` (the last ones may be smaller) as its value farthest from 0 (its
    maximum or its minimum): for scores on a diverging map a strongly negative cell matters as much as a
    positive one; ``signed=False`` (weights, ≥ 0) takes the maximum alone, in half the passes."""
    m = np.asarray(matrix)
    if br == 1 and bc == 1:
        return m
    R, C = m.shape
    rf, cf = R // br, C // bc
    out = np.empty((-(-R // br), -(-C // bc)), dtype=m.dtype)

    def put(rows, cols, part, axes):
        if part.size:
            hi, lo = part.max(axis=axes), part.min(axis=axes)
            out[rows, cols] = np.where(hi >= -lo, hi, lo)

    if rf and cf:  # the whole blocks: strided maxima and minima, a few fast passes (no 4-D reductions)
        full = m[:rf * br]  # whole rows: contiguous when m is
        hi = _strided(full, br, bc, np.max, np.maximum)
        if signed:
            lo = _strided(full, br, bc, np.min, np.minimum)
            hi = np.where(hi >= -lo, hi, lo)
        out[:rf, :cf] = hi
    if rf and cf * bc < C:
        put(slice(0, rf), cf, m[:rf * br, cf * bc:].reshape(rf, br, -1), (1, 2))
    if rf * br < R:
        tail = m[rf * br:]
        put(rf, slice(0, cf), tail[:, :cf * bc].reshape(tail.shape[0], cf, bc), (0, 2))
        if cf * bc < C:
            put(rf, cf, tail[:, cf * bc:], (0, 1))
    return out


def _strided(m, br, bc, reduce, op):
    """``op`` (np.maximum or np.minimum, with ``reduce`` its np.max or np.min) over every br × bc block of
    the first rows of m (whole blocks of rows, full width): rows first through a contiguous reshape,
    then columns by strided passes over the smaller array."""
    rows = reduce(m.reshape(-1, br, m.shape[1]), axis=1)
    cf = m.shape[1] // bc
    cols = rows[:, 0:cf * bc:bc].copy()
    for j in range(1, bc):
        op(cols, rows[:, j:cf * bc:bc], out=cols)
    return cols


def blocks_for(shape, size):
    """(rows, cols) of the whole blocks that bring ``shape`` down to at most ``size`` a side."""
    return -(-shape[0] // size[0]), -(-shape[1] // size[1])


OVERVIEW = 1024  # cells per side of the overview a large matrix keeps (a screen shows fewer)


def needs_overview(shape):
    return shape[-2] > OVERVIEW or shape[-1] > OVERVIEW


def overview(matrix, signed=True):
    """The matrix seen at screen resolution: ≤ OVERVIEW × OVERVIEW blocks, each its extreme value
    (float32: colours need no more, and at L = 4096 with 8 heads both stages' overviews take 64 MiB
    beside the 2 GiB of scores and weights)."""
    m = np.asarray(matrix)
    return block_extreme(m, *blocks_for(m.shape, (OVERVIEW, OVERVIEW)), signed).astype(np.float32)


def overview_shape(shape):
    """(rows, cols) of the ``overview`` of a matrix of ``shape``, and the height of its blocks."""
    br, bc = blocks_for(shape, (OVERVIEW, OVERVIEW))
    return (-(-shape[0] // br), -(-shape[1] // bc)), br


def overview_rows(rows, shape, signed=True):
    """The rows of the ``overview`` of a matrix of ``shape`` that a band of its ``rows`` makes (the band
    starts at a multiple of the block height): an overview made band by band, as a recompute writes them."""
    return block_extreme(rows, *blocks_for(shape, (OVERVIEW, OVERVIEW)), signed).astype(np.float32)


def refresh_overview_rows(view, matrix, rows):
    """Update ``view`` (an ``overview`` of ``matrix``) in place where the matrix's ``rows`` changed."""
    br, bc = blocks_for(matrix.shape, (OVERVIEW, OVERVIEW))
    for b in np.unique(np.asarray(rows) // br):
        view[b] = block_extreme(matrix[b * br:(b + 1) * br], br, bc)[0]
