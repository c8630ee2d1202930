"""The A of an A/B diff: a state's ① S, ② A and ③ O kept aside (the state now, or a saved session's), and
B − A of the state now, made on a worker when large (``work``, a ``Background``): an edit at the largest size
never waits for it. A view choice beside the state, like the selection: never an undo step. The job reads the
model's results without copying them (``ResultsWork``)."""
import time
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, Signal

from explorer.core.errors import ExplorerError
from explorer.core.memory_size import size_text
from explorer.core.pipeline import run_pipeline
from explorer.core.state_diff import (StageDiff, Stages, check_comparable, describe_shape, diff_stages,
                                      stages_shape)

from explorer.i18n import in_language, shown_error, translate
from explorer.weak import WeakAttribute

from .background import FAILED, READY
from .memory import free_memory, memory_allowed
from .outcome import Refusal
from .results_work import ResultsWork

# H·Lq·Lk of a state kept as A at most: 8192 tokens with 4 heads (its S and A: 4 GiB), if the memory is free
MAX_CELLS = 1 << 28
ARRAYS = 6  # (H, Lq, Lk) float64 arrays A and B − A hold: A's S and A, B − A's S and A, |B − A| while sorting out


@dataclass(frozen=True, eq=False)
class Compared:
    """B − A (``diff``) and each stage's largest |B − A|: per head for S and A (H,), one number for O."""

    diff: StageDiff
    biggest: dict


def _compare(marked, b):
    diff = diff_stages(marked, b)
    biggest = {stage: np.abs(getattr(diff, stage)).max(axis=(1, 2), initial=0.0) for stage in ("scores", "weights")}
    biggest["output"] = float(np.abs(diff.output).max(initial=0.0))
    return Compared(diff, biggest)


class Comparison(QObject):
    """``marked``: A's stages, or None; ``name`` says what A is. ``diff()`` gives B − A of the state now."""

    changed = Signal()  # A was marked, replaced or cleared
    _model = WeakAttribute()  # the model owns this: no reference back to it (a dropped model is freed at once)

    def __init__(self, model):
        super().__init__(model)
        self._model = model
        self.marked = None
        self.name = ""
        self._marks = 0  # how many times A was set: which A a diff is of
        self.work = ResultsWork(model, self)

    def _too_large(self, shape):
        n, lq, lk, _ = shape
        if n * lq * lk > MAX_CELLS:
            return Refusal(translate("ABDiff", "A state of {shape} is too large to keep as A (at most {most} weights)").format(
                shape=in_language(describe_shape(shape)), most=f"{MAX_CELLS:,}"))
        need, memory = ARRAYS * n * lq * lk * 8, memory_allowed(free_memory())
        if memory is not None and need > memory:
            return Refusal(translate("ABDiff", "A state of {shape} is too large to keep as A: it and B − A need {need}, "
                                               "and only {free} of memory is free").format(
                shape=in_language(describe_shape(shape)), need=size_text(need), free=size_text(memory)))
        return None

    def _set(self, stages, name):
        self.marked, self.name = stages, name
        self._marks += 1
        self.work.forget()
        self.changed.emit()
        return True

    def mark(self):
        """Keep the state now as A (its results are computed first if they are on the way)."""
        m = self._model
        m.flush()
        if not m.up_to_date:
            return Refusal(translate("ABDiff", "Cannot mark this state as A: its results could not be computed ({why})").format(
                why=in_language(m.failure)))
        shape = stages_shape(m.results)
        refusal = self._too_large(shape)
        if refusal is not None:
            return refusal
        return self._set(Stages.of(m.results),
                         translate("Comparison", "the state at {time}").format(time=time.strftime("%H:%M:%S")))

    def compare_with(self, session, name):
        """Keep a saved session (validated by the session reader) as A; refused, with both shapes named,
        when its stages do not have the shape of the state now (then A stays as it was)."""
        m = self._model
        try:
            result = run_pipeline(session.matrices, session.settings)
        except ExplorerError as exc:
            return Refusal(translate("ABDiff", "{name}: its stages could not be computed ({why})").format(
                name=name, why=shown_error(exc)))
        m.flush()
        if not m.up_to_date:
            return Refusal(translate("ABDiff", "Cannot compare with {name}: the results of this session could not be "
                                               "computed ({why})").format(name=name, why=in_language(m.failure)))
        shape = stages_shape(result)
        try:
            check_comparable(shape, stages_shape(m.results), name, translate("Comparison", "this session"))
        except ExplorerError as exc:
            return Refusal(translate("Comparison", "Cannot compare with {name}: {why}").format(
                name=name, why=shown_error(exc)))
        refusal = self._too_large(shape)
        if refusal is not None:
            return refusal
        return self._set(Stages.of(result), name)

    def clear(self):
        if self.marked is not None:
            self._set(None, "")

    def ask(self):
        """Ask for B − A of the state now (at once when small, else on the worker); nothing without an A or while
        the results are not the state's. ``work.state`` FAILED says why it cannot be taken (the shape changed)."""
        m = self._model
        if self.marked is None or m.pending:
            return
        marked, results, what = self.marked, m.results, (self._marks,)
        n, lq, lk, _ = marked.shape
        try:
            check_comparable(marked.shape, stages_shape(results), f"A ({self.name})", "the state now")
        except ExplorerError as exc:
            refusal = exc

            def job(cancelled):
                raise refusal
            return self.work.ask(what, job, 0)

        def job(cancelled):
            b = Stages.of(results, copy=False)
            return None if cancelled() else _compare(marked, b)
        self.work.ask(what, job, 8 * n * lq * lk)

    def diff(self):
        """B − A for the state now once made (``StageDiff``; ``work.result`` is its ``Compared``), a ``Refusal``
        saying why it cannot be taken, or None: no A, the results are not the state's yet, or it is being made."""
        self.ask()
        w = self.work
        if self.marked is None or self._model.pending:
            return None
        if w.state == FAILED:
            return Refusal(w.reason)
        return w.result.diff if w.state == READY else None
