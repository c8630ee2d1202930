"""The model's edit API: every change a person makes, each one undoable, refused with a reason.

An edit returns True when done (or when it changes nothing) and a falsy ``Refusal`` with the reason
when refused (also said on ``message`` for the status bar). ``with model.transaction(text):`` makes
every edit inside one undo step, or none at all if any is refused.
"""
import math
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP

from explorer.core import head_count_options
from explorer.core.errors import EditRefused, ExplorerError, SessionError
from explorer.core.permutation import permutation_check, shuffle_permutation
from explorer.core.plural import count
from explorer.core.session import MAX_ABS_VALUE, MAX_DIM, MAX_TOKEN_CHARS, MAX_TOKENS, validate_session
from explorer.core.session_check import check_size
from explorer.core.structure import (AXIS_NAMES, WIDTH_AXES, axis_length, delete_along, insert_along, permute_tokens,
                                     shapes_after_insert)

from explorer.i18n import in_language, shown_error, translate

from .commands import CellsCommand, StateCommand
from .flags import SELECTION
from .outcome import Refusal, Transaction
from .settings_edits import SettingsEdits
from .state import MATRIX_NAMES, State


GROUPED_WIDTHS = QT_TRANSLATE_NOOP("Edits", "The widths of Q, K and V are tied to the K/V heads they share: set K/V heads to as many "
                  "as heads first (Controls), then change the width")


class Edits(SettingsEdits):
    """Cells, tokens, widths, whole matrices and transactions; mixed into ``AttentionModel``."""

    # ----- cells ---------------------------------------------------------------------------------
    def set_cell(self, name, i, j, value):
        """Set one cell of an editable matrix."""
        return self.set_block(name, i, j, np.array([[value]], dtype=np.float64))

    def set_block(self, name, top, left, block):
        """Write a 2-D block (a paste) as one undo step; refused whole if any value is bad or it sticks out."""
        block = np.asarray(block, dtype=np.float64)
        if block.ndim != 2 or name not in self._state.matrices:
            return self._refuse(translate("Edits", "cannot write a block of shape {shape} into {name}").format(
                shape=block.shape, name=name))
        if name not in self.editable():
            return self._refuse(translate("Edits", "{name} is computed from X and W_{low} in projected mode: edit X "
                                                   "or W_{low} instead").format(name=name, low=name.lower()))
        arr = self.matrix(name)
        rows, cols = block.shape
        if top < 0 or left < 0 or top + rows > arr.shape[0] or left + cols > arr.shape[1]:
            return self._refuse(translate("Edits", "{name}: a {rows}×{cols} block at row {top}, column d{left} does "
                                                   "not fit in the {height}×{width} matrix").format(
                name=name, rows=rows, cols=cols, top=top, left=left, height=arr.shape[0], width=arr.shape[1]))
        if block.size == 1:  # a typed cell or a drag's step: one number, checked without passes over arrays
            value = float(block[0, 0])
            bad = None if math.isfinite(value) and abs(value) <= MAX_ABS_VALUE else (0, 0)
            unchanged = bad is None and arr[top, left] == value
        else:
            flags = ~np.isfinite(block) | (np.abs(block) > MAX_ABS_VALUE)
            bad = tuple(int(x) for x in np.argwhere(flags)[0]) if flags.any() else None
            unchanged = bad is None and np.array_equal(arr[top:top + rows, left:left + cols], block)
        if bad is not None:
            r, c = bad
            return self._refuse(translate("Edits", "{cell}: {value} is not a finite number within ±{most}").format(
                cell=f"{name}[{self._row_name(name, top + r)}, d{left + c}]", value=block[r, c],
                most=f"{MAX_ABS_VALUE:g}"))
        if unchanged:
            return True
        if self._transaction is not None:
            self._write_block(name, top, left, block)
            return True
        top_command = self._open_command(CellsCommand)
        if top_command is not None and top_command.absorbs(name, top, left, block, self._gesture):
            top_command.absorb(block)
            return True
        where = (f"{name}[{self._row_name(name, top)}, d{left}]" if block.size == 1
                 else translate("Edits", "{rows}×{cols} block of {name}").format(rows=rows, cols=cols, name=name))
        self.undo_stack.push(CellsCommand(self, name, top, left, block,
                                          translate("Edits", "Edit {where}").format(where=where), self._gesture))
        return True

    def swap_tokens(self, name, i, j):
        """Swap rows i and j of one matrix (e.g. K) — the pattern of who looks at whom follows (undoable)."""
        if i == j:
            return True
        mats = dict(self._state.matrices)
        mats[name] = mats[name].copy()
        mats[name][[i, j]] = mats[name][[j, i]]
        self._push_state(replace(self._state, matrices=mats),
                         translate("Edits", "Swap rows {first} and {second} of {name}").format(
                             first=self.tokens[i], second=self.tokens[j], name=name))
        return True

    # ----- tokens --------------------------------------------------------------------------------
    def _side(self, side):
        """(axis, token list, the state field) of "keys" or "queries" (the same in self-attention)."""
        if side == "queries" and self.cross:
            return "Lq", self._state.query_tokens, "query_tokens"
        return "L", self._state.tokens, "tokens"

    def rename_token(self, i, text, side="keys"):
        _, tokens, field = self._side(side)
        text = str(text).strip()
        if not text or len(text) > MAX_TOKEN_CHARS or any(ord(c) < 32 for c in text):
            return self._refuse(translate("Edits", "token {number}: a name must be 1–{most} printable characters")
                                .format(number=i + 1, most=MAX_TOKEN_CHARS))
        if text == tokens[i]:
            return True
        renamed = tokens[:i] + (text,) + tokens[i + 1:]
        self._push_state(replace(self._state, **{field: renamed}), translate("Edits", "Rename token {old} → {new}").format(
            old=tokens[i], new=text))
        return True

    def add_token(self, at=None, name=None, side="keys"):
        """Insert a token (a zero row in every matrix of its side: Q, K and V together in self-attention)
        before index ``at`` (default: at the end). ``side`` "queries": a query token of a cross session."""
        axis, tokens, field = self._side(side)
        n = len(tokens)
        if n >= MAX_TOKENS:
            return self._refuse(translate("Edits", "cannot add a token: at most {most} tokens").format(most=MAX_TOKENS))
        too_big = self._too_big(translate("Edits", "cannot add a token"), shapes_after_insert(axis, self._state.matrices,
                                                                          **self._state.shape()))
        if too_big is not None:  # a Refusal (falsy)
            return too_big
        at = n if at is None else int(np.clip(at, 0, n))
        name = name or self._fresh_token_name(tokens)
        mats = insert_along(self._state.matrices, axis, at, **self._state.shape())
        row, key = self.selection.row, self.selection.key
        added = tokens[:at] + (name,) + tokens[at:]
        self._push_state(replace(self._state, matrices=mats, **{field: added}), translate("Edits", "Add token {name}").format(name=name))
        rows_moved, keys_moved = field == "query_tokens" or not self.cross, field == "tokens"
        self.set_selection(row=row + 1 if rows_moved and at <= row else row,  # keep the same query and key
                           key=key + 1 if keys_moved and at <= key else key)
        return True

    def remove_token(self, i, side="keys"):
        axis, tokens, field = self._side(side)
        if len(tokens) <= 1:
            return self._refuse(translate("Edits", "cannot remove the last token: attention needs at least one"))
        mats = delete_along(self._state.matrices, axis, i, **self._state.shape())
        row, key = self.selection.row, self.selection.key
        kept = tokens[:i] + tokens[i + 1:]
        self._push_state(replace(self._state, matrices=mats, **{field: kept}), translate("Edits", "Remove token {name}").format(name=tokens[i]))
        rows_moved, keys_moved = field == "query_tokens" or not self.cross, field == "tokens"
        self.set_selection(row=row - 1 if rows_moved and i < row else row,
                           key=key - 1 if keys_moved and i < key else key)
        return True

    def set_cross(self, on):
        """Separate query tokens (cross-attention, starting from a copy of the tokens; projected: X_src
        from a copy of X, so no number changes) or one token list again (self-attention; the queries
        must then be as many as the keys)."""
        state = self._state
        if bool(on) == state.cross:
            return True
        if on:
            if state.settings.causal:
                return self._refuse(translate("Edits", "Turn the causal mask off first: decoder cross-attention has no causal mask "
                                    "(the queries read another sequence, which has no future to hide)"))
            mats = dict(state.matrices)
            if "X" in mats:
                mats["X_src"] = mats["X"].copy()
            self._push_state(replace(state, matrices=mats, query_tokens=state.tokens),
                             translate("Edits", "Use separate query tokens"))
            return True
        if len(state.query_tokens) != len(state.tokens):
            return self._refuse(translate("Edits", "Self-attention needs as many queries as keys: there are {queries} "
                                                   "and {keys}").format(
                queries=count(len(state.query_tokens), 'query token'), keys=count(len(state.tokens), 'token'),
                n_queries=len(state.query_tokens), n_keys=len(state.tokens)))
        mats = {n: a for n, a in state.matrices.items() if n != "X_src"}  # K and V come from X again
        self._push_state(replace(state, matrices=mats, query_tokens=None),
                         translate("Edits", "Use the same tokens for queries and keys"))
        return True

    def shuffle_tokens(self, seed=0, side="keys"):
        """Reorder the tokens (rows of Q, K, V and X; of a cross session, the keys' or the queries' rows) by
        a seeded permutation, as one undo step.

        The output before is kept, so ``shuffle_result()`` can show that without positions (and
        without a causal mask) the new output is the old one permuted the same way — or, when only the
        keys of a cross session move, the same output.
        """
        axis, tokens, field = self._side(side)
        perm = shuffle_permutation(len(tokens), seed)
        self.flush()
        if not self.up_to_date:  # no output to compare with (its recompute failed: not enough memory)
            return self._refuse(translate("Edits", "Cannot shuffle the tokens: the attention of this session could "
                                                   "not be computed ({why})").format(why=in_language(self.failure)))
        before = self.results.heads.output.copy()
        mats = permute_tokens(self._state.matrices, perm, axis, **self._state.shape())
        shuffled = tuple(tokens[p] for p in perm)
        moves_rows = axis == "Lq" or not self.cross
        row = int(np.argsort(perm)[self.selection.row]) if moves_rows else self.selection.row
        self._push_state(replace(self._state, matrices=mats, **{field: shuffled}), translate("Edits", "Shuffle tokens"))
        self.set_selection(row=row)  # keep the same query selected
        rows_moved = perm if moves_rows else np.arange(len(self.query_tokens))
        self.shuffle = (rows_moved, before, self.undo_stack.index())
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

    # ----- widths --------------------------------------------------------------------------------
    def _width_axis(self, group):
        """The axis a width button changes, or the Refusal saying why it cannot."""
        if self._state.shape()["grouped"] and group in ("qk", "v", "kv"):
            return self._refuse(translate("Edits", GROUPED_WIDTHS))
        axis = WIDTH_AXES[self.settings.source].get(group)
        if axis is None:
            return self._refuse(translate("Edits", "there is no {group} width to change in {mode} mode").format(
                group=repr(group), mode=self.settings.source))
        return axis

    def add_dim(self, group, at=None):
        """Widen one axis: ``"qk"`` the Q/K width, ``"v"`` the V width; projected also ``"x"`` (D of X and
        every W) and ``"out"`` (rows of W_o). Every matrix on that axis gets a slice of zeros."""
        axis = self._width_axis(group)
        if isinstance(axis, Refusal):
            return axis
        width = axis_length(axis, self._state.matrices, **self._state.shape())
        if width >= MAX_DIM:
            return self._refuse(translate("Edits", "cannot add a dimension to {axis}: at most {most}").format(
                axis=in_language(AXIS_NAMES[axis]), most=MAX_DIM))
        too_big = self._too_big(translate("Edits", "cannot add a dimension to {axis}").format(
                                    axis=in_language(AXIS_NAMES[axis])),
                                shapes_after_insert(axis, self._state.matrices, **self._state.shape()))
        if too_big is not None:  # a Refusal (falsy)
            return too_big
        at = width if at is None else int(np.clip(at, 0, width))
        mats = insert_along(self._state.matrices, axis, at, **self._state.shape())
        self._push_state(self._with_heads_fitting(replace(self._state, matrices=mats)),
                         translate("Edits", "Add a dimension to {axis}").format(axis=in_language(AXIS_NAMES[axis])))
        return True

    def remove_dim(self, group, at=None):
        axis = self._width_axis(group)
        if isinstance(axis, Refusal):
            return axis
        width = axis_length(axis, self._state.matrices, **self._state.shape())
        if width <= 1:
            return self._refuse(translate("Edits", "cannot remove the last dimension of {axis}").format(
                axis=in_language(AXIS_NAMES[axis])))
        at = width - 1 if at is None else int(np.clip(at, 0, width - 1))
        mats = delete_along(self._state.matrices, axis, at, **self._state.shape())
        self._push_state(self._with_heads_fitting(replace(self._state, matrices=mats)),
                         translate("Edits", "Remove dimension {at} of {axis}").format(
                             at=at, axis=in_language(AXIS_NAMES[axis])))
        return True

    # ----- whole matrices ------------------------------------------------------------------------
    def randomize(self, seed=0, names=None):
        """Fill the chosen matrices (default: the editable ones) with seeded standard-normal numbers."""
        rng = np.random.default_rng(int(seed))
        mats = dict(self._state.matrices)
        names = self.editable() if names is None else names
        for k in names:
            mats[k] = rng.standard_normal(mats[k].shape).round(3)
        self._push_state(replace(self._state, matrices=mats), translate("Edits", "Randomize {names} (seed {seed})").format(
            names=", ".join(names), seed=seed))
        return True

    def reset_to_preset(self):
        """Go back to the session as it was opened (undoable)."""
        self._push_state(self._origin.copy(), translate("Edits", "Reset to preset"))
        return True

    def set_session(self, session, text="Set up the demo", model_head=None):
        """Take ``session``'s tokens, Q/K/V and settings as ONE undo step (unlike ``load``: the file,
        the undo history and the preset Reset goes back to stay; the selection stays too).
        ``model_head``: the real model's head the session was made from (``explorer.models.HeadSource``).
        True when anything changed, False when the state was that session already."""
        new = replace(State.from_session(validate_session(session)), model_head=model_head)
        old = self._state.model_head
        if new.same_as(self._state) and (old is model_head or (old is not None and old.same_head(model_head))):
            return False
        self._push_state(new, text)
        return True

    def replace_matrix(self, name, array, source=None):
        """Put an imported array in place of an editable matrix; its shape must fit the others. ``source``: where
        it came from (a file's name), said first when it does not fit."""
        array = np.array(array, dtype=np.float64)  # a copy: later cell edits write into it
        where = source or f"imported {name}"
        if name not in self.editable():
            return self._refuse(translate("Edits", "{name} is computed from X and W_{low} in projected mode: import X "
                                                   "or W_{low} instead, or switch Q, K, V back to direct").format(
                name=name, low=name.lower()))
        misfit = self._misfit(name, array.shape)
        if misfit:
            return self._refuse(f"{where}: {misfit}")
        candidate = replace(self._state, matrices={**self._state.matrices, name: array})
        try:
            validate_session(candidate.to_session(), where=where)
        except ExplorerError as exc:
            return self._refuse(shown_error(exc))
        self._push_state(self._with_heads_fitting(candidate), translate("Edits", "Import {name} {rows}×{cols}").format(
            name=name, rows=array.shape[0], cols=array.shape[1]))
        return True

    def _misfit(self, name, shape):
        """Why a matrix of ``shape`` cannot take Q's, K's or V's place, said as a person counts (its rows are
        the tokens, Q's and K's columns the same d_k), or None (anything else is the session check's)."""
        if name not in MATRIX_NAMES or len(shape) != 2:
            return None
        queries = name == "Q" and self.cross
        tokens = len(self.query_tokens) if name == "Q" else len(self.tokens)
        if shape[0] != tokens:
            said = (QT_TRANSLATE_NOOP("Edits", "{name} has {rows}, but there are {tokens} (one row per query token)")
                    if queries else QT_TRANSLATE_NOOP("Edits", "{name} has {rows}, but there are {tokens} (one row per "
                                                               "token)"))
            return translate("Edits", said).format(
                name=name, rows=count(shape[0], "row"), n_rows=shape[0], n_tokens=tokens,
                tokens=count(tokens, "query token" if queries else "token"))
        partner = {"Q": "K", "K": "Q"}.get(name)
        width = self.matrix(partner).shape[1] if partner else shape[1]
        if shape[1] != width:
            return translate("Edits", "{name} has {cols}, but {partner} has {partner_cols} (Q and K need the same "
                                      "width d_k)").format(name=name, partner=partner, cols=count(shape[1], "column"),
                                                         n_cols=shape[1], partner_cols=count(width, "column"),
                                                         n_partner_cols=width)
        return None

    def replace_inputs(self, matrices, tokens=None):
        """Put new Q, K and V in place at once (their shapes may all change); tokens default to t0, t1, …
        In a cross-attention session Q may have other rows than K (its query tokens then q0, q1, …)."""
        mats = {**self._state.matrices,
                **{n: np.array(matrices[n], dtype=np.float64) for n in MATRIX_NAMES}}  # copies
        n_q, n_k = mats["Q"].shape[0], mats["K"].shape[0]
        n_tokens = n_k if self.cross else n_q  # the keys' rows; in self-attention every matrix has Q's
        if tokens is None:
            tokens = self.tokens if len(self.tokens) == n_tokens else tuple(f"t{i}" for i in range(n_tokens))
        queries = None
        if self.cross:  # (in self-attention, Q with other rows than K is refused below: one token list)
            queries = self.query_tokens if len(self.query_tokens) == n_q else tuple(f"q{i}" for i in range(n_q))
        candidate = self._with_heads_fitting(replace(self._state, tokens=tuple(tokens), matrices=mats,
                                                     query_tokens=queries))
        try:
            validate_session(candidate.to_session(), where="imported Q, K, V")
        except ExplorerError as exc:
            return self._refuse(shown_error(exc))
        self._push_state(candidate, translate("Edits", "Import Q, K, V ({tokens}, d = {d}, d_v = {d_v})").format(
            tokens=count(n_tokens, 'token'), n_tokens=n_tokens, d=mats['Q'].shape[1], d_v=mats['V'].shape[1]))
        return True

    # ----- grouping ------------------------------------------------------------------------------
    @contextmanager
    def transaction(self, text):
        """Every edit inside is ONE undo step named ``text``, or nothing at all: the first refused edit
        ends the block (``EditRefused`` is caught here), everything before it is taken back, and the
        yielded ``Transaction`` is false with its ``refusal``. Nested blocks join the outer one."""
        if self._transaction is not None:
            yield self._transaction
            return
        tx = Transaction(text, self._state, self.selection)
        self._state = replace(self._state, matrices=dict(self._state.matrices))
        self._transaction = tx
        try:
            yield tx
        except EditRefused as exc:
            tx.refusal = Refusal(shown_error(exc))
        except BaseException:
            self._transaction = None
            self._take_back(tx)
            raise
        self._transaction = None
        if tx.refusal is not None:
            self._take_back(tx)
            self.notify(tx.refusal.reason)
        elif self._state.same_as(tx.before):
            self._back_to(tx.before)
        else:
            self.undo_stack.push(StateCommand(self, tx.before, self._state, text))

    def _take_back(self, tx):
        """A transaction refused or broken: its state and the selection as they were before it."""
        self._back_to(tx.before)
        if self.selection != tx.selection:
            self.selection = tx.selection
            self.coordinator.schedule(SELECTION)

    def _back_to(self, before):
        """The state ``before`` again; quietly (no recompute, no signal) when no edit replaced any part."""
        s = self._state
        if (s.tokens == before.tokens and s.settings == before.settings
                and s.matrices.keys() == before.matrices.keys()
                and all(a is before.matrices[n] for n, a in s.matrices.items())):
            self._state = before
        else:
            self._restore(before)

    def begin_gesture(self):
        """Group every edit until ``end_gesture`` (a drag, a slider held down) into one undo step."""
        self._gesture_count += 1
        self._gesture = ("gesture", self._gesture_count)

    def end_gesture(self):
        self._gesture = None

    @property
    def dragging(self):
        """True while a slider or a scrub is held (between ``begin_gesture`` and ``end_gesture``)."""
        return self._gesture is not None

    # ----- helpers -------------------------------------------------------------------------------
    def _push_state(self, new_state, text):
        if self._transaction is not None:  # inside a transaction: applied now, pushed as one step at its end
            self._restore(new_state)
            return
        top_command = self._open_command(StateCommand)
        if top_command is not None and top_command.absorbs(new_state, self._gesture):
            top_command.absorb(new_state)
            top_command.setText(text)  # the step says where it ended
            self.undo_stack.undoTextChanged.emit(self.undo_stack.undoText())  # (setText alone tells no one)
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

    def _too_big(self, what, shapes):
        """The Refusal of an edit that would make a matrix larger than a session holds (its ``shapes``, checked
        before anything is allocated), or None."""
        for name, (rows, cols) in shapes.items():
            try:
                check_size(name, rows, cols, verb=translate("Session", "would have"))
            except SessionError as exc:
                return self._refuse(translate("Edits", "{what}: {why}").format(what=what, why=shown_error(exc)))
        return None

    def _refuse(self, text):
        """Refuse an edit: inside a transaction, end it (all is taken back); else say why and return it."""
        if self._transaction is not None:
            raise EditRefused(text)
        self.notify(text)
        return Refusal(text)

    def _row_name(self, name, row):
        """How a row is named in messages: its token for Q, K, V, X, X_src; its index for a W."""
        if name in ("Q", "X"):
            return self.query_tokens[row]
        return self.tokens[row] if name in ("K", "V", "X_src") else str(row)

    def _fresh_token_name(self, tokens):
        i = len(tokens)
        while f"t{i}" in tokens:
            i += 1
        return f"t{i}"

    def _with_heads_fitting(self, state):
        """After a width change, fall back to the largest head count that still divides, and say so."""
        widths = state.widths()
        heads = state.settings.heads
        if all(w % heads == 0 for w in widths):
            return self._with_rope_fitting(state)
        fit = max(h for h in head_count_options(*widths) if h <= heads)
        self.message.emit(translate("Edits", "{heads} no longer divide the widths (Q/K {qk}, V {v}): now {fit}").format(
            heads=count(heads, 'head'), qk=widths[0], v=widths[1], fit=count(fit, 'head'), n_heads=heads, n_fit=fit))
        return self._with_rope_fitting(state.with_settings(heads=fit))

    def _with_rope_fitting(self, state):
        """RoPE needs an even d_h; after a width change that breaks it, turn RoPE off and say so."""
        s = state.settings
        width = state.widths()[0]
        if s.rope and (width // s.heads) % 2:
            self.message.emit(translate("Edits", "RoPE is off: each head's Q/K width d_h = {d_head} is odd now").format(
                d_head=width // s.heads))
            return state.with_settings(rope=False)
        return state
