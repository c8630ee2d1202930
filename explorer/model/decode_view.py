"""The decode of the model's current session (F15), for the Generation panel: the decoder with its K/V cache and
its cost curves (kept until the numbers or the prefill change), and the check against full causal attention, made
on a worker when large (``check``, a ``Background``): an edit at the largest size never waits for it.

The numbers come from ``explorer.core.kv_cache`` and, while the session's own mask is off, full causal attention
from ``explorer.core.pipeline``. The check reads copies of the session's matrices (O(L·D), what an edit writes in
place) and, with the mask on, of the results' output. Full causal attention is refused, its size named, only when
its scores and weights would not fit in the memory that is free: then only the decoded rows are shown.
"""
from dataclasses import dataclass, replace

import numpy as np

from explorer.core.errors import ShapeError
from explorer.core.kv_cache import DecodeShape, Decoder, cost_curves
from explorer.core.memory_size import size_text
from explorer.core.pipeline import run_pipeline

from .background import COMPUTING, READY, Background
from .memory import free_memory, memory_allowed

ARRAYS = 4  # (H, L, L) float64 arrays full causal attention holds at once: scores, weights, the softmax's two


@dataclass(frozen=True, eq=False)
class Check:
    """The decode checked: max |stacked decode rows − full attention's output|, and full causal attention's
    weights (H, L, L) when the panel has no results of its own to show (the session's mask is off), else None."""

    difference: float
    weights: np.ndarray | None


def causal_bytes(heads, length):
    """The memory full causal attention needs beyond the session's results."""
    return ARRAYS * int(heads) * int(length) ** 2 * 8


class DecodeView:
    """``decoder()``, ``costs()``, and ``ask_check()`` with ``check`` (a Background) holding the ``Check``."""

    def __init__(self, model, parent=None):
        self.model = model
        self._decoder_key = self._costs_key = None
        self._decoder = self._costs = None
        self.check = Background(model, parent)
        model.state_changed.connect(self.check.forget)  # a newer state is coming: stop checking this one

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

    def own_causal(self):
        """True when the session's own results are full causal attention (its mask is on, or cross-attention)."""
        m = self.model
        return bool(m.settings.causal or m.cross)

    def ask_check(self):
        """Check the decode against full causal attention (at once when small, else on the worker); nothing while
        the results are not the state's and the check would read them."""
        m = self.model
        own = self.own_causal()
        if own and m.pending:
            return
        key = (m.loads, m.revision, m.settings.decode_prefill)
        if key == self.check.key and self.check.state != "idle":
            return
        inputs = self.decoder().inputs
        matrices = {n: np.array(a) for n, a in m.state.matrices.items()}
        settings, cross, prefill = m.settings, m.cross, self.prefill()
        own_output = np.array(m.results.heads.output) if own else None
        length, heads = len(m.query_tokens), settings.heads
        per_pair = inputs.d_head + inputs.dv_head  # the decode: q·k and a·v over half the pairs; full attention: all
        cost = heads * length * len(m.tokens) * per_pair * (1 if own else 3) // 2 + 200 * length
        memory, need = memory_allowed(free_memory()), causal_bytes(heads, length)

        def job(cancelled):
            if not own and memory is not None and need > memory:
                raise ShapeError(f"Full causal attention of {length} tokens with {heads} "
                                 f"head{'s' if heads > 1 else ''} needs {size_text(need)}, and only "
                                 f"{size_text(memory)} of memory is free: only the decoded rows are shown")
            decoder = Decoder(matrices, settings, prefill=prefill, cross=cross)
            rows = []
            for index in range(decoder.n_steps):
                if cancelled():
                    return None
                rows.append(decoder.step(index).output)
            expected, weights = own_output, None
            if not own:
                full = run_pipeline(matrices, replace(settings, causal=True))
                expected, weights = full.heads.output, full.heads.weights
            if cancelled():
                return None
            return Check(float(np.max(np.abs(np.concatenate(rows) - expected))), weights)

        self.check.ask(key, job, cost)

    def causal_weights(self):
        """Full causal attention's weights (H, L, L) to draw under the decoded rows, and whether they are of an
        older state (drawn while the next are computed); (None, False) when there are none to draw."""
        m, check = self.model, self.check
        if self.own_causal():
            return (None, False) if m.pending else (m.results.heads.weights, False)
        result = check.result
        if check.state in (READY, COMPUTING) and result is not None and result.weights is not None \
                and result.weights.shape[1:] == (len(m.query_tokens), len(m.tokens)):
            return result.weights, check.state == COMPUTING
        return None, False

    def costs(self):
        """(cost curves over the decode's steps, the steps, the decode's shape), kept while the shape is the same."""
        decoder = self.decoder()
        shape = DecodeShape.of(decoder.inputs, cross=self.model.cross)
        key = (shape, tuple(decoder.steps[0]), len(decoder.steps))
        if key != self._costs_key:
            self._costs, self._costs_key = cost_curves(shape, decoder.steps), key
        return self._costs, decoder.steps, shape
