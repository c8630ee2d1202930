"""The decode of the model's current session (F15), for the Generation panel: the decoder with its K/V cache,
full causal attention to check it against, and the cost curves — kept until the numbers or the prefill change.

The numbers come from ``explorer.core.kv_cache`` and, while the session's own mask is off, full causal
attention from ``explorer.core.pipeline`` (up to CHECK_TOKENS tokens: above, only the decoded rows are shown).
"""
from dataclasses import replace

import numpy as np

from explorer.core.kv_cache import DecodeShape, Decoder, cost_curves
from explorer.core.pipeline import run_pipeline

CHECK_TOKENS = 1024  # up to this L the equivalence and the full heatmap are recomputed live


class DecodeView:
    """``decoder()``, ``causal_result()``, ``largest_difference()`` and ``costs()`` of the session as it is now."""

    def __init__(self, model):
        self.model = model
        self._decoder_key = self._causal_key = None
        self._decoder = self._causal = None

    def prefill(self):
        """Tokens the prompt puts in the cache: the session's ``decode_prefill``, at most L."""
        return min(self.model.settings.decode_prefill, len(self.model.query_tokens))

    def decoder(self):
        """The decode of the current state (made again only when the numbers or the prefill change)."""
        m = self.model
        key = (m.revision, m.loads, m.settings.decode_prefill)
        if key != self._decoder_key:
            self._decoder = Decoder(m.state.matrices, m.settings, prefill=self.prefill(), cross=m.cross)
            self._decoder_key = key
        return self._decoder

    def causal_result(self):
        """Full causal attention of the current state: the session's own results when the mask is on, else
        computed (kept until the state changes) for sessions up to CHECK_TOKENS; else None."""
        m = self.model
        if (m.settings.causal or m.cross) and not m.pending:  # cross-attention has no mask: the results are it
            return m.results
        if len(m.tokens) > CHECK_TOKENS:
            return None
        key = (m.revision, m.loads)
        if self._causal_key != key:
            self._causal = run_pipeline(m.state.matrices, replace(m.settings, causal=True))
            self._causal_key = key
        return self._causal

    def largest_difference(self):
        """max |stacked decode rows − full causal attention's output|, or None when that is not computed."""
        causal = self.causal_result()
        if causal is None:
            return None
        return float(np.max(np.abs(self.decoder().outputs() - causal.heads.output)))

    def costs(self):
        """(cost curves over the decode's steps, the steps, the decode's shape)."""
        decoder = self.decoder()
        shape = DecodeShape.of(decoder.inputs, cross=self.model.cross)
        return cost_curves(shape, decoder.steps), decoder.steps, shape
