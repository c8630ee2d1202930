"""The judgements of the step-through lesson (F7), pure NumPy: was the guess right, do the rows sum to 1,
does every output stay inside the convex hull of V.

Masks follow ``explorer.core.attention`` (and PyTorch): ``True`` = the query may attend to that key,
``False`` = masked. A *fully masked row* has no key to attend to; softmax gives it zero weights and
a zero output, so it is excluded from the row-sum and hull checks (the caller names it to the reader).
"""
from dataclasses import dataclass

import numpy as np

from .errors import ShapeError
from .heads import split_heads
from .plural import count
from .presets import demo_session

# Two cells whose values differ by at most this (relative to the row's largest magnitude, at least 1)
# are equally dark: ties are common in hand-set demos (追 scores 猫 and 激光点 exactly the same).
TIE_RTOL = 1e-12


def _row_of(matrix, row, mask):
    """(values, allowed) of one row of a 2-D matrix, with the mask broadcast to it."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise ShapeError(f"expected a 2-D matrix, got shape {m.shape}")
    row = int(row)
    if not 0 <= row < m.shape[0]:
        raise ShapeError(f"row {row} is outside the {count(m.shape[0], 'row')} of the matrix")
    if mask is None:
        allowed = np.ones(m.shape[1], dtype=bool)
    else:
        try:
            allowed = np.broadcast_to(np.asarray(mask, dtype=bool), m.shape)[row]
        except ValueError:
            raise ShapeError(f"the mask of shape {np.shape(mask)} does not fit the matrix {m.shape}") from None
    return m[row], allowed


def _tied(values, allowed):
    """Columns (ascending) whose allowed value equals the row maximum up to TIE_RTOL, and that maximum."""
    if not allowed.any():
        return (), None
    vals = np.where(allowed, values, -np.inf)
    top = float(vals.max())
    tol = TIE_RTOL * max(1.0, float(np.max(np.abs(values[allowed]))))
    return tuple(int(j) for j in np.flatnonzero(allowed & (values >= top - tol))), top


def darkest_cols_in_row(matrix, row, mask=None):
    """Every column (ascending) holding the largest allowed value of ``row`` — ties included; () when fully masked."""
    return _tied(*_row_of(matrix, row, mask))[0]


def guess_fits(guess, shape):
    """True if ``guess = (row, col)`` names a cell of a matrix of ``shape`` (rows, cols).

    A guess names its cell by index; after tokens or dimensions are removed it may point past the
    edge, and such a guess counts as no guess at all (None, a malformed guess or negative indexes too).
    """
    if guess is None or len(shape) != 2:
        return False
    try:
        row, col = (int(x) for x in guess)
    except (TypeError, ValueError):
        return False
    return 0 <= row < int(shape[0]) and 0 <= col < int(shape[1])


def darkest_in_row(matrix, row, mask=None):
    """Column of the largest value in ``row`` among the cells the mask allows (the first if tied);
    None when the row is fully masked."""
    values, allowed = _row_of(matrix, row, mask)
    cols, _ = _tied(values, allowed)
    return cols[0] if cols else None


@dataclass(frozen=True)
class GuessVerdict:
    """The reader's guess for the darkest cell of a row, against the truth.

    ``correct`` is True when the guessed cell is allowed and as large as the row's maximum (a tie
    counts: any of ``tied_cols`` is right). ``true_col``/``true_value`` are None for a fully masked row.
    """

    correct: bool
    row: int
    guessed_col: int
    true_col: int | None
    guessed_value: float
    true_value: float | None
    tied_cols: tuple = ()  # every column that is (equally) the largest
    guessed_masked: bool = False  # the guessed cell is masked: it never takes part


def judge_guess(matrix, guess, mask=None):
    """Judge ``guess = (row, col)`` as "the darkest cell of its row" in ``matrix`` (see GuessVerdict)."""
    row, col = (int(x) for x in guess)
    values, allowed = _row_of(matrix, row, mask)
    if not 0 <= col < values.shape[0]:
        raise ShapeError(f"column {col} is outside the {count(values.shape[0], 'column')} of the matrix")
    cols, top = _tied(values, allowed)
    return GuessVerdict(correct=col in cols, row=row, guessed_col=col, true_col=cols[0] if cols else None,
                        guessed_value=float(values[col]), true_value=top, tied_cols=cols,
                        guessed_masked=not bool(allowed[col]))


@dataclass(frozen=True)
class RowMix:
    """Which rows of V one output row mixes most: the answer to "guess first" at stage ③.

    ``keys`` are (column, weight) pairs, heaviest first (equal weights in column order); ``rest`` keys
    with ``rest_weight`` in total are left out; ``masked`` = the row has no key to attend to.
    """

    keys: tuple
    rest: int
    rest_weight: float
    masked: bool

    @property
    def weight(self):
        """The weight the listed keys hold together."""
        return float(sum(w for _, w in self.keys))


def top_contributors(weights, row, mask=None, cover=0.8, max_keys=4):
    """The keys whose value rows output row ``row`` mixes most (see RowMix).

    Keys are taken heaviest first until they hold at least ``cover`` of the row's weight; keys exactly
    as heavy as the last one taken (up to TIE_RTOL) join it, so a tie is never split; at most
    ``max_keys`` are listed and the rest are summed. Masked keys never take part.
    """
    values, allowed = _row_of(weights, row, mask)
    if not allowed.any():
        return RowMix(keys=(), rest=0, rest_weight=0.0, masked=True)
    cols = np.flatnonzero(allowed)
    order = cols[np.argsort(-values[cols], kind="stable")]
    total = float(values[cols].sum())
    tol = TIE_RTOL * max(1.0, float(np.max(np.abs(values[cols]))))
    taken, held = [], 0.0
    for j in order:
        j = int(j)
        if taken and held >= cover * total - tol and values[j] < values[taken[-1]] - tol:
            break
        taken.append(j)
        held += float(values[j])
    taken = taken[:max(1, int(max_keys))]
    rest = [int(j) for j in order if int(j) not in taken]
    return RowMix(keys=tuple((j, float(values[j])) for j in taken), rest=len(rest),
                  rest_weight=float(values[rest].sum()) if rest else 0.0, masked=False)


def distinguishing_decimals(values, least=2, most=4):
    """The fewest decimals (``least`` … ``most``) at which values that differ also print differently.

    The lesson quotes weights with two decimals, as the heatmaps show them, unless two different
    numbers it names side by side would then read the same (0.454 and 0.456 both "0.45").
    Values equal up to TIE_RTOL count as equal; non-finite values are ignored.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    v = np.sort(v[np.isfinite(v)])
    if v.size < 2:
        return int(least)
    tol = TIE_RTOL * max(1.0, float(np.max(np.abs(v))))
    differ = np.flatnonzero(np.diff(v) > tol)
    for d in range(int(least), int(most) + 1):
        if all(f"{v[i]:.{d}f}" != f"{v[i + 1]:.{d}f}" for i in differ):
            return d
    return int(most)


def _checked_rows(weights, masked_rows):
    """Weights as (..., Lq, Lk) and a bool array (..., Lq) of the rows to check."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim < 2:
        raise ShapeError(f"weights must be (..., Lq, Lk), got shape {w.shape}")
    if masked_rows is None:
        return w, np.ones(w.shape[:-1], dtype=bool)
    try:
        masked = np.broadcast_to(np.asarray(masked_rows, dtype=bool), w.shape[:-1])
    except ValueError:
        raise ShapeError(f"masked_rows of shape {np.shape(masked_rows)} does not fit weights {w.shape}") from None
    return w, ~masked


def row_sum_check(weights, masked_rows=None, tol=1e-12):
    """(ok, max_deviation): every row of ``weights`` (..., Lq, Lk) that is not fully masked sums to 1
    within ``tol``; max_deviation = max |Σ_j w_ij − 1| over those rows (0.0 when none is left)."""
    w, keep = _checked_rows(weights, masked_rows)
    if not keep.any():
        return True, 0.0
    dev = float(np.max(np.abs(w.sum(axis=-1)[keep] - 1.0)))
    return dev <= tol, dev


def hull_check(weights, v, output=None, masked_rows=None, tol=1e-9):
    """(ok, worst_distance): every output row lies in the convex hull of the rows of ``v``.

    ``weights`` is (..., Lq, Lk), ``v`` (..., Lk, d_v), ``output`` (..., Lq, d_v) — by default
    W·V computed here. Fully masked rows (zero weights, zero output) are skipped.

    What is checked, per row i:
      1. w_ij ≥ −tol for every j, and |Σ_j w_ij − 1| ≤ tol: row i of W is a convex-combination recipe
         (up to rounding);
      2. with w⁺ = max(w, 0) / Σ_j max(w_ij, 0) — the recipe made *exactly* convex — the point
         p_i = w⁺_i · V is by definition in the convex hull of V's rows, so ‖O_i − p_i‖₂ is an upper
         bound on the distance from O_i to the hull. ``worst_distance`` is the largest such bound.
         When O = W·V (what the pipeline computes) it is only rounding, ≈ 1e-16·|V|.
    ``ok`` = 1 holds and worst_distance ≤ tol · max(1, max|V|). Together they prove hull membership
    up to that tolerance: O_i is within worst_distance of a point that is a convex combination of V.
    """
    w, keep = _checked_rows(weights, masked_rows)
    v = np.asarray(v, dtype=np.float64)
    if v.ndim < 2 or v.shape[-2] != w.shape[-1]:
        raise ShapeError(f"v must have one row per key: weights are {w.shape}, v is {v.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        o = np.matmul(w, v) if output is None else np.asarray(output, dtype=np.float64)
        if o.shape[-2:] != (w.shape[-2], v.shape[-1]):
            raise ShapeError(f"output must be (Lq, d_v) = ({w.shape[-2]}, {v.shape[-1]}), got {o.shape}")
        if not keep.any():
            return True, 0.0
        pos = np.maximum(w, 0.0)
        total = pos.sum(axis=-1, keepdims=True)
        recipe = np.divide(pos, total, out=np.zeros_like(pos), where=total > 0)
        p = np.matmul(recipe, v)
        dist = np.sqrt(np.sum((o - p) ** 2, axis=-1))
    dist = np.where(total[..., 0] > 0, dist, np.inf)  # no positive weight at all: no hull point to offer
    dist = np.broadcast_to(dist, keep.shape)[keep]
    worst = float(np.max(dist))
    recipe_ok = bool(np.all(np.broadcast_to(w.min(axis=-1), keep.shape)[keep] >= -tol)) and \
        bool(np.all(np.abs(np.broadcast_to(w.sum(axis=-1), keep.shape)[keep] - 1.0) <= tol))
    scale = max(1.0, float(np.max(np.abs(v))) if v.size else 1.0)
    return recipe_ok and bool(np.isfinite(worst)) and worst <= tol * scale, worst


@dataclass(frozen=True)
class LessonChecks:
    """The two live checks of the lesson panel for a PipelineResult (every head)."""

    rows_sum_to_one: bool
    max_row_sum_deviation: float
    outputs_in_hull: bool
    worst_hull_distance: float
    excluded_rows: tuple  # indexes of fully masked query rows, left out of both checks
    rows_checked: int  # query rows the hull check covered (a sample when Lq is large)
    n_rows: int


def lesson_checks(result, max_rows=512):
    """Row sums and hull membership over every head of ``result`` (explorer.core.pipeline.PipelineResult).

    Each head's output rows are checked against that head's slice of V (the split of multi-head
    attention; with grouped K/V heads, the slice of the K/V head it reads). The row-sum check covers every row; the hull check repeats one ·V product, so for
    long sequences it takes ``max_rows`` evenly spaced rows (None = all).
    """
    heads = result.heads
    w, masked = heads.weights, heads.masked_rows
    n_rows = w.shape[-2]
    sums_ok, sums_dev = row_sum_check(w, masked)
    rows = np.arange(n_rows)
    if max_rows is not None and n_rows > max_rows:
        rows = np.unique(np.linspace(0, n_rows - 1, int(max_rows)).round().astype(int))
    vh = np.repeat(split_heads(result.v, result.kv_heads), w.shape[0] // result.kv_heads, axis=0)  # per query head
    hull_ok, worst = hull_check(w[:, rows], vh, heads.head_outputs[:, rows], masked[rows])
    return LessonChecks(rows_sum_to_one=sums_ok, max_row_sum_deviation=sums_dev, outputs_in_hull=hull_ok,
                        worst_hull_distance=worst, excluded_rows=tuple(int(i) for i in np.flatnonzero(masked)),
                        rows_checked=int(rows.size), n_rows=int(n_rows))


def demo_state(tokens, matrices, settings):
    """Where the window stands relative to the chapter's demo: "demo" (its tokens, numbers and maths
    settings), "k_swapped" (the same with K rows 猫 and 红色 exchanged — the recap experiment), or None.
    The selected row/head do not matter. Projected Q, K, V (from X and W, perhaps with positions) are
    not the demo's even when the stored Q, K, V still are: the source and positions count as settings."""
    demo = demo_session()
    maths = ("scale_mode", "scale", "temperature", "causal", "heads", "source", "positions", "kv_heads")
    if tuple(tokens) != tuple(demo.tokens) or any(getattr(settings, f) != getattr(demo.settings, f)
                                                  for f in maths):
        return None
    for name in ("Q", "V"):
        if not np.array_equal(matrices[name], demo.matrices[name]):
            return None
    k, demo_k = np.asarray(matrices["K"]), np.asarray(demo.matrices["K"])
    if np.array_equal(k, demo_k):
        return "demo"
    if np.array_equal(k, demo_k[[2, 1, 0, 3]]):
        return "k_swapped"
    return None
