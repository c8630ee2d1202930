"""The Transformer block of the model's current session (F17), for the panel that draws it.

The block's own settings (pre/post-LN, the norm, the activation, the FFN width, the seed of its weights, how
many blocks are stacked) live here, not in the session: they change nothing of the attention, so they are
neither saved nor undone — the block is a view of the session's attention inside a model. The numbers come
from ``explorer.core.block_stack``; this only remembers them until the session or the settings change.
"""
from dataclasses import replace

from explorer.core.block import BlockSettings
from explorer.core.block_stack import session_block, stream_wo
from explorer.core.errors import ExplorerError
from explorer.i18n import translate


class BlockView:
    """``settings`` (a BlockSettings) and ``result()``: (BlockStack, None) or (None, why it cannot be shown)."""

    def __init__(self, model, settings=None):
        self.model = model
        self.settings = settings or BlockSettings()
        self._kept = None  # ((revision, loads, settings), (stack, reason))

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

    def result(self):
        """The block of the session as it is now, made once per change of the session or the settings."""
        m = self.model
        key = (m.revision, m.loads, self.settings)
        if self._kept is None or self._kept[0] != key:
            self._kept = (key, self._compute())
        return self._kept[1]

    def _compute(self):
        m = self.model
        results = m.results if m.up_to_date else None  # the session's own attention, when it is of this state
        own = getattr(getattr(results, "heads", None), "output", None)
        try:
            stack = session_block(m.state.matrices, m.state.settings, self.settings, cross=m.cross,
                                  first_attention=own if getattr(results, "x", None) is not None else None)
        except ExplorerError as exc:  # (its message as made: the panel shows it in the interface's language)
            return None, exc.args[0] if len(exc.args) == 1 else str(exc)
        return stack, None
