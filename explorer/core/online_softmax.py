"""FlashAttention's online softmax, step by step: the scores are made one B_r × B_c tile at a time, and each
query row keeps only a running max m, a running sum ℓ and its partial output — the L_q × L_k matrix of scores
or weights is never held, and the result is exact, not an approximation.

From Dao et al. 2022 ("FlashAttention", Algorithm 1, lines 9–12) and, for one row, Milakov & Gimelshein 2018
("Online normalizer calculation for softmax"). For one query block i, Algorithm 1 applies its updates to
(O_i, ℓ_i, m_i) for the key tiles j = 1 … T_c in this order (its outer loop runs over j, its inner over i:
the order in which other blocks are visited does not touch block i). The stepper shows one block's updates;
``flash_attention`` runs every block with the same update and gives the whole output.
"""
from dataclasses import dataclass

import numpy as np

from .alibi import alibi_bias
from .errors import ShapeError

MAX_TILES_PER_SIDE = 64  # the smallest tile keeps at most this many tiles along a side (steps stay few)


@dataclass(frozen=True)
class RowStep:
    """One score x_j of the 1-D online softmax: m_j = max(m_{j−1}, x_j),
    ℓ_j = ℓ_{j−1}·e^{m_{j−1} − m_j} + e^{x_j − m_j}."""

    j: int
    x: float
    m_old: float
    m_new: float
    rescale: float  # e^{m_old − m_new}: what the sum so far is multiplied by (1 when the max stays)
    l_old: float
    l_new: float


def online_softmax_steps(x):
    """Milakov & Gimelshein's one pass over a row of finite scores: the steps, and softmax(x) from the last
    m and ℓ (e^{x_j − m} / ℓ) — the same numbers as the two-pass softmax that finds the max first."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    if x.size == 0 or not np.isfinite(x).all():
        raise ShapeError(f"the online softmax takes a non-empty row of finite scores, got {x.size} values")
    steps, m, ell = [], -np.inf, 0.0
    for j, value in enumerate(x):
        m_new = max(m, float(value))
        rescale = 1.0 if m_new == m else float(np.exp(m - m_new))
        l_new = ell * rescale + float(np.exp(value - m_new))
        steps.append(RowStep(j, float(value), m, m_new, rescale, ell, l_new))
        m, ell = m_new, l_new
    return steps, np.exp(x - m) / ell


@dataclass(frozen=True, eq=False)
class FlashProblem:
    """One head's attention as the session computes it: S = (q·kᵀ·scale + bias) / temperature, the causal
    mask (aligned to the last keys, as ``masks.causal_mask``), ALiBi's −slope·|i − j| as the bias."""

    q: np.ndarray  # (L_q, d)
    k: np.ndarray  # (L_k, d)
    v: np.ndarray  # (L_k, d_v)
    scale: float
    temperature: float = 1.0
    causal: bool = False
    slope: float | None = None  # ALiBi's m_h, or None

    @property
    def n_queries(self):
        return self.q.shape[0]

    @property
    def n_keys(self):
        return self.k.shape[0]

    def last_key(self, row):
        """The last key query ``row`` may see (with the causal mask), else the last key."""
        return row + self.n_keys - self.n_queries if self.causal else self.n_keys - 1

    def tile_skipped(self, rows, cols):
        """True when every cell of the tile is masked (wholly above the diagonal): it is never computed."""
        return self.causal and cols[0] > self.last_key(rows[1] - 1)

    def score_tile(self, rows, cols):
        """S_ij for query rows [r0, r1) and keys [c0, c1): −∞ where the mask forbids."""
        (r0, r1), (c0, c1) = rows, cols
        with np.errstate(over="ignore", invalid="ignore"):
            s = (self.q[r0:r1] @ self.k[c0:c1].T) * (self.scale / self.temperature)
            if self.slope is not None:
                s += alibi_bias(self.slope, np.arange(r0, r1), c1)[:, c0:] / self.temperature
        if self.causal:
            allowed = np.arange(c0, c1)[None, :] <= self.last_key(np.arange(r0, r1))[:, None]
            s = np.where(allowed, s, -np.inf)
        return s


def head_problem(result, head):
    """The ``FlashProblem`` of query head ``head`` of a ``pipeline.PipelineResult``: its q (after RoPE), the
    K/V head it reads, its V columns, the scale, temperature, mask and ALiBi slope the session used."""
    d = result.d_head
    g = result.kv_head(head)
    slope = None if result.slopes is None else float(result.slopes[head])
    # the pipeline's only mask is the causal one (multi_head_attention is called with mask=None)
    return FlashProblem(q=result.q[:, head * d:(head + 1) * d], k=result.k[:, g * d:(g + 1) * d],
                        v=result.v[:, result.v_columns(head)], scale=float(result.scale),
                        temperature=float(result.temperature), causal=result.heads.mask is not None, slope=slope)


@dataclass(frozen=True)
class TileStep:
    """What one tile S_ij does to the block's running state (Algorithm 1, lines 9–12). Vectors have one entry
    per query row of the block; −∞ in m means the row has seen no key yet."""

    number: int  # 1, 2, … within the block
    tile: int  # j, counted from 0 over every key tile (skipped ones too)
    rows: tuple  # (r0, r1): the block's query rows
    cols: tuple  # (c0, c1): the tile's keys
    scores: np.ndarray  # S_ij (B_r, B_c), −∞ where masked
    tile_max: np.ndarray  # m̃_ij = rowmax(S_ij)
    p: np.ndarray  # P̃_ij = exp(S_ij − m̃_ij)
    tile_sum: np.ndarray  # ℓ̃_ij = rowsum(P̃_ij)
    m_old: np.ndarray
    m_new: np.ndarray  # max(m_old, m̃_ij)
    rescale: np.ndarray  # e^{m_old − m_new}: what ℓ and O so far are multiplied by
    tile_rescale: np.ndarray  # e^{m̃_ij − m_new}: what this tile's P̃ and ℓ̃ are multiplied by
    l_old: np.ndarray
    l_new: np.ndarray  # e^{m_old − m_new}·ℓ_old + e^{m̃_ij − m_new}·ℓ̃_ij
    # Õ = e^{m_old − m_new}·Õ_old + e^{m̃ − m_new}·P̃·V_j (what FlashAttention-2 keeps, dividing by ℓ once)
    o_unnormalised: np.ndarray
    # Algorithm 1's O_i = diag(ℓ_new)⁻¹(diag(ℓ_old)·e^{m_old − m_new}·O_old + e^{m̃ − m_new}·P̃·V_j)
    o: np.ndarray


def _factor(a, b):
    """e^{a − b} for running maxima (b ≥ a): 1 where they are equal (also both −∞: nothing seen yet)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(a == b, 1.0, np.exp(a - np.where(np.isfinite(b), b, 0.0)))


def _divide(x, ell):
    """x / ℓ row by row; a row with ℓ = 0 (no key seen, or all masked) stays 0, as the session's softmax."""
    return np.divide(x, ell[:, None], out=np.zeros_like(x), where=ell[:, None] > 0)


def _tile_update(problem, rows, cols, m, ell, o_tilde, o):
    """One tile's update of (m, ℓ, Õ, O): the arithmetic of Algorithm 1, lines 9–12."""
    s = problem.score_tile(rows, cols)
    tile_max = s.max(axis=1)
    shift = np.where(np.isfinite(tile_max), tile_max, 0.0)
    with np.errstate(under="ignore"):
        p = np.exp(s - shift[:, None])
    tile_sum = p.sum(axis=1)
    m_new = np.maximum(m, tile_max)
    rescale, tile_rescale = _factor(m, m_new), _factor(tile_max, m_new)
    l_new = rescale * ell + tile_rescale * tile_sum
    pv = p @ problem.v[cols[0]:cols[1]]
    o_tilde_new = rescale[:, None] * o_tilde + tile_rescale[:, None] * pv
    o_new = _divide((ell * rescale)[:, None] * o + tile_rescale[:, None] * pv, l_new)
    return s, tile_max, p, tile_sum, m_new, rescale, tile_rescale, l_new, o_tilde_new, o_new


def _start(n_rows, d_v):
    """m = −∞, ℓ = 0, Õ = O = 0 (Algorithm 1, line 2)."""
    return np.full(n_rows, -np.inf), np.zeros(n_rows), np.zeros((n_rows, d_v)), np.zeros((n_rows, d_v))


def check_tiles(problem, b_r, b_c):
    """B_r and B_c as whole numbers in 1 … L_q and 1 … L_k, or ShapeError naming the one that is not."""
    out = []
    for name, b, n in (("B_r", b_r, problem.n_queries), ("B_c", b_c, problem.n_keys)):
        if isinstance(b, bool) or int(b) != b or not 1 <= int(b) <= n:
            raise ShapeError(f"{name} must be a whole number from 1 to {n}, got {b!r}")
        out.append(int(b))
    return tuple(out)


def spans(n, size):
    """[(0, size), (size, 2·size), …] covering 0 … n − 1; the last one may be shorter."""
    return [(start, min(start + size, n)) for start in range(0, n, size)]


@dataclass(frozen=True)
class BlockSteps:
    """Every step of one query block over the key tiles, and the tiles it skipped (all cells masked)."""

    block: int  # i, from 0
    rows: tuple  # (r0, r1)
    n_tiles: int  # T_c, the key tiles along the row (computed or skipped)
    steps: tuple  # TileStep, one per computed tile
    skipped: tuple  # the tile indices j never computed
    output: np.ndarray  # the block's rows of O: Õ / ℓ after the last tile
    n_keys: int

    def strip(self):
        """The block's rows of S put together from its tiles (B_r × L_k): −∞ where masked or skipped. For
        showing the tiles in place; the algorithm itself never holds more than one tile."""
        s = np.full((self.rows[1] - self.rows[0], self.n_keys), -np.inf)
        for step in self.steps:
            s[:, step.cols[0]:step.cols[1]] = step.scores
        return s


def block_steps(problem, b_r, b_c, block):
    """The updates of query block ``block`` (rows block·B_r …), one ``TileStep`` per key tile not skipped."""
    b_r, b_c = check_tiles(problem, b_r, b_c)
    blocks = spans(problem.n_queries, b_r)
    if not 0 <= block < len(blocks):
        raise ShapeError(f"query block {block + 1} does not exist: B_r = {b_r} cuts {problem.n_queries} rows "
                         f"into {len(blocks)} blocks")
    rows = blocks[block]
    m, ell, o_tilde, o = _start(rows[1] - rows[0], problem.v.shape[1])
    steps, skipped = [], []
    for j, cols in enumerate(spans(problem.n_keys, b_c)):
        if problem.tile_skipped(rows, cols):
            skipped.append(j)
            continue
        m_old, l_old = m, ell
        s, t_max, p, t_sum, m, resc, t_resc, ell, o_tilde, o = _tile_update(problem, rows, cols, m, ell, o_tilde, o)
        steps.append(TileStep(len(steps) + 1, j, rows, cols, s, t_max, p, t_sum, m_old, m, resc, t_resc, l_old,
                              ell, o_tilde, o))
    return BlockSteps(block, rows, len(spans(problem.n_keys, b_c)), tuple(steps), tuple(skipped),
                      _divide(o_tilde, ell), problem.n_keys)


@dataclass(frozen=True)
class FlashResult:
    """The whole output, tile by tile, and what it took."""

    output: np.ndarray  # (L_q, d_v): Õ / ℓ of every block
    normalised_each_step: np.ndarray  # Algorithm 1's O, divided by ℓ at every step (the same numbers)
    tiles_computed: int
    tiles_skipped: int
    largest_tile: int  # cells of the largest S tile held at once (B_r·B_c, or less at the edges)


def flash_attention(problem, b_r, b_c):
    """softmax(S)·V of the whole head, made one tile at a time with the same update as the stepper."""
    b_r, b_c = check_tiles(problem, b_r, b_c)
    d_v = problem.v.shape[1]
    out, out_alg1 = np.zeros((problem.n_queries, d_v)), np.zeros((problem.n_queries, d_v))
    computed = skipped = largest = 0
    for rows in spans(problem.n_queries, b_r):
        m, ell, o_tilde, o = _start(rows[1] - rows[0], d_v)
        for cols in spans(problem.n_keys, b_c):
            if problem.tile_skipped(rows, cols):
                skipped += 1
                continue
            computed += 1
            largest = max(largest, (rows[1] - rows[0]) * (cols[1] - cols[0]))
            *_, m, _, _, ell, o_tilde, o = _tile_update(problem, rows, cols, m, ell, o_tilde, o)
        out[rows[0]:rows[1]] = _divide(o_tilde, ell)
        out_alg1[rows[0]:rows[1]] = o
    return FlashResult(out, out_alg1, computed, skipped, largest)


def largest_difference(a, b):
    """max |a − b| over every cell: how far the tiled result is from the one computed in one piece."""
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) if np.size(a) else 0.0


def tiles_per_block(problem, b_r, b_c):
    """How many key tiles each query block computes: T_c, fewer with the causal mask (the tiles wholly above
    the diagonal are skipped)."""
    b_r, b_c = check_tiles(problem, b_r, b_c)
    keys = spans(problem.n_keys, b_c)
    return [sum(not problem.tile_skipped(rows, cols) for cols in keys) for rows in spans(problem.n_queries, b_r)]


def smallest_tile(n):
    """The smallest B allowed along a side of n: at most MAX_TILES_PER_SIDE tiles (steps stay few at large L)."""
    return max(1, -(-int(n) // MAX_TILES_PER_SIDE))


def default_tile(n):
    """B for a side of n tokens: 2 at L ≤ 16 (L = 4: two tiles a side), then the power of two nearest above
    L/8 (about eight tiles a side), never below ``smallest_tile`` nor above n."""
    b = 2 if n <= 16 else 1 << int(np.ceil(np.log2(n / 8)))
    return int(min(max(b, smallest_tile(n)), n))
