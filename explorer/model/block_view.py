"""The Transformer block of the model's current session (F17), for the panel that draws it: made on a worker
when large (``Background``), so an edit or a drag at L = 4096 never waits for it.

The block's own settings (pre/post-LN, the norm, the activation, the FFN width, the seed of its weights, how
many blocks are stacked) live here, not in the session: they change nothing of the attention, so they are
neither saved nor undone — the block is a view of the session's attention inside a model. The numbers come
from ``explorer.core.block_stack``, from copies of the session's X and W (what an edit writes in place). It is
refused only when its attention's scores and weights would not fit in the memory that is free.
"""
from dataclasses import replace

import numpy as np

from explorer.core.block import BlockSettings
from explorer.core.block_stack import block_work, session_block, stream_wo

from explorer.i18n import translate

from .background import COMPUTING, FAILED, IDLE, READY, Background
from .memory import free_memory, memory_allowed

BLOCK_MATRICES = ("X", "Wq", "Wk", "Wv", "Wo")


class BlockView:
    """``settings`` (a BlockSettings), ``ask()`` and ``result()``; ``work`` (a Background) says when it is computing."""

    def __init__(self, model, settings=None, parent=None):
        self.model = model
        self.settings = settings or BlockSettings()
        self.work = Background(model, parent)
        model.state_changed.connect(self.work.forget)  # a newer state is coming: stop the block of this one

    def change(self, **changes):
        """New block settings (e.g. ``placement="post"``); False and nothing changed when one is not allowed."""
        try:
            self.settings = replace(self.settings, **changes)
        except (TypeError, ValueError):
            return False
        return True

    def fixable(self):
        """Whether ``make_ready`` can turn the session into one the block can show (not cross-attention)."""
        m = self.model
        return not m.cross and (not m.projected or m.matrix("Wo").shape[0] != m.matrix("X").shape[1])

    def make_ready(self):
        """One undo step: projected mode (X = [Q | K | V] reproducing Q, K, V), and a W_o that writes back into
        the D-wide stream (``stream_wo``). Returns the model's answer (falsy and said when refused)."""
        m = self.model
        with m.transaction(translate("Block", "Make the session a Transformer block's attention")) as tx:
            if not m.projected:
                m.set_param("source", "projected")
            width = m.matrix("X").shape[1]
            if m.matrix("Wo").shape[0] != width:
                m.replace_matrix("Wo", stream_wo(m.matrix("Wo"), width))
        return tx

    def ask(self):
        """The block of the session as it is now: made at once when small, else on the worker."""
        m = self.model
        state = m.state
        key = (m.revision, m.loads, self.settings)
        if key == self.work.key and self.work.state != IDLE:
            return
        results = m.results if m.up_to_date else None  # the session's own attention, when it is of this state
        own = getattr(getattr(results, "heads", None), "output", None)
        own = np.array(own) if own is not None and getattr(results, "x", None) is not None else None
        matrices = {n: np.array(state.matrices[n]) for n in BLOCK_MATRICES if n in state.matrices}
        settings, block, cross = state.settings, self.settings, m.cross
        cost = 0
        if settings.source == "projected" and not cross and {"X", "Wo"} <= matrices.keys():
            length, width = matrices["X"].shape
            cost = block_work(length, width, matrices, settings.heads, block)
        memory = memory_allowed(free_memory())

        def job(cancelled):
            return session_block(matrices, settings, block, cross=cross, first_attention=own, memory=memory,
                                 cancelled=cancelled)

        self.work.ask(key, job, cost)

    def result(self):
        """(BlockStack, None) once made for the current state; (None, why) when refused; while it is computing,
        (the last block made or None, None)."""
        w = self.work
        if w.state == FAILED:
            return None, w.reason
        if w.state in (READY, COMPUTING):
            return w.result, None
        return None, None
