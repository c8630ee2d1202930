"""The nudge of one cell followed through the softmax (F23), for the Sensitivity panel: made on a worker when large
(``Background``), so an edit at L = 4096 never waits for it.

The numbers come from ``explorer.core.sensitivity``; the changes are scaled by ε and their largest cells found
here too, so the panel only draws. The job reads the model's results without copying them (``ResultsWork``). A
nudge is refused, its size named, when its arrays would not fit in the memory that is free.
"""
from dataclasses import dataclass

import numpy as np

from explorer.core.errors import ShapeError
from explorer.core.memory_size import size_text
from explorer.core.sensitivity import Sensitivity, nudge_sensitivity
from explorer.core.state_diff import largest_changes

from .memory import free_memory, memory_allowed
from .results_work import ResultsWork

ARRAYS = 8  # (Lq, Lk) float64 arrays a nudge holds at once: ΔS, ΔA, the Jacobian's temporaries, ε·ΔS, ε·ΔA


@dataclass(frozen=True, eq=False)
class Nudged:
    """A nudge of ε: the derivatives (``sensitivity``), the changes ε times them by stage, and the largest ones."""

    sensitivity: Sensitivity
    epsilon: float
    changes: dict  # "scores", "weights", "output" → ε · the derivative (2-D)
    biggest: dict  # the same stages → the largest |change| (a map's range, without a pass on the GUI thread)
    masked: np.ndarray | None  # (Lq, Lk) True where the shown head's query may not look, or None
    largest_weights: list  # [(i, j)] of ΔA, largest |change| first (at most 3)
    largest_outputs: list  # [(i, j)] of ΔO


def nudge_bytes(lq, lk):
    """The memory a nudge needs beyond the session's results: ARRAYS float64 arrays of Lq × Lk."""
    return ARRAYS * int(lq) * int(lk) * 8


class SensitivityView:
    """``ask(head, what, row, col, epsilon)``; ``work`` (a ResultsWork) holds ``state`` and the ``Nudged`` result."""

    def __init__(self, model, parent=None):
        self.model = model
        self.work = ResultsWork(model, parent)

    def ask(self, head, what, row, col, epsilon):
        """Nudge the cell of the current results (at once when small, else on the worker)."""
        r = self.model.results
        n_heads, lq, lk = r.heads.weights.shape
        reach = n_heads if what == "K" else 1  # (at most: a key reaches the query heads that share it)
        cost = lq * lk * (12 * reach + 8) + lq * r.heads.output.shape[1] * lk
        memory, need = memory_allowed(free_memory()), nudge_bytes(lq, lk)

        def job(cancelled):
            if memory is not None and need > memory:
                raise ShapeError(f"Following a nudge through {lq} × {lk} weights needs {size_text(need)}, and only "
                                 f"{size_text(memory)} of memory is free for it")
            s = nudge_sensitivity(r, head, what, row, col, cancelled=cancelled)
            if s is None or cancelled():
                return None
            changes = {"scores": s.scores * epsilon, "weights": s.weights * epsilon, "output": s.output * epsilon}
            biggest = {stage: float(np.abs(change).max(initial=0.0)) for stage, change in changes.items()}
            allowed = r.allowed(head)
            return Nudged(s, float(epsilon), changes, biggest, None if allowed is None else ~allowed,
                          largest_changes(s.weights, 3), largest_changes(s.output, 3))

        self.work.ask((head, what, row, col, float(epsilon)), job, cost)
