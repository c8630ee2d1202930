"""A money-saving mechanism tried on the shown head (F18), for the Efficient attention panel: made on a worker
when the head is large (``Background``), so an edit or a drag at L = 4096 never waits for it.

The mechanism and its parameters are the panel's choice, not the session's (neither saved nor undone). The
numbers come from ``explorer.core.efficient`` (``approximate``, ``error_figures``) and, for a table larger than
a screen, its overview from ``explorer.core.pooling``. The job reads the head's scores, weights and output in
the model's results without copying them (``ResultsWork``).
"""
from dataclasses import dataclass

import numpy as np

from explorer.core.efficient import Approximation, ErrorFigures, Mechanism, approximate, error_figures, head_inputs
from explorer.core.pooling import needs_overview, overview

from .results_work import ResultsWork


@dataclass(frozen=True, eq=False)
class Tried:
    """What a mechanism made of one head: the approximation, its error figures, and its screen-sized overview."""

    mechanism: Mechanism
    head: int
    approximation: Approximation
    figures: ErrorFigures
    overview: np.ndarray | None  # of ``approximation.weights``, or None when it fits a screen
    outside: np.ndarray | None  # True where no score was computed (outside the pattern, or masked); None: none
    cells: int | None  # how many score cells the pattern computed (None: it builds no table)


class EfficientView:
    """``ask(mechanism)`` for the shown head; ``work`` (a ResultsWork) holds ``state`` and the ``Tried`` result."""

    def __init__(self, model, parent=None):
        self.model = model
        self.work = ResultsWork(model, parent)

    def ask(self, mechanism, head):
        """Try ``mechanism`` on ``head`` of the current results (at once when small, else on the worker)."""
        r = self.model.results
        n_q, n_k = r.heads.weights.shape[1:]
        q, k, v, c = head_inputs(r, head)
        cost = n_q * n_k * (q.shape[1] + v.shape[1] + 20)  # scores or features, the mix, softmax and figures
        scores, weights, output, allowed = r.heads.scores[head], r.heads.weights[head], r.heads.head_outputs[head], \
            r.allowed(head)

        def job(cancelled):
            approx = approximate(mechanism, scores, q, k, v, c, allowed, cancelled=cancelled)
            figures = None if approx is None else error_figures(approx, weights, output, cancelled=cancelled)
            if figures is None or cancelled():
                return None
            signed = mechanism.kind == "linformer" and not approx.distributions
            pooled = overview(approx.weights, signed=signed) if needs_overview(approx.weights.shape) else None
            inside = approx.computed if approx.computed is not None else None if mechanism.kind == "linformer" \
                else allowed
            cells = None if approx.computed is None else int(approx.computed.sum())
            return Tried(mechanism, head, approx, figures, pooled, None if inside is None else ~inside, cells)

        self.work.ask((head, mechanism), job, cost)
