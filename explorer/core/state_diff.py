"""An A/B diff of two states: B − A for ① S, ② A (the weights) and ③ O, and the cells that moved most.

A is kept as its three stages (``Stages``); B is the state now. They are compared only when their
shapes are the same — heads, queries, keys and the output's width — else ``ShapeError`` names both.
"""
from dataclasses import dataclass

import numpy as np

from .errors import ShapeError
from .plural import count
from .translatable import QT_TRANSLATE_NOOP

STAGES = ("scores", "weights", "output")
SYMBOLS = {"scores": "S", "weights": "A", "output": "O"}


@dataclass(frozen=True)
class Stages:
    """One state's ① scores (H, Lq, Lk), ② weights (H, Lq, Lk) and ③ output (Lq, D_out), own copies, and
    where its queries may not look (True = masked, (H, Lq, Lk)), or None when nothing is masked."""

    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    masked: np.ndarray | None = None

    @classmethod
    def of(cls, result, copy=True):
        """The stages of a ``PipelineResult``, copied (its buffers are rewritten by the next recompute);
        ``copy=False``: views of them, to be read at once."""
        h = result.heads
        allowed = result.allowed()
        masked = None if allowed is None else ~allowed
        return cls(*(np.array(m, dtype=np.float64, copy=copy or None) for m in (h.scores, h.weights, h.output)),
                   masked=masked)

    @property
    def shape(self):
        """(H, Lq, Lk, D_out)."""
        return (*self.scores.shape, self.output.shape[1])


def stages_shape(result):
    """(H, Lq, Lk, D_out) of a ``PipelineResult``'s stages, without copying them."""
    return (*result.heads.scores.shape, result.heads.output.shape[1])


def describe_shape(shape):
    """A stages' shape in words: "2 heads, 5 queries × 6 keys, output 5 × 4"."""
    n, lq, lk, d = shape
    return QT_TRANSLATE_NOOP("StateDiff", "{heads}, {queries} × {keys}, output {rows} × {d}").format(
        heads=count(n, "head"), n_heads=n, queries=count(lq, "query", "queries"), n_queries=lq,
        keys=count(lk, "key"), n_keys=lk, rows=lq, d=d)


def check_comparable(a_shape, b_shape, a_name="A", b_name="B"):
    """Nothing, or ``ShapeError`` naming both shapes when B − A cannot be taken cell by cell."""
    if tuple(a_shape) != tuple(b_shape):
        raise ShapeError(QT_TRANSLATE_NOOP("StateDiff", "{a} has {a_shape}; {b} has {b_shape}: the shapes must be "
                                                        "the same to subtract one from the other").format(
            a=a_name, a_shape=describe_shape(a_shape), b=b_name, b_shape=describe_shape(b_shape)))


@dataclass(frozen=True)
class Change:
    """One cell that moved: its stage, head (None for ③), row, column, value in A and in B."""

    stage: str
    head: int | None
    row: int
    col: int
    before: float
    after: float

    @property
    def delta(self):
        return self.after - self.before


ROUNDING = 1e-12  # a change this small, relative to the largest of its map, is float rounding: not a change


def largest_changes(delta, top=3):
    """The indices of the ``top`` cells of ``delta`` with the largest |value|, largest first; cells that
    did not move, or only by float rounding (``ROUNDING``), are left out (ties: the first in row-major order)."""
    flat = np.abs(np.asarray(delta, dtype=np.float64)).ravel()
    if flat.size > top:  # the top few without sorting millions: partition first
        cells = np.sort(np.argpartition(flat, flat.size - top)[flat.size - top:])
    else:
        cells = np.arange(flat.size)
    cells = cells[flat[cells] > ROUNDING * (flat[cells].max() if cells.size else 0.0)]
    order = cells[np.argsort(-flat[cells], kind="stable")][:top]
    return [np.unravel_index(i, np.shape(delta)) for i in order]


@dataclass(frozen=True)
class StageDiff:
    """B − A stage by stage, and the cells that moved most in each. A score masked in A or in B is −∞ there
    (a key the query may not see, whatever its number): its change is left at 0, named in ``masked``."""

    scores: np.ndarray  # (H, Lq, Lk)
    weights: np.ndarray
    output: np.ndarray  # (Lq, D_out)
    largest: dict  # stage → [Change], largest |B − A| first
    masked: np.ndarray | None = None  # (H, Lq, Lk): masked in A or in B

    @property
    def unchanged(self):
        return not any(self.largest.values())


def _either(a, b):
    if a is None or b is None:
        return b if a is None else a
    return a | b


def diff_stages(a, b, top=3):
    """B − A for S, A and O (``ShapeError`` when the shapes differ), with each stage's ``top`` largest changes."""
    check_comparable(a.shape, b.shape)
    masked = _either(a.masked, b.masked)
    deltas, largest = {}, {}
    for stage in STAGES:
        before, after = getattr(a, stage), getattr(b, stage)
        delta = deltas[stage] = after - before
        if stage == "scores" and masked is not None:
            delta[masked] = 0.0
        changes = []
        for index in largest_changes(delta, top):
            head, (row, col) = (None, index) if stage == "output" else (int(index[0]), index[1:])
            changes.append(Change(stage, head, int(row), int(col), float(before[index]), float(after[index])))
        largest[stage] = changes
    return StageDiff(deltas["scores"], deltas["weights"], deltas["output"], largest, masked)
