"""The A of an A/B diff: a state's ① S, ② A and ③ O kept aside (the state now, or a saved session's), and
B − A of the state now. A view choice beside the state, like the selection: never an undo step."""
import time

from PySide6.QtCore import QObject, Signal

from explorer.core.errors import ExplorerError
from explorer.core.pipeline import run_pipeline
from explorer.core.state_diff import Stages, check_comparable, describe_shape, diff_stages, stages_shape

from explorer.weak import WeakAttribute

from .outcome import Refusal

# H·Lq·Lk of a state kept as A at most (its S and A: 64 MiB); B − A of that many takes ~0.3 s, on the GUI thread
MAX_CELLS = 1 << 22


class Comparison(QObject):
    """``marked``: A's stages, or None; ``name`` says what A is. ``diff()`` gives B − A of the state now."""

    changed = Signal()  # A was marked, replaced or cleared
    _model = WeakAttribute()  # the model owns this: no reference back to it (a dropped model is freed at once)

    def __init__(self, model):
        super().__init__(model)
        self._model = model
        self.marked = None
        self.name = ""
        self._seen = None  # (revision, A) → the diff made for them

    def _too_large(self, shape):
        n, lq, lk, _ = shape
        if n * lq * lk > MAX_CELLS:
            return Refusal(f"A state of {describe_shape(shape)} is too large to keep as A "
                           f"(at most {MAX_CELLS:,} weights)")
        return None

    def _set(self, stages, name):
        self.marked, self.name, self._seen = stages, name, None
        self.changed.emit()
        return True

    def mark(self):
        """Keep the state now as A (its results are computed first if they are on the way)."""
        m = self._model
        m.flush()
        if not m.up_to_date:
            return Refusal(f"Cannot mark this state as A: its results could not be computed ({m.failure})")
        shape = stages_shape(m.results)
        refusal = self._too_large(shape)
        if refusal is not None:
            return refusal
        return self._set(Stages.of(m.results), f"the state at {time.strftime('%H:%M:%S')}")

    def compare_with(self, session, name):
        """Keep a saved session (validated by the session reader) as A; refused, with both shapes named,
        when its stages do not have the shape of the state now (then A stays as it was)."""
        m = self._model
        try:
            result = run_pipeline(session.matrices, session.settings)
        except ExplorerError as exc:
            return Refusal(f"{name}: its stages could not be computed ({exc})")
        m.flush()
        if not m.up_to_date:
            return Refusal(f"Cannot compare with {name}: the results of this session could not be computed "
                           f"({m.failure})")
        shape = stages_shape(result)
        try:
            check_comparable(shape, stages_shape(m.results), name, "this session")
        except ExplorerError as exc:
            return Refusal(f"Cannot compare with {name}: {exc}")
        refusal = self._too_large(shape)
        if refusal is not None:
            return refusal
        return self._set(Stages.of(result), name)

    def clear(self):
        if self.marked is not None:
            self._set(None, "")

    def diff(self):
        """B − A for the state now (``StageDiff``), a ``Refusal`` saying why it cannot be taken (the shape
        changed since A), or None: no A, or the results are not the state's yet."""
        m = self._model
        if self.marked is None or m.pending:
            return None
        key = (m.revision, id(self.marked))
        if self._seen is None or self._seen[0] != key:
            try:
                check_comparable(self.marked.shape, stages_shape(m.results), f"A ({self.name})", "the state now")
                diff = diff_stages(self.marked, Stages.of(m.results, copy=False))
            except ExplorerError as exc:
                diff = Refusal(str(exc))
            self._seen = (key, diff)
        return self._seen[1]
