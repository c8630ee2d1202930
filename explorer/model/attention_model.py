"""The one shared state of the window: edits in (as undo commands), results out (one signal per turn).

In parts, one job each: the edit API (``edits.py``, ``settings_edits.py``), the undo commands
(``commands.py``), the recompute coordinator and its phases (``coordinator.py``), the lesson's state
(``lesson_state.py``) and the view selection (``state.Selection``), kept apart from the settings.
"""
import weakref
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from explorer.core.presets import demo_session
from explorer.core.session import PROJECTION_MATRICES, validate_session
from explorer.core.settings_schema import RESULTS

from .coordinator import Coordinator
from .edits import Edits
from .flags import DECODE, LESSON, SELECTION, SETTINGS, STRUCTURE, VALUES
from .lesson_state import LessonState
from .state import MATRIX_NAMES, Selection, State

UNDO_LIMIT = 1000  # undo steps kept at most
# A step may hold whole copies of the matrices (an import, a randomize, a structural edit), so big
# sessions keep fewer: about this many bytes of matrix copies, whatever the size.
UNDO_BYTES = 2 * 2**30


def undo_limit(state):
    """How many undo steps to keep for a session of this size: UNDO_LIMIT, fewer when a step that
    copies every matrix twice (before and after) would pass UNDO_BYTES together."""
    nbytes = sum(m.nbytes for m in state.matrices.values())
    return int(np.clip(UNDO_BYTES // max(2 * nbytes, 1), 20, UNDO_LIMIT))


class AttentionModel(Edits, QObject):
    """Holds tokens, Q/K/V and settings; recomputes once per event-loop turn; emits ``changed(flags)``."""

    changed = Signal(int)
    # The state changed but its results come later from the worker: panels that show the state itself
    # (the editor's rows, the controls) follow now; ``changed`` follows with the results.
    state_changed = Signal(int)
    # Newer results of the selected head's ① and ② came first, from the worker (``shown_results``); the
    # other heads and ③ follow with ``changed``. Only panels that draw the selected head's scores or
    # weights listen.
    shown_ready = Signal(int)
    message = Signal(str)  # a refused edit or a problem, for the status bar
    history_moved = Signal(int)  # an edit, an undo or a redo: the position in the undo history

    def __init__(self, session=None, parent=None, *, wait=True):
        """``session`` (default: the chapter's demo) is loaded at once. ``wait=False``: a large one is
        computed on the worker as ``load`` does it (the window's way); by default a model made on
        its own has its results when this returns, as scripts and tests expect."""
        QObject.__init__(self, parent)
        self.undo_stack = QUndoStack(self)
        self.coordinator = Coordinator(self)
        self.lesson = LessonState()
        self.selection = Selection()
        self.backgrounds = weakref.WeakSet()  # the views' own computations off this thread (``Background``)
        self._comparison = None
        self._settings_seen = None  # (state settings, selection, the two merged): ``settings``' cache
        self._transaction = None
        self._checkpoints = None
        self._flow_back = None
        self._gesture = None
        self._gesture_count = 0
        self.loads = 0  # sessions loaded so far: a panel knows whether its drawing is of this one
        self.revision = 0  # grows with every change the results depend on (a cell, a setting, a load): a cache key
        self.title = ""
        self.shuffle = None  # the last "shuffle tokens": its permutation and the output before it
        self.refusal = None  # the last refusal said: an edit accepted after it leaves it stale
        self.undo_stack.indexChanged.connect(self._forget_shuffle)
        self.undo_stack.indexChanged.connect(self.history_moved)
        self.load(session if session is not None else demo_session(), wait=wait)

    # ----- reading -------------------------------------------------------------------------------
    @property
    def state(self):
        """The current tokens, matrices and computation settings (read it, never write it)."""
        return self._state

    @property
    def tokens(self):
        """The keys' (and values') tokens; in self-attention the queries' too."""
        return self._state.tokens

    @property
    def query_tokens(self):
        """The tokens that ask (the rows of Q, the scores and the output)."""
        return self._state.queries

    @property
    def cross(self):
        """True in a cross-attention session (queries from one sequence, keys and values from another)."""
        return self._state.cross

    @property
    def settings(self):
        """The settings with the view selection in ``selected_row`` and ``selected_head``."""
        s, sel = self._state.settings, self.selection
        seen = self._settings_seen
        if seen is None or seen[0] is not s or seen[1] != sel:
            seen = self._settings_seen = (s, sel, replace(s, selected_row=sel.row, selected_head=sel.head))
        return seen[2]

    def matrix(self, name):
        """The live array of Q, K, V, X or a W (read it, never write it: edits go through ``set_cell``)."""
        return self._state.matrices[name]

    def has(self, name):
        return name in self._state.matrices

    @property
    def projected(self):
        return self._state.settings.source == "projected"

    def editable(self):
        """The matrices a person edits now: Q, K, V, or X and the projections."""
        return PROJECTION_MATRICES if self.projected else MATRIX_NAMES

    def widths(self):
        """(Q/K width, V width) of the attention actually computed."""
        return self._state.widths()

    @property
    def session_title(self):
        """What the session is called (the window's title, what a save writes): while it is a real model's head,
        that head ("layer 2 head 1 of tiny-induction"), part of the state so an undo names the session before;
        else the title it was loaded with."""
        head = self._state.model_head
        return head.describe() if head is not None else self.title

    def to_session(self, layout=None):
        return self._state.to_session(title=self.session_title, layout=layout, selection=self.selection)

    def demo_state(self):
        return State.from_session(demo_session())

    def history_index(self):
        """Where the undo history stands: two equal values mean no edit, undo or redo in between."""
        return self.undo_stack.index()

    def is_saved(self):
        return self.undo_stack.isClean()

    def mark_saved(self):
        """The current state is what the file holds (after a save)."""
        self.undo_stack.setClean()

    # ----- the results (from the coordinator) ----------------------------------------------------
    results = property(lambda self: self.coordinator.results,
                       lambda self, value: setattr(self.coordinator, "results", value))
    pending = property(lambda self: self.coordinator.pending,
                       doc="True while the results do not describe the state: panels that draw them wait.")
    computing = property(lambda self: self.coordinator.computing,
                         doc="True while the worker is computing results the window has not shown yet.")
    loading = property(lambda self: self.coordinator.loading,
                       doc="True from loading a large session until its results arrive (or one succeeds "
                           "after a failure): ``results`` are still another session's.")

    def shown_results(self):
        """The results to draw the selected head's ① and ② from: newer than ``results`` while the worker
        makes the other heads (a partial result: ③ and the other heads are not there), or ``results``;
        None while there are none to draw (``pending`` and no partial result of this head)."""
        return self.coordinator.shown(self.selection.head)

    def repeats(self, earlier, later):
        """Whether the results ``later`` hold the very ① and ② numbers the partial result ``earlier`` held
        (they complete it): a panel that drew ``earlier`` need not draw them again."""
        return self.coordinator.repeats(earlier, later)

    edited = property(lambda self: self.coordinator.edited,
                      doc="With ``changed``: {matrix: (rows, cols)} written since the last one, or None.")
    flushing = property(lambda self: self.coordinator.flushing)

    @property
    def failure(self):
        """Why the last recompute failed ("not enough memory at this size"), or None."""
        return self.coordinator.failure if self.coordinator.failed else None

    @property
    def up_to_date(self):
        """True when ``results`` are those of the current state (what exports and screenshots need)."""
        return not self.coordinator.pending and not self.coordinator.computing and not self.coordinator.failed

    def flush(self):
        """Have the results of the current state now; check ``up_to_date`` after it (it may fail)."""
        self.coordinator.flush()

    def recompute(self, wait=False, snapshot=None):
        self.coordinator.recompute(wait=wait, snapshot=snapshot)

    def shutdown(self):
        """Stop the worker threads (the window calls this when it closes)."""
        self.coordinator.stop()
        if self._flow_back is not None:
            self._flow_back.shutdown()
        if self._checkpoints is not None:
            self._checkpoints.shutdown()
        for background in list(self.backgrounds):
            background.shutdown()

    @property
    def checkpoints(self):
        """The real model opened beside the session (made on first use: nothing loads until asked)."""
        if self._checkpoints is None:
            from .checkpoints import Checkpoints  # (with the model readers: not imported at start-up)

            self._checkpoints = Checkpoints(self)
        return self._checkpoints

    @property
    def comparison(self):
        """The A of an A/B diff (a view choice, never an undo step): made on first use — its module, the
        state diff's and its worker's are not imported at start-up."""
        if self._comparison is None:
            from .comparison import Comparison

            self._comparison = Comparison(self)
        return self._comparison

    @property
    def flow_back(self):
        """What the open model says next with the session in place of the head it came from (F25)."""
        if self._flow_back is None:
            from .flow_back import FlowBack

            self._flow_back = FlowBack(self, self.checkpoints, self)
        return self._flow_back

    # ----- loading -------------------------------------------------------------------------------
    def load(self, session, wait=False, *, validated=False):
        """Replace everything with ``session`` (validated); clears undo history and marks it saved.

        A session whose whole recompute is cheap (the demo, the presets) has its results when this
        returns. A larger one goes to the worker, so the window stays responsive: ``state_changed``
        tells the editor and the controls now; ``loading``, ``pending`` and ``computing`` are True
        until its results come with ``changed``; ``flush()`` gets them at once. ``wait=True``:
        computed here. ``validated=True``: ``session`` comes from ``load_session`` or
        ``validate_session`` and is not checked again (its arrays are read-only, so it stays valid).
        """
        if self._transaction is not None:
            raise RuntimeError("a session cannot be loaded inside a transaction (it would be undone with it)")
        if not validated:
            session = validate_session(session)
        self.loads += 1
        s = session.settings
        # A session's arrays are read-only copies of its own (``Session``): ``_origin`` (what Reset goes
        # back to, and what the worker reads) shares them; edits write into ``_state``'s copy.
        head = session.model_head
        if head is not None:  # a real model's head, saved: found again by folder, its logits computed again
            from explorer.models.flow_back import HeadSource
            head = HeadSource.from_saved(head)
        self._origin = State(tokens=tuple(session.tokens), matrices=dict(session.matrices),
                             settings=replace(s, selected_row=0, selected_head=0),
                             query_tokens=None if session.query_tokens is None else tuple(session.query_tokens),
                             model_head=head)
        self._state = self._origin.copy()
        self.revision += 1
        self.selection = Selection(s.selected_row, s.selected_head)
        self.title = session.title
        self.shuffle = None
        self.lesson.reset()  # a new session starts outside any lesson
        self.undo_stack.clear()
        self.undo_stack.setUndoLimit(undo_limit(self._state))  # only allowed on an empty stack
        self.undo_stack.setClean()
        self.coordinator.schedule(STRUCTURE | VALUES | SETTINGS | SELECTION | LESSON | DECODE)
        self.coordinator.load(wait, snapshot=self._origin.matrices)  # never written: no copy for the worker

    def expect(self, spare):
        """The next session loaded may write its results into ``spare`` (``core.spare_buffers``: made,
        their shown head's memory touched, while its file was read); None: forget any such."""
        self.coordinator.expect(spare)

    def shown_drawn(self):
        """The window has drawn a loading session's shown head (``shown_ready``): the worker, which waited
        so the drawing had the cores to itself, goes on with the other heads."""
        self.coordinator.shown_drawn()

    def results_shape(self):
        """(H, Lq, Lk) of the results' scores, whose buffers a session of that shape reuses; or None."""
        results = self.coordinator.results
        return None if results is None else tuple(results.heads.scores.shape)

    # ----- the view: selection and lesson (never undo steps) -------------------------------------
    def set_selection(self, row=None, head=None, key=None):
        """Choose the query row and head the panels focus on (saved with the session, not an undo step) and
        the key (a heatmap's column: a view choice, not saved)."""
        sel = self.selection
        row = sel.row if row is None else int(np.clip(row, 0, len(self.query_tokens) - 1))
        head = sel.head if head is None else int(np.clip(head, 0, self._state.settings.heads - 1))
        key = sel.key if key is None else int(np.clip(key, 0, len(self.tokens) - 1))
        if (row, head, key) != (sel.row, sel.head, sel.key):
            self.selection = Selection(row, head, key)
            self.coordinator.schedule(SELECTION)

    revealed = property(lambda self: self.lesson.revealed,
                        doc="How many of the stages ①②③ the panels show (a lesson hides later ones).")
    guesses = property(lambda self: self.lesson.guesses,
                       doc="stage → (row, col): the cell the reader clicked before revealing that stage.")

    def set_revealed(self, stages):
        """Show ``stages`` of ①②③ (the lesson hides later ones until revealed)."""
        if self.lesson.reveal(stages):
            self.coordinator.schedule(LESSON)

    def set_guess(self, stage, row, col):
        """Record the cell the reader expects to be darkest in a hidden stage (guess first, then reveal)."""
        if self.lesson.guess(stage, row, col):
            self.set_selection(row=row)
            self.coordinator.schedule(LESSON)

    def notify(self, text):
        """Pass a refusal (e.g. of a typed value or an edit) to the status bar; it is ``refusal`` until the next."""
        self.refusal = text
        self.message.emit(text)

    # ----- internals used by the undo commands ---------------------------------------------------
    def _write_block(self, name, top, left, block):
        self.revision += 1
        rows, cols = block.shape
        tx = self._transaction
        if tx is not None and name not in tx.copied:  # never write into the state a transaction may restore
            self._state.matrices[name] = self._state.matrices[name].copy()
            tx.copied.add(name)
        self._state.matrices[name][top:top + rows, left:left + cols] = block
        self.coordinator.wrote(name, range(top, top + rows), range(left, left + cols))
        self.coordinator.schedule(VALUES)

    def _restore(self, state):
        tx = self._transaction
        if tx is not None:
            # Inside a transaction (an edit, or an undo or redo): the state coming in may be one an undo
            # step holds, even the one the transaction began with. Its cell writes copy before writing.
            state = replace(state, matrices=dict(state.matrices))
            tx.copied.clear()
        old, self._state = self._state, state
        self.selection = self.selection.clamped(len(state.queries), state.settings.heads, len(state.tokens))
        flags = SETTINGS
        if old.tokens != state.tokens or old.query_tokens != state.query_tokens:
            flags |= STRUCTURE  # labels changed; a rename keeps the shape (and the lesson's guesses)
        if (len(old.tokens) != len(state.tokens) or len(old.queries) != len(state.queries)
                or old.matrices.keys() != state.matrices.keys()
                or old.settings.source != state.settings.source
                or any(old.matrices[k].shape != state.matrices[k].shape for k in state.matrices)):
            flags |= STRUCTURE | VALUES
            if self.lesson.forget_guesses():  # a guess names a cell by index; after a shape change it may be gone
                flags |= LESSON
        elif any(old.matrices[k] is not state.matrices[k] for k in state.matrices):
            flags |= VALUES
        if flags == SETTINGS and old.settings != state.settings and all(
                getattr(old.settings, n) == getattr(state.settings, n) for n in RESULTS):
            flags = DECODE  # only settings the results do not depend on (the decode step): no recompute
        else:
            self.revision += 1
        self.coordinator.whole()
        self.coordinator.schedule(flags | SELECTION)
