"""Undo commands: every edit of the model is one of these, so Ctrl+Z undoes it exactly."""
import numpy as np
from PySide6.QtGui import QUndoCommand

from explorer.weak import WeakAttribute

# Commands that share an id and a merge key merge into one undo step (one drag = one step). The model
# updates the newest command in place (``absorb``) while it can: merging through QUndoStack.push would
# leave the Python object of every merged command alive under PySide6 6.11.
MERGE_ID = 0x41E


class CellsCommand(QUndoCommand):
    """Write a block of values into one matrix at (top, left); keeps the old block to undo."""

    _model = WeakAttribute()  # the model's undo stack owns this: no reference back to it (a dropped model is freed at once)

    def __init__(self, model, name, top, left, new_block, text, merge_key=None):
        super().__init__(text)
        self._model, self._name, self._top, self._left = model, name, top, left
        self._new = new_block.copy()
        rows, cols = new_block.shape
        self._old = model.matrix(name)[top:top + rows, left:left + cols].copy()
        self._merge_key = merge_key

    def redo(self):
        self._model._write_block(self._name, self._top, self._left, self._new)

    def undo(self):
        self._model._write_block(self._name, self._top, self._left, self._old)

    def id(self):
        return MERGE_ID if self._merge_key is not None else -1

    def absorbs(self, name, top, left, block, merge_key):
        """Whether the next move of the same drag can update this command in place."""
        return (merge_key is not None and merge_key == self._merge_key
                and (name, top, left, block.shape) == (self._name, self._top, self._left, self._new.shape)
                and not np.array_equal(block, self._old))

    def absorb(self, block):
        """Take the drag's newest value and apply it (one undo step, without a new command object)."""
        self._new = block.copy()
        self.redo()

    def mergeWith(self, other):
        if not isinstance(other, CellsCommand) or other._merge_key != self._merge_key:
            return False
        if (other._name, other._top, other._left, other._new.shape) != (self._name, self._top, self._left,
                                                                        self._new.shape):
            return False
        self._new = other._new
        self.setObsolete(bool(np.array_equal(self._new, self._old)))  # dragged back: no step at all
        return True


class StateCommand(QUndoCommand):
    """Replace the whole state (tokens, matrices, settings) — for shape, token and settings changes."""

    _model = WeakAttribute()  # the model's undo stack owns this: no reference back to it (a dropped model is freed at once)

    def __init__(self, model, old_state, new_state, text, merge_key=None):
        super().__init__(text)
        self._model, self._old, self._new = model, old_state, new_state
        self._merge_key = merge_key

    def redo(self):
        self._model._restore(self._new)

    def undo(self):
        self._model._restore(self._old)

    def id(self):
        return MERGE_ID if self._merge_key is not None else -1

    def absorbs(self, new_state, merge_key):
        return merge_key is not None and merge_key == self._merge_key and not new_state.same_as(self._old)

    def absorb(self, new_state):
        self._new = new_state
        self.redo()

    def mergeWith(self, other):
        if not isinstance(other, StateCommand) or other._merge_key != self._merge_key:
            return False
        self._new = other._new
        self.setObsolete(self._new.same_as(self._old))
        return True
