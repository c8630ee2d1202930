"""Why QKᵀ is divided by √d: the spread of q·k grows like √d, and unscaled softmax collapses onto one key.

The chapter: "d 维随机向量的点积,典型大小随 √d 增长;不除掉它,d=128 时分数动辄几十,softmax 的指数会把
预算全部砸给最高分(温度过低的贫富分化),梯度随之死亡。除以 √d = 把温度校准回「有分辨力但不极端」的区间".

The random scores are one score table Q Kᵀ: ``n_samples`` standard-normal queries against the same
``n_keys`` standard-normal keys, each of dimension d (one row = one query's scores, as in the chapter).
Every d draws from its own stream seeded by ``(seed, d)``, so a value at d is the same whether it is
asked for alone or as one point of a curve, and changing one d never changes another.
"""
import math
import operator
from dataclasses import dataclass

import numpy as np

from .errors import ExplorerError, ShapeError
from .softmax import softmax

N_KEYS = 16
N_SAMPLES = 256


def _count(value, name):
    """A positive whole number (a dimension or a count), or ShapeError naming it."""
    if isinstance(value, bool):
        raise ShapeError(f"{name} must be a positive whole number, got {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise ShapeError(f"{name} must be a positive whole number, got {value!r}") from None
    if n < 1:
        raise ShapeError(f"{name} must be at least 1, got {n}")
    return n


def _seed(seed):
    try:
        s = operator.index(seed)
    except TypeError:
        raise ExplorerError(f"the seed must be a whole number ≥ 0, got {seed!r}") from None
    if s < 0:
        raise ExplorerError(f"the seed must be a whole number ≥ 0, got {s}")
    return s


def random_queries_keys(d, n_keys=N_KEYS, n_samples=N_SAMPLES, seed=0):
    """Standard-normal queries (n_samples, d) and keys (n_keys, d), from the stream of ``(seed, d)``."""
    d, n_keys, n_samples = _count(d, "d"), _count(n_keys, "n_keys"), _count(n_samples, "n_samples")
    rng = np.random.default_rng([_seed(seed), d])
    q = rng.standard_normal((n_samples, d))
    k = rng.standard_normal((n_keys, d))
    return q, k


def random_scores(d, n_keys=N_KEYS, n_samples=N_SAMPLES, seed=0):
    """Dot products q·k of standard-normal q, k in d dimensions: the (n_samples, n_keys) table Q Kᵀ (unscaled)."""
    q, k = random_queries_keys(d, n_keys, n_samples, seed)
    return q @ k.T


def row_entropy(weights):
    """Entropy in nats of each row of weights, −Σ w·ln w (0·ln 0 = 0): ln n for uniform, 0 for one-hot."""
    w = np.asarray(weights, dtype=np.float64)
    logs = np.log(w, out=np.zeros_like(w), where=w > 0)
    return -np.sum(w * logs, axis=-1) + 0.0


def scaled_weights(scores, d, scaled):
    """softmax over each row of ``scores``, after dividing by √d if ``scaled``."""
    s = np.asarray(scores, dtype=np.float64)
    return softmax(s / math.sqrt(_count(d, "d")) if scaled else s, axis=-1)


def softmax_sharpness(d, scaled, n_keys=N_KEYS, n_samples=N_SAMPLES, seed=0):
    """(mean row entropy in nats, mean max weight) of softmax over the rows of the random scores at d.

    ``scaled``: divide the scores by √d first (the chapter's formula) or not.
    """
    w = scaled_weights(random_scores(d, n_keys, n_samples, seed), d, scaled)
    return float(row_entropy(w).mean()), float(w.max(axis=-1).mean())


def score_spread(dims, n_keys=N_KEYS, n_samples=N_SAMPLES, seed=0):
    """The measured standard deviation of q·k for each d in ``dims`` (≈ √d), as a float array."""
    dims = _dims(dims)
    return np.array([float(np.std(random_scores(d, n_keys, n_samples, seed))) for d in dims])


def _dims(dims):
    values = np.atleast_1d(np.asarray(dims, dtype=object))
    if values.ndim != 1 or len(values) == 0:
        raise ShapeError(f"dims must be a non-empty list of dimensions, got {dims!r}")
    return [_count(d, "d") for d in values]


@dataclass(frozen=True)
class SqrtDPoint:
    """Everything the √d lesson shows at one d, from one draw of the random scores.

    ``row`` is one query's scores over the keys; ``row_unscaled``/``row_scaled`` its softmax weights
    without and with the 1/√d. Entropies are mean row entropies in nats; max weights are means over rows.
    """

    d: int
    spread: float
    sqrt_d: float
    entropy_unscaled: float
    entropy_scaled: float
    max_weight_unscaled: float
    max_weight_scaled: float
    row: np.ndarray
    row_unscaled: np.ndarray
    row_scaled: np.ndarray


def sqrt_d_point(d, row=0, n_keys=N_KEYS, n_samples=N_SAMPLES, seed=0):
    """The √d lesson at one d: spread of q·k, sharpness with and without 1/√d, and query ``row``'s weights.

    Equal to what ``score_spread``, ``softmax_sharpness`` and ``random_scores`` give for the same arguments.
    """
    d = _count(d, "d")
    s = random_scores(d, n_keys, n_samples, seed)
    if not 0 <= operator.index(row) < s.shape[0]:
        raise ShapeError(f"row must be in 0..{s.shape[0] - 1}, got {row}")
    wu, ws = scaled_weights(s, d, False), scaled_weights(s, d, True)
    return SqrtDPoint(
        d=d, spread=float(np.std(s)), sqrt_d=math.sqrt(d),
        entropy_unscaled=float(row_entropy(wu).mean()), entropy_scaled=float(row_entropy(ws).mean()),
        max_weight_unscaled=float(wu.max(axis=-1).mean()), max_weight_scaled=float(ws.max(axis=-1).mean()),
        row=s[row].copy(), row_unscaled=wu[row].copy(), row_scaled=ws[row].copy(),
    )


@dataclass(frozen=True)
class SharpnessCurve:
    """Per d in ``dims``: the spread of q·k, and mean entropy / max weight of softmax, unscaled and scaled."""

    dims: np.ndarray
    spread: np.ndarray
    entropy_unscaled: np.ndarray
    entropy_scaled: np.ndarray
    max_weight_unscaled: np.ndarray
    max_weight_scaled: np.ndarray


def sharpness_curve(dims, n_keys=N_KEYS, n_samples=N_SAMPLES, seed=0):
    """The curves of the lesson over ``dims`` (one draw per d): arrays ready to plot against d."""
    points = [sqrt_d_point(d, 0, n_keys, n_samples, seed) for d in _dims(dims)]

    def column(name):
        return np.array([getattr(p, name) for p in points], dtype=np.float64)

    return SharpnessCurve(
        dims=np.array([p.d for p in points], dtype=np.int64), spread=column("spread"),
        entropy_unscaled=column("entropy_unscaled"), entropy_scaled=column("entropy_scaled"),
        max_weight_unscaled=column("max_weight_unscaled"), max_weight_scaled=column("max_weight_scaled"),
    )


def dimension_grid(maximum=1024):
    """1, 2, 3, 4, 6, 8, 11, 16, … up to ``maximum``: about two points per doubling of d, as whole numbers."""
    maximum = _count(maximum, "maximum")
    steps = int(math.floor(2 * math.log2(maximum) + 1e-9))
    grid = sorted({int(round(2 ** (i / 2))) for i in range(steps + 1)} | {maximum})
    return np.array(grid, dtype=np.int64)
