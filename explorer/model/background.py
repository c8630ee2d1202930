"""A view's own heavy computation, off the GUI thread: the newest request wins, stale results are dropped.

A view of the session (the Efficient attention panel's approximation, the Transformer block, the flow-back's
pass) asks with ``ask(key, job, cost)``: ``key`` names what the result is of (asked again with an equal key,
nothing happens), ``job(cancelled)`` computes it — from copies, or from arrays whose rewriting changes the key
(``ResultsWork``), so a torn read is only ever of a dropped result — and returns it (None when ``cancelled()``
said stop). A job whose ``cost`` (≈ multiply-adds) is under LIVE_COST runs at once on the calling thread: small
sessions keep their instant redraws. A larger one goes to its own worker thread once the event loop turns
(requests of one turn coalesce; a job in flight is stopped at its next check). One state value, announced by
``changed``:

    IDLE       nothing asked yet
    COMPUTING  the newest request waits or runs; ``result`` is an older key's (``result_key``), or None
    READY      ``result`` is the newest key's
    FAILED     the newest request failed: ``reason`` says why (an ExplorerError's message)
"""
from PySide6.QtCore import QObject, QTimer, Signal

from explorer.core.errors import ExplorerError

from .worker import RecomputeWorker

IDLE, COMPUTING, READY, FAILED = "idle", "computing", "ready", "failed"
LIVE_COST = 4_000_000  # ≈ multiply-adds: about 10 ms of NumPy, what an edit may take of the GUI thread


def _why(exc):
    """An ExplorerError's message as made: a core text marked for translation stays one (the panel shows it
    in the interface's language)."""
    return exc.args[0] if len(exc.args) == 1 else str(exc)


class Background(QObject):
    """One view's computation off the GUI thread: ``state``, ``result``, ``reason``; ``changed()`` on any change."""

    changed = Signal()

    def __init__(self, model, parent=None):
        """``model``'s ``shutdown()`` (the window closing) stops this one's worker too."""
        super().__init__(parent)
        self.state, self.result, self.reason = IDLE, None, ""
        self.key = self.result_key = None  # the newest key asked, and the one ``result`` is of
        self._asked = 0  # generation of the newest request handed to the worker
        self._job = None  # the request waiting for the turn to end
        self._worker = RecomputeWorker(self)
        self._worker.done.connect(self._done)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start)
        model.backgrounds.add(self)
        worker = self._worker  # (not self: the slot must not keep this object alive, nor need it)
        self.destroyed.connect(lambda *_: worker.stop())

    def ask(self, key, job, cost):
        """The result for ``key``: made now when ``cost`` is small, else on the worker (COMPUTING until it comes)."""
        if key == self.key and self.state != IDLE:
            return
        self.key = key
        self._drop_in_flight()
        if cost < LIVE_COST:
            try:
                self._take(key, job(lambda: False))
            except ExplorerError as exc:
                self._fail(_why(exc))
            except MemoryError:  # as the worker says it
                self._fail("not enough memory for this at this size")
            return
        self._job = job
        self._timer.start(0)
        self._set(COMPUTING)

    def forget(self):
        """The inputs are about to change under a job in flight (the model's results rewritten): stop it; the
        next ``ask`` starts again even with the same key."""
        if self.state == COMPUTING:
            self._drop_in_flight()
            self.key = None

    @property
    def busy(self):
        """True while a request waits or runs."""
        return self._timer.isActive() or self._worker.busy

    def finish(self):
        """Start a waiting request now and take its result (tests, scripts)."""
        if self._timer.isActive():
            self._timer.stop()
            self._start()
        last = self._worker.finish()
        if last is not None:
            self._done(*last)

    def shutdown(self):
        """Stop the worker (the window closes): a job in flight stops at its next check."""
        try:
            self._timer.stop()
            self._job = None
            self._worker.stop()
        except RuntimeError:  # its panel, and so this object, was deleted already (its worker stopped with it)
            pass

    # ----- internals ---------------------------------------------------------------------------------
    def _drop_in_flight(self):
        self._timer.stop()
        self._job = None
        self._asked += 1  # whatever is in flight now answers an older request: dropped when it comes
        self._worker.cancel(wait=False)

    def _start(self):
        job, self._job = self._job, None
        if job is not None:
            self._asked += 1
            self._worker.submit(self._asked, job)

    def _done(self, asked, outcome):
        if asked != self._asked or outcome is None:
            return  # overtaken by a newer request, or stopped
        if isinstance(outcome, ExplorerError):
            return self._fail(_why(outcome))
        self._take(self.key, outcome)

    def _take(self, key, result):
        self.result, self.result_key, self.reason = result, key, ""
        self._set(READY, force=True)

    def _fail(self, reason):
        self.reason = reason
        self._set(FAILED, force=True)

    def _set(self, state, force=False):
        if state != self.state or force:
            self.state = state
            self.changed.emit()

