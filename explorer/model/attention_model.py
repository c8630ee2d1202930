"""The one shared state of the window: edits in (as undo commands), results out (one signal per turn)."""
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoStack

from explorer.core import head_count_options
from explorer.core.errors import ExplorerError
from explorer.core.recompute import apply_edit, edit_cost, full_cost, recompute
from explorer.core.presets import demo_session
from explorer.core.permutation import permutation_check, shuffle_permutation
from explorer.core.session import (MAX_ABS_VALUE, MAX_DIM, MAX_TOKEN_CHARS, MAX_TOKENS, POSITIONS,
                                   PROJECTION_MATRICES, ROPE_BASE_MAX, ROPE_BASE_MIN, ROPE_OFFSET_MAX,
                                   ROPE_STYLES, SCALE_MODES, SOURCES, TEMPERATURE_MAX, TEMPERATURE_MIN,
                                   validate_session)
from explorer.core.structure import (AXIS_NAMES, WIDTH_AXES, axis_length, delete_along, insert_along,
                                     permute_tokens, projections_reproducing)

from .commands import CellsCommand, StateCommand
from .state import MATRIX_NAMES, State
from .worker import RecomputeWorker, one_blas_thread

# What a change touched, passed with ``changed`` so panels redraw only what they must.
STRUCTURE, VALUES, SETTINGS, SELECTION, LESSON = 1, 2, 4, 8, 16
ALL_STAGES = 3  # ① scores, ② weights, ③ output: how many stages the lesson has revealed

# Work (≈ multiply-adds) above which a recompute leaves the GUI thread: ~5 ms of NumPy on one core.
BACKGROUND_COST = 20_000_000
# Results above this many bytes are recomputed into their own buffers (no second copy in memory);
# smaller ones get fresh buffers, so panels can keep drawing the last result while the next is made.
REUSE_BYTES = 256 * 2**20
UNDO_LIMIT = 1000  # undo steps kept at most
# A step may hold whole copies of the matrices (an import, a randomize, a structural edit), so big
# sessions keep fewer: about this many bytes of matrix copies, whatever the size.
UNDO_BYTES = 2 * 2**30

PARAM_LABELS = {"scale_mode": "scale mode", "scale": "scale", "temperature": "temperature",
                "causal": "causal mask", "heads": "heads", "source": "source of Q, K, V",
                "positions": "positions", "rope": "RoPE", "rope_base": "RoPE base",
                "rope_style": "RoPE convention", "rope_offset": "RoPE offset"}


def undo_limit(state):
    """How many undo steps to keep for a session of this size: UNDO_LIMIT, fewer when a step that
    copies every matrix twice (before and after) would pass UNDO_BYTES together."""
    nbytes = sum(m.nbytes for m in state.matrices.values())
    return int(np.clip(UNDO_BYTES // max(2 * nbytes, 1), 20, UNDO_LIMIT))


def _bounds(dirty):
    """{matrix: (range of rows, range of columns)} enclosing every written block."""
    out = {}
    for name, rows, cols in dirty:
        r0, c0 = out.get(name, ((rows.start, rows.stop), (cols.start, cols.stop)))
        out[name] = ((min(r0[0], rows.start), max(r0[1], rows.stop)), (min(c0[0], cols.start), max(c0[1], cols.stop)))
    return {name: (range(*r), range(*c)) for name, (r, c) in out.items()}


class AttentionModel(QObject):
    """Holds tokens, Q/K/V and settings; recomputes once per event-loop turn; emits ``changed(flags)``."""

    changed = Signal(int)
    # The state changed but its results come later from the worker: panels that show the state itself
    # (the editor's rows, the controls) follow now; ``changed`` follows with the results.
    state_changed = Signal(int)
    message = Signal(str)  # a refused edit or a problem, for the status bar

    def __init__(self, session=None, parent=None, *, wait=True):
        """``session`` (default: the chapter's demo) is loaded at once. ``wait=False``: a large one is
        computed on the worker as ``load`` does it (the window's way); by default a model made on
        its own has its results when this returns, as scripts and tests expect."""
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.recompute)
        self._pending = 0
        self._dirty = []  # (matrix, rows, cols) written since the last recompute; None = recompute whole
        self._worker = RecomputeWorker(self)
        self._worker.done.connect(self._on_worker_done)
        self._generation = 0  # of the newest request given to the worker
        self._accept_from = 0  # worker results of older requests are dropped (another shape, or overtaken)
        self._waiting = 0  # flags of the changes whose results the worker is still computing
        self._rewriting = False  # ``results``' buffers are being (or were half) rewritten: not to be read
        self._failed = 0  # flags of changes whose recompute failed: announced with the next results
        self._failure = None  # why the last recompute failed, until one succeeds
        self._loading = False  # a large session was loaded and none of its results have arrived yet
        self.loads = 0  # sessions loaded so far: a panel knows whether its drawing is of this one
        self.flushing = False  # True while ``flush()`` runs (its ``changed`` is wanted on screen now)
        # With ``changed``: {matrix: (rows, cols)} bounding the cells written since the last one, or
        # None when anything may have changed (the editor then re-reads whole tables).
        self.edited = None
        self._gesture = None
        self._gesture_count = 0
        self.title = ""
        self.results = None
        self.revealed = ALL_STAGES  # the explorer shows every stage; a lesson may hide later ones
        self.guesses = {}  # stage → (row, col) the reader clicked before revealing it
        self.shuffle = None  # the last "shuffle tokens": its permutation and the output before it
        self.undo_stack.indexChanged.connect(self._forget_shuffle)
        self.load(session if session is not None else demo_session(), wait=wait)

    # ----- reading -------------------------------------------------------------------------------
    @property
    def tokens(self):
        return self._state.tokens

    @property
    def settings(self):
        return self._state.settings

    def matrix(self, name):
        """The live array of Q, K, V, X or a W (read it, never write it: edits go through ``set_cell``)."""
        return self._state.matrices[name]

    def has(self, name):
        return name in self._state.matrices

    @property
    def projected(self):
        return self.settings.source == "projected"

    def editable(self):
        """The matrices a person edits now: Q, K, V, or X and the projections."""
        return PROJECTION_MATRICES if self.projected else MATRIX_NAMES

    def widths(self):
        """(Q/K width, V width) of the attention actually computed."""
        if self.projected:
            return self.matrix("Wq").shape[0], self.matrix("Wv").shape[0]
        return self.matrix("Q").shape[1], self.matrix("V").shape[1]

    def head_options(self):
        """The head counts that divide both the Q/K width and the V width (and leave d_h even under RoPE)."""
        options = head_count_options(*self.widths())
        if self.settings.rope:
            options = [h for h in options if (self.widths()[0] // h) % 2 == 0]
        return options

    def rope_problem(self, heads=None):
        """Why RoPE cannot be on with ``heads`` heads (odd d_h), or None."""
        d_head = self.widths()[0] // (heads or self.settings.heads)
        if d_head % 2:
            return (f"RoPE rotates pairs of dimensions, but each head's Q/K width d_h = {d_head} is odd: "
                    f"choose another number of heads or an even width")
        return None

    def to_session(self, layout=None):
        return self._state.to_session(title=self.title, layout=layout)

    # ----- loading -------------------------------------------------------------------------------
    def load(self, session, wait=False, *, validated=False):
        """Replace everything with ``session`` (validated); clears undo history and marks it saved.

        A session whose whole recompute is cheap (≤ BACKGROUND_COST: the demo, the presets) has its
        results when this returns, as always. A larger one goes to the worker, so the window stays
        responsive for the seconds an L = 4096 session takes: ``state_changed`` tells the editor and
        the controls now; ``loading``, ``pending`` and ``computing`` are True until its results come
        with ``changed``; ``flush()`` gets them at once. Meanwhile ``results`` still holds the
        previous session's, which nothing may read (``pending``). ``wait=True``: computed here.
        ``validated=True``: ``session`` comes from ``load_session`` or ``validate_session`` and is not
        checked again (its arrays are read-only, so it stays valid; 20–80 ms saved at L = 4096).
        """
        if not validated:
            session = validate_session(session)
        self.loads += 1
        # A session's arrays are read-only copies of its own (``Session``): ``_origin`` (what Reset goes
        # back to, and what the worker reads below) shares them; edits write into ``_state``'s copy.
        self._origin = State(tokens=tuple(session.tokens), matrices=dict(session.matrices),
                             settings=session.settings)
        self._state = self._origin.copy()
        self.title = session.title
        self.shuffle = None
        self.revealed, self.guesses = ALL_STAGES, {}  # a new session starts outside any lesson
        self.undo_stack.clear()
        self.undo_stack.setUndoLimit(undo_limit(self._state))  # only allowed on an empty stack
        self.undo_stack.setClean()
        self._dirty = None
        self._schedule(STRUCTURE | VALUES | SETTINGS | SELECTION | LESSON)
        if wait or full_cost(self._state.matrices, self.settings) <= BACKGROUND_COST:
            self.recompute(wait=True)  # a small session is never shown without its results
            return
        if self.results is None:
            # The window's first session. The editor builds its read-only X·Wᵀ tables from
            # ``results`` when it first shows a projected session: give it the demo's (~1 ms, never
            # drawn while ``pending``) rather than None, as if the window had opened this on the demo.
            demo = State.from_session(demo_session())
            self.results = recompute(demo.matrices, demo.settings)
        self._loading = True
        self.recompute(snapshot=self._origin.matrices)  # never written: no copy for the worker

    # ----- edits (each one undoable) -------------------------------------------------------------
    def set_cell(self, name, i, j, value):
        """Set one cell of Q, K or V; returns False (and says why) when the value is refused."""
        return self.set_block(name, i, j, np.array([[value]], dtype=np.float64))

    def set_block(self, name, top, left, block):
        """Write a 2-D block (a paste) as one undo step; refused whole if any value is bad or it sticks out."""
        block = np.asarray(block, dtype=np.float64)
        if block.ndim != 2 or name not in self._state.matrices:
            return self._refuse(f"cannot write a block of shape {block.shape} into {name}")
        if name not in self.editable():
            return self._refuse(f"{name} is computed from X and W_{name.lower()} in projected mode: "
                                f"edit X or W_{name.lower()} instead")
        arr = self.matrix(name)
        rows, cols = block.shape
        if top < 0 or left < 0 or top + rows > arr.shape[0] or left + cols > arr.shape[1]:
            return self._refuse(f"{name}: a {rows}×{cols} block at row {top}, column d{left} does not fit "
                                f"in the {arr.shape[0]}×{arr.shape[1]} matrix")
        bad = ~np.isfinite(block) | (np.abs(block) > MAX_ABS_VALUE)
        if bad.any():
            r, c = (int(x) for x in np.argwhere(bad)[0])
            return self._refuse(f"{name}[{self._row_name(name, top + r)}, d{left + c}]: {block[r, c]} is not a finite "
                                f"number within ±{MAX_ABS_VALUE:g}")
        if np.array_equal(arr[top:top + rows, left:left + cols], block):
            return True
        where = (f"{name}[{self._row_name(name, top)}, d{left}]" if block.size == 1
                 else f"{rows}×{cols} block of {name}")
        top_command = self._open_command(CellsCommand)
        if top_command is not None and top_command.absorbs(name, top, left, block, self._gesture):
            top_command.absorb(block)
            return True
        self.undo_stack.push(CellsCommand(self, name, top, left, block, f"Edit {where}", self._gesture))
        return True

    def set_param(self, name, value):
        """Change one setting (scale mode, scale, temperature, causal, heads); validated, undoable."""
        value = self._check_param(name, value)
        if value is None:
            return False
        if getattr(self.settings, name) == value:
            return True
        changes = {name: value}
        if name == "heads":
            changes["selected_head"] = min(self.settings.selected_head, value - 1)
        state = self._state.with_settings(**changes)
        if name == "source":
            state = self._switch_source(state, value)
        label = PARAM_LABELS[name]
        self._push_state(state, f"Set {label} to {value}")
        return True

    def _switch_source(self, state, source):
        """Projected for the first time: X and W that reproduce the current Q, K, V exactly."""
        mats = state.matrices
        if source == "projected" and "X" not in mats:
            mats = {**mats, **projections_reproducing(mats["Q"], mats["K"], mats["V"])}
        if source == "direct":
            state = state.with_settings(positions="none")
        return self._with_heads_fitting(replace(state, matrices=mats))

    def set_selection(self, row=None, head=None):
        """Choose the query row and head the panels focus on (saved with the session, not an undo step)."""
        s = self.settings
        row = s.selected_row if row is None else int(np.clip(row, 0, len(self.tokens) - 1))
        head = s.selected_head if head is None else int(np.clip(head, 0, s.heads - 1))
        if (row, head) == (s.selected_row, s.selected_head):
            return
        self._state = self._state.with_settings(selected_row=row, selected_head=head)
        self._schedule(SELECTION)

    def set_revealed(self, stages):
        """How many of the stages ①②③ the panels show (the lesson hides later ones until revealed)."""
        stages = int(np.clip(stages, 0, ALL_STAGES))
        if stages != self.revealed:
            if stages < self.revealed:
                self.guesses = {k: v for k, v in self.guesses.items() if k <= stages}
            self.revealed = stages
            self._schedule(LESSON)

    def set_guess(self, stage, row, col):
        """Record the cell the reader expects to be darkest in a hidden stage (guess first, then reveal)."""
        if stage > self.revealed and self.guesses.get(stage) != (row, col):
            self.guesses = {**self.guesses, stage: (int(row), int(col))}
            self.set_selection(row=row)
            self._schedule(LESSON)

    def swap_tokens(self, name, i, j):
        """Swap rows i and j of one matrix (e.g. K) — the pattern of who looks at whom follows (undoable)."""
        if i == j:
            return True
        mats = dict(self._state.matrices)
        mats[name] = mats[name].copy()
        mats[name][[i, j]] = mats[name][[j, i]]
        self._push_state(replace(self._state, matrices=mats),
                         f"Swap rows {self.tokens[i]} and {self.tokens[j]} of {name}")
        return True

    def rename_token(self, i, text):
        text = str(text).strip()
        if not text or len(text) > MAX_TOKEN_CHARS or any(ord(c) < 32 for c in text):
            return self._refuse(f"token {i + 1}: a name must be 1–{MAX_TOKEN_CHARS} printable characters")
        if text == self.tokens[i]:
            return True
        tokens = self.tokens[:i] + (text,) + self.tokens[i + 1:]
        self._push_state(replace(self._state, tokens=tokens), f"Rename token {self.tokens[i]} → {text}")
        return True

    def add_token(self, at=None, name=None):
        """Insert a token (a zero row in Q, K and V together) before index ``at`` (default: at the end)."""
        n = len(self.tokens)
        if n >= MAX_TOKENS:
            return self._refuse(f"cannot add a token: at most {MAX_TOKENS} tokens")
        at = n if at is None else int(np.clip(at, 0, n))
        name = name or self._fresh_token_name()
        mats = insert_along(self._state.matrices, "L", at)
        tokens = self.tokens[:at] + (name,) + self.tokens[at:]
        self._push_state(replace(self._state, tokens=tokens, matrices=mats), f"Add token {name}")
        row = self.settings.selected_row
        self.set_selection(row=row + 1 if at <= row else row)  # keep the same token selected
        return True

    def remove_token(self, i):
        n = len(self.tokens)
        if n <= 1:
            return self._refuse("cannot remove the last token: attention needs at least one")
        mats = delete_along(self._state.matrices, "L", i)
        tokens = self.tokens[:i] + self.tokens[i + 1:]
        row = self.settings.selected_row
        self._push_state(replace(self._state, tokens=tokens, matrices=mats), f"Remove token {self.tokens[i]}")
        self.set_selection(row=row - 1 if i < row else row)
        return True

    def add_dim(self, group, at=None):
        """Widen one axis: ``"qk"`` the Q/K width, ``"v"`` the V width; projected also ``"x"`` (D of X and
        every W) and ``"out"`` (rows of W_o). Every matrix on that axis gets a slice of zeros."""
        axis = WIDTH_AXES[self.settings.source].get(group)
        if axis is None:
            return self._refuse(f"there is no {group!r} width to change in {self.settings.source} mode")
        width = axis_length(axis, self._state.matrices)
        if width >= MAX_DIM:
            return self._refuse(f"cannot add a dimension to {AXIS_NAMES[axis]}: at most {MAX_DIM}")
        at = width if at is None else int(np.clip(at, 0, width))
        mats = insert_along(self._state.matrices, axis, at)
        self._push_state(self._with_heads_fitting(replace(self._state, matrices=mats)),
                         f"Add a dimension to {AXIS_NAMES[axis]}")
        return True

    def remove_dim(self, group, at=None):
        axis = WIDTH_AXES[self.settings.source].get(group)
        if axis is None:
            return self._refuse(f"there is no {group!r} width to change in {self.settings.source} mode")
        width = axis_length(axis, self._state.matrices)
        if width <= 1:
            return self._refuse(f"cannot remove the last dimension of {AXIS_NAMES[axis]}")
        at = width - 1 if at is None else int(np.clip(at, 0, width - 1))
        mats = delete_along(self._state.matrices, axis, at)
        self._push_state(self._with_heads_fitting(replace(self._state, matrices=mats)),
                         f"Remove dimension {at} of {AXIS_NAMES[axis]}")
        return True

    def shuffle_tokens(self, seed=0):
        """Reorder the tokens (rows of Q, K, V and X) by a seeded permutation, as one undo step.

        The output before is kept, so ``shuffle_result()`` can show that without positions (and
        without a causal mask) the new output is the old one permuted the same way.
        """
        perm = shuffle_permutation(len(self.tokens), seed)
        self.flush()
        if not self.up_to_date:  # no output to compare with (its recompute failed: not enough memory)
            return self._refuse(f"Cannot shuffle the tokens: the attention of this session could not be "
                                f"computed ({self.failure})")
        before = self.results.heads.output.copy()
        mats = permute_tokens(self._state.matrices, perm)
        tokens = tuple(self.tokens[p] for p in perm)
        row = int(np.argsort(perm)[self.settings.selected_row])  # keep the same token selected
        self._push_state(replace(self._state, tokens=tokens, matrices=mats), "Shuffle tokens")
        self.set_selection(row=row)
        self.shuffle = (perm, before, self.undo_stack.index())
        return True

    def _forget_shuffle(self, index):
        """Any undo, redo or edit after a shuffle makes its before/after comparison meaningless."""
        if self.shuffle is not None and index != self.shuffle[2]:
            self.shuffle = None

    def shuffle_result(self):
        """The check of the last shuffle against the current output, or None (also when the output
        could not be computed)."""
        if self.shuffle is None:
            return None
        perm, before, _ = self.shuffle
        self.flush()
        if not self.up_to_date:
            return None
        return permutation_check(before, self.results.heads.output, perm)

    def randomize(self, seed=0, names=None):
        """Fill the chosen matrices (default: the editable ones) with seeded standard-normal numbers."""
        rng = np.random.default_rng(int(seed))
        mats = dict(self._state.matrices)
        names = self.editable() if names is None else names
        for k in names:
            mats[k] = rng.standard_normal(mats[k].shape).round(3)
        self._push_state(replace(self._state, matrices=mats), f"Randomize {', '.join(names)} (seed {seed})")

    def reset_to_preset(self):
        """Go back to the session as it was opened (undoable)."""
        self._push_state(self._origin.copy(), "Reset to preset")

    def set_session(self, session, text="Set up the demo"):
        """Take ``session``'s tokens, Q/K/V and settings as ONE undo step (unlike ``load``: the file,
        the undo history and the preset Reset goes back to stay; the selection stays too)."""
        new = State.from_session(validate_session(session))
        if not new.same_as(self._state.with_settings(selected_row=new.settings.selected_row,
                                                     selected_head=new.settings.selected_head)):
            self._push_state(new, text)

    def replace_matrix(self, name, array):
        """Put an imported array in place of Q, K or V; its shape must fit the others."""
        array = np.asarray(array, dtype=np.float64)
        if name not in self.editable():
            return self._refuse(f"{name} is computed from X and W_{name.lower()} in projected mode: import X or "
                                f"W_{name.lower()} instead, or switch Q, K, V back to direct")
        mats = dict(self._state.matrices)
        mats[name] = array
        candidate = replace(self._state, matrices=mats)
        try:
            validate_session(candidate.to_session(), where=f"imported {name}")
        except ExplorerError as exc:
            return self._refuse(str(exc))
        self._push_state(self._with_heads_fitting(candidate), f"Import {name} {array.shape[0]}×{array.shape[1]}")
        return True

    def replace_inputs(self, matrices, tokens=None):
        """Put new Q, K and V in place at once (their shapes may all change); tokens default to t0, t1, …"""
        mats = {**self._state.matrices,
                **{n: np.asarray(matrices[n], dtype=np.float64) for n in MATRIX_NAMES}}
        length = mats["Q"].shape[0]
        if tokens is None:
            tokens = self.tokens if len(self.tokens) == length else tuple(f"t{i}" for i in range(length))
        candidate = replace(self._state, tokens=tuple(tokens), matrices=mats)
        candidate = self._with_heads_fitting(
            candidate.with_settings(selected_row=min(self.settings.selected_row, length - 1)))
        try:
            validate_session(candidate.to_session(), where="imported Q, K, V")
        except ExplorerError as exc:
            return self._refuse(str(exc))
        self._push_state(candidate,
                         f"Import Q, K, V ({length} tokens, d = {mats['Q'].shape[1]}, d_v = {mats['V'].shape[1]})")
        return True

    @contextmanager
    def macro(self, text):
        """Make every edit inside one undo step named ``text`` (a button that changes several things)."""
        self.undo_stack.beginMacro(text)
        try:
            yield
        finally:
            self.undo_stack.endMacro()

    def begin_gesture(self):
        """Group every edit until ``end_gesture`` (a drag, a slider held down) into one undo step."""
        self._gesture_count += 1
        self._gesture = ("gesture", self._gesture_count)

    def end_gesture(self):
        self._gesture = None

    # ----- recompute -----------------------------------------------------------------------------
    def recompute(self, wait=False, snapshot=None):
        """Bring the results up to date and announce them once: in place for a small edit, on the GUI
        thread when cheap, else on the worker (``state_changed`` now, ``changed`` when it is done).
        ``wait=True`` never defers: tests, screenshots and exports need the numbers now.
        ``snapshot``: the current matrices where no edit can reach them (else the worker gets copies)."""
        self._timer.stop()
        flags, self._pending = self._pending, 0
        dirty, self._dirty = self._dirty, []
        if not flags:
            return
        self.edited = _bounds(dirty) if dirty and not flags & (STRUCTURE | SETTINGS) else None
        if flags & (STRUCTURE | VALUES | SETTINGS):
            try:
                edited = self._apply_edits(dirty, wait) if not flags & ~(VALUES | SELECTION | LESSON) else None
                if edited == "deferred":
                    self._waiting |= flags
                    self.state_changed.emit(flags)
                    return
                if edited is None:
                    if full_cost(self._state.matrices, self.settings) <= BACKGROUND_COST:
                        flags |= self._compute_here()
                    elif not wait:
                        self._submit(flags, snapshot)
                        self.state_changed.emit(flags)
                        return
                    else:
                        one_blas_thread()  # large work on this thread too: no BLAS threads fighting it
                        flags |= self._compute_here(**self._worker.sharing())
            except (ExplorerError, MemoryError) as exc:
                self._fail(flags, exc)
                self.state_changed.emit(flags)
                return
        if flags & (STRUCTURE | VALUES | SETTINGS):
            self._announce(flags)  # new results
        else:
            self.changed.emit(flags)  # a selection or the lesson: a failure stays to be tried again

    def _announce(self, flags):
        """``changed`` with these flags and those of any change whose recompute failed before: only
        with new results (a failure stays until a recompute succeeds, so ``flush`` tries again)."""
        flags, self._failed, self._failure = flags | self._failed, 0, None
        self.changed.emit(flags)

    def _fail(self, flags, exc):
        """A recompute failed: the old results stay (panels check ``pending`` before reading them),
        the next recompute is whole, and the change is announced with the next results."""
        self._dirty = None
        self._failed |= flags
        reason = exc if isinstance(exc, ExplorerError) else "not enough memory at this size"
        self._failure = str(reason)
        self.message.emit(f"Could not compute attention: {reason}")

    def _compute_here(self, **sharing):
        """A whole recompute on this thread (and the worker's lanes, when ``sharing`` says so);
        whatever the worker was doing is overtaken (its flags are returned, to be announced with
        this result)."""
        self._worker.cancel()
        self._accept_from = self._generation + 1
        overtaken, self._waiting = self._waiting, 0
        previous = self.results if self._big() else None
        self._rewriting = self._rewriting or previous is not None  # stays so if it fails half way through
        try:
            self.results = recompute(self._state.matrices, self.settings, previous=previous, **sharing)
        except (ExplorerError, MemoryError):
            self._failed |= overtaken
            raise
        self._rewriting = self._loading = False
        return overtaken

    def _apply_edits(self, dirty, wait):
        """Update the results in place for a few edited cells of Q, K or V: "done" here, "deferred" to
        the worker (a K cell at L = 4096 redoes one head, not eight), or None when it must be whole."""
        if (dirty is None or not dirty or self.results is None or self.projected or self._worker.busy
                or self._waiting or self._rewriting or self._failed or self._loading
                or not self._fits(self.results)):
            return None
        merged = {}
        for name, rows, cols in dirty:
            r, c = merged.setdefault(name, (set(), set()))
            r.update(rows)
            c.update(cols)
        edits = [(name, sorted(rows), sorted(cols)) for name, (rows, cols) in merged.items()]
        cost = sum(edit_cost(self.results, *edit) for edit in edits)
        if wait or cost <= BACKGROUND_COST:
            for edit in edits:
                apply_edit(self.results, self._state.matrices, self.settings, *edit)
            return "done"
        if 2 * cost > full_cost(self._state.matrices, self.settings):
            return None
        result, settings = self.results, self.settings
        snapshot = {name: np.array(self._state.matrices[name]) for name in merged}

        def job(cancelled):
            for edit in edits:
                if cancelled():
                    return None
                apply_edit(result, snapshot, settings, *edit)
            return result

        self._generation += 1
        self._rewriting = True  # set before the worker starts writing into the buffers on screen
        self._worker.submit(self._generation, job)
        return "deferred"

    def _big(self):
        """True when the results are too large to keep a second copy: recompute into their buffers."""
        return self.results is not None and 2 * self.results.heads.scores.nbytes > REUSE_BYTES

    def _submit(self, flags, snapshot=None):
        """Give the worker a snapshot of the inputs; the selected head is computed first."""
        if snapshot is None:
            snapshot = {k: np.array(v) for k, v in self._state.matrices.items()}
        settings = self.settings
        first = min(settings.selected_head, settings.heads - 1)
        order = [first] + [h for h in range(settings.heads) if h != first]
        previous = None
        big = self._big()
        if big:
            previous, self._rewriting = self.results, True
        self._generation += 1
        if flags & STRUCTURE or self._loading:
            # Results of another shape must never be shown, nor, while a session loads, its results
            # from before an edit (nothing of it is on screen yet: the latest request wins).
            self._accept_from = self._generation
        if big or flags & STRUCTURE or self._loading:
            # The job still running is of no use (its buffers are rewritten, or its result is never
            # accepted): it stops at its next check, and this one runs after it on the same thread
            # (one writer at a time); the GUI waits for neither.
            self._worker.cancel(wait=False)
        self._waiting |= flags
        sharing = self._worker.sharing()
        self._worker.submit(self._generation, lambda cancelled: recompute(  # the shown head's summaries only
            snapshot, settings, previous=previous, order=order, summarise=order[:1], cancelled=cancelled,
            **sharing))

    def _on_worker_done(self, generation, outcome):
        """A background recompute finished: show it (a drag shows progress) unless a newer state of
        another shape, or a recompute on this thread, has overtaken it."""
        if generation < self._accept_from or not self._fits(outcome):
            return
        latest = generation == self._generation
        if isinstance(outcome, ExplorerError):
            if latest:  # (a half-rewritten result stays marked: ``pending`` keeps panels off it)
                flags, self._waiting = self._waiting, 0
                self._fail(flags, outcome)
            return
        self.results = outcome
        self._loading = False  # accepted results are of the session loaded last (``_accept_from``)
        flags = self._waiting
        if latest:
            self._rewriting, self._waiting = False, 0
        self.edited = None
        self._announce(flags)

    @property
    def pending(self):
        """True while the results do not describe the state (an edit not yet recomputed, results of
        another shape) or their buffers are being rewritten: panels that draw results wait."""
        return (bool(self._pending & (STRUCTURE | VALUES | SETTINGS)) or self._rewriting or self._loading
                or not self._fits(self.results))

    def _fits(self, result):
        """Whether a result (perhaps of an earlier state) has the shapes of the current state."""
        if isinstance(result, ExplorerError):
            return True
        widths = self.widths()
        return (result is not None and result.n_heads == self.settings.heads
                and result.q.shape == (len(self.tokens), widths[0]) and result.v.shape[1] == widths[1]
                and (result.x is None) == (not self.projected))

    @property
    def computing(self):
        """True while the worker is computing results the window has not shown yet."""
        return bool(self._waiting)

    @property
    def loading(self):
        """True from loading a large session until its first results arrive (``results`` are still
        another session's); after a failed recompute, until one succeeds."""
        return self._loading

    @property
    def failure(self):
        """Why the last recompute failed ("not enough memory at this size"), so the results do not
        describe the state, or None; a recompute that succeeds clears it."""
        return self._failure if self._failed else None

    @property
    def up_to_date(self):
        """True when ``results`` are those of the current state: nothing to recompute or being
        computed, and the last recompute did not fail. What exports and screenshots need after
        ``flush()`` (which leaves it False only when the recompute failed again)."""
        return not (self.pending or self._waiting or self._failed)

    def flush(self):
        """Have the results of the current state now: the worker's when it is computing them, else
        computed on this thread (a failed recompute is tried again). Check ``up_to_date`` after it:
        a recompute may fail (not enough memory), and the results are then not the state's."""
        self.flushing = True  # whoever draws what ``changed`` brings now draws it at once, not in steps
        try:
            self._flush()
        finally:
            self.flushing = False

    def _flush(self):
        if self._waiting and not self._pending:
            last = self._worker.finish()
            if last is not None and last[0] == self._generation:
                self._on_worker_done(*last)  # at once, on this thread
                self._accept_from = self._generation + 1  # so its queued ``done`` does not come twice
        # Whenever the results do not describe the state (a failed recompute, a session loaded but
        # never computed, buffers left half rewritten), recompute whole on this thread.
        if (self._waiting or self._failed or self._loading or self._rewriting
                or not self._fits(self.results)):
            self._pending |= self._waiting | self._failed | VALUES
            self._waiting, self._dirty = 0, None
        if self._pending:
            self.recompute(wait=True)

    def shutdown(self):
        """Stop the worker thread (the window calls this when it closes)."""
        self._worker.stop()

    # ----- internals used by the undo commands ---------------------------------------------------
    def _write_block(self, name, top, left, block):
        rows, cols = block.shape
        self._state.matrices[name][top:top + rows, left:left + cols] = block
        if self._dirty is not None:
            self._dirty.append((name, range(top, top + rows), range(left, left + cols)))
        self._schedule(VALUES)

    def _restore(self, state):
        old = self._state
        # The selection is not part of undo history: keep the current one (clamped to the new shape).
        row = min(old.settings.selected_row, len(state.tokens) - 1)
        head = min(old.settings.selected_head, state.settings.heads - 1)
        self._state = state = state.with_settings(selected_row=row, selected_head=head)
        flags = SETTINGS
        if old.tokens != state.tokens:
            flags |= STRUCTURE  # labels changed; a rename keeps the shape (and the lesson's guesses)
        if (len(old.tokens) != len(state.tokens) or old.matrices.keys() != state.matrices.keys()
                or old.settings.source != state.settings.source
                or any(old.matrices[k].shape != state.matrices[k].shape for k in state.matrices)):
            flags |= STRUCTURE | VALUES
            if self.guesses:  # a guess names a cell by index; after a shape change it may be gone
                self.guesses = {}
                flags |= LESSON
        elif any(old.matrices[k] is not state.matrices[k] for k in state.matrices):
            flags |= VALUES
        self._dirty = None
        self._schedule(flags | SELECTION)

    def _push_state(self, new_state, text):
        top_command = self._open_command(StateCommand)
        if top_command is not None and top_command.absorbs(new_state, self._gesture):
            top_command.absorb(new_state)
            return
        self.undo_stack.push(StateCommand(self, self._state, new_state, text, self._gesture))

    def _open_command(self, kind):
        """The newest undo command, if a drag may still update it in place: it is on top (nothing to
        redo) and it is not the saved state (changing it would hide unsaved work)."""
        stack = self.undo_stack
        index = stack.index()
        if self._gesture is None or index == 0 or index != stack.count() or stack.cleanIndex() == index:
            return None
        command = stack.command(index - 1)
        return command if isinstance(command, kind) else None

    def _schedule(self, flags):
        self._pending |= flags
        if not self._timer.isActive():
            self._timer.start()

    def notify(self, text):
        """Pass a message (e.g. a refused edit) to the status bar."""
        self.message.emit(text)

    def _refuse(self, text):
        self.message.emit(text)
        return False

    def _row_name(self, name, row):
        """How a row is named in messages: its token for Q, K, V, X; its index for a W."""
        return self.tokens[row] if name in ("Q", "K", "V", "X") else str(row)

    def _fresh_token_name(self):
        i = len(self.tokens)
        while f"t{i}" in self.tokens:
            i += 1
        return f"t{i}"

    def _with_heads_fitting(self, state):
        """After a width change, fall back to the largest head count that still divides, and say so."""
        m = state.matrices
        widths = ((m["Wq"].shape[0], m["Wv"].shape[0]) if state.settings.source == "projected"
                  else (m["Q"].shape[1], m["V"].shape[1]))
        heads = state.settings.heads
        if all(w % heads == 0 for w in widths):
            return self._with_rope_fitting(state)
        fit = max(h for h in head_count_options(*widths) if h <= heads)
        self.message.emit(f"{heads} heads no longer divide the widths (Q/K {widths[0]}, V {widths[1]}): "
                          f"now {fit} head{'s' if fit > 1 else ''}")
        return self._with_rope_fitting(
            state.with_settings(heads=fit, selected_head=min(state.settings.selected_head, fit - 1)))

    def _with_rope_fitting(self, state):
        """RoPE needs an even d_h; after a width change that breaks it, turn RoPE off and say so."""
        s, m = state.settings, state.matrices
        width = m["Wq"].shape[0] if s.source == "projected" else m["Q"].shape[1]
        if s.rope and (width // s.heads) % 2:
            self.message.emit(f"RoPE is off: each head's Q/K width d_h = {width // s.heads} is odd now")
            return state.with_settings(rope=False)
        return state

    def _check_param(self, name, value):
        try:
            if name == "scale_mode":
                if value not in SCALE_MODES:
                    raise ValueError(f"scale mode must be one of {', '.join(SCALE_MODES)}")
                return value
            if name == "causal":
                return bool(value)
            if name == "rope":
                value = bool(value)
                if value and self.rope_problem():
                    raise ValueError(self.rope_problem())
                return value
            if name == "rope_style":
                if value not in ROPE_STYLES:
                    raise ValueError(f"must be one of {', '.join(ROPE_STYLES)}")
                return value
            if name == "rope_offset":
                value = int(value)
                if not 0 <= value <= ROPE_OFFSET_MAX:
                    raise ValueError(f"must lie in 0..{ROPE_OFFSET_MAX}")
                return value
            if name == "source":
                if value not in SOURCES:
                    raise ValueError(f"must be one of {', '.join(SOURCES)}")
                return value
            if name == "positions":
                if value not in POSITIONS:
                    raise ValueError(f"must be one of {', '.join(POSITIONS)}")
                if value != "none" and not self.projected:
                    raise ValueError("positions are added to the token vectors X: switch the source "
                                     "to 'projected' first")
                return value
            if name == "heads":
                value = int(value)
                if value not in self.head_options():
                    raise ValueError(f"{value} heads do not divide the widths (Q/K {self.matrix('Q').shape[1]}, "
                                     f"V {self.matrix('V').shape[1]}); choose one of "
                                     f"{', '.join(map(str, self.head_options()))}")
                return value
            value = float(value)
            if name == "temperature" and not TEMPERATURE_MIN <= value <= TEMPERATURE_MAX:
                raise ValueError(f"temperature must be between {TEMPERATURE_MIN} and {TEMPERATURE_MAX}")
            if name == "scale" and not (np.isfinite(value) and 0 < value <= 1e3):
                raise ValueError("a custom scale must be a number above 0 and at most 1000")
            if name == "rope_base" and not ROPE_BASE_MIN <= value <= ROPE_BASE_MAX:
                raise ValueError(f"must lie in {ROPE_BASE_MIN:g}..{ROPE_BASE_MAX:g}")
            if name not in ("temperature", "scale", "rope_base"):
                raise ValueError(f"unknown setting {name!r}")
            return value
        except (TypeError, ValueError) as exc:
            self.message.emit(f"{PARAM_LABELS.get(name, name)}: {exc}")
            return None
