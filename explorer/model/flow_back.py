"""Edits flow back into the model (F25), in the window: while the session is a real model's head, what
the model says next with the session in place of that head — run again after each edit on a worker
(debounced, then a ``Background``: the newest edit wins, cancellable), beside what it said before any edit.

The session's own numbers and settings go to ``explorer.models.next_token_change``, which runs the
session's pipeline and the forward pass; nothing here computes. A session reopened from a file knows its
head (``HeadSource.from_saved``) but not what the model said before any edit: its first pass runs the
original forward pass on the head's token ids again (``with_logits``). One state value says where it stands:

    NONE     the session is not a model's head (a preset, a file)   → a head is opened: WAITING
    CLOSED   its model is not the open one (another, or none yet)   → that model opened (again): WAITING
    LOST     its checkpoint cannot serve it (``reason``): the folder is gone or does not open, or its
             config no longer matches the head (width, layers, heads, vocabulary)
    MISFIT   the session cannot stand in for the head (a token more, two heads, …; ``reason`` says)
    WAITING  an edit is waiting for its pass, or the pass runs      → READY, FAILED or STOPPED
    READY    ``result`` describes the session as it is now           → an edit: WAITING
    STOPPED  cancelled (``result`` is from before, if any)          → an edit: WAITING
    FAILED   the pass refused the numbers (``reason``)              → an edit: WAITING
"""
import math
import time
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from explorer.core.translatable import QT_TRANSLATE_NOOP
from explorer.weak import WeakAttribute

from . import background
from .background import Background

NONE, CLOSED, LOST, MISFIT, WAITING, READY, STOPPED, FAILED = ("none", "closed", "lost", "misfit", "waiting", "ready",
                                                               "stopped", "failed")
PAUSE_MS = 120     # a pass starts this long after the last edit …
MOST_WAIT_S = 0.4  # … or this long after the first one still waiting, so a long drag still shows results
TOP_K = 5  # the likeliest next tokens shown: the whole comparison fits a low dock (1024 × 640)


class FlowBack(QObject):
    """``changed()`` when ``state``, ``reason`` or ``result`` change; ``progress(text)`` during a pass."""

    changed = Signal()
    model = WeakAttribute()  # the model owns this: no reference back to it (a dropped model is freed at once)
    progress = Signal(str)

    def __init__(self, model, checkpoints, parent=None):
        super().__init__(parent)
        self.model, self.ck = model, checkpoints
        self.state, self.reason = NONE, ""
        self.result = None   # explorer.models.NextTokenChange of the newest pass that finished
        self.source = None   # the HeadSource ``result`` belongs to
        self.watching = False
        self._baseline = None  # (source, the unedited run's weights of the later layers)
        self._unedited = None  # the source of a reopened session with the logits its first pass computed
        self._fits = None      # (source, open model, why that model no longer fits it or None): a cache
        self._seen = None      # what the state was worked out for: (source, revision, open model, why lost)
        self._done_for = None  # … and what ``result`` was computed for
        self._passes = 0       # passes asked for: each is a request of its own (a pass run again too)
        self._first_wait = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start)
        self.work = Background(model, self)  # the pass: ``work.key`` is (its number, what ``_seen`` was)
        self.work.changed.connect(self._done)
        model.changed.connect(self.refresh)
        model.history_moved.connect(self.refresh)
        checkpoints.opened.connect(self.refresh)
        checkpoints.failed.connect(self.refresh)  # the head's own checkpoint may be the one that would not open
        self.refresh()  # (made on first use: the session may be a model's head already)

    @property
    def busy(self):
        """True while a pass waits or runs."""
        return self._timer.isActive() or self.work.busy

    def watch(self, on):
        """Passes run only while someone looks (the view shown); looking again catches up."""
        self.watching = bool(on)
        if self.watching and self.state == WAITING and not self.busy:
            self._schedule()

    def home(self):
        """The folder of the session's model while it is not open but can be tried (CLOSED), else None."""
        return str(self.source.folder) if self.state == CLOSED else None

    def refresh(self, *_):
        """Work out the state after an edit, an undo, a load, another model opened or a model refused."""
        source = self.model.state.model_head
        served = source is not None and self.ck.serves(source)
        lost = None if source is None else self._lost(source, served)
        seen = (source, self.model.revision, self.ck.model, lost)
        if seen == self._seen:
            return
        self._seen = seen
        if source is not self.source:
            self.source, self.result, self._done_for = source, None, None
        if source is None:
            return self._stop(NONE)
        if lost is not None:
            return self._stop(LOST, lost)
        if not served:
            return self._stop(CLOSED)
        from explorer.models.flow_back import misfit
        problem = misfit(source, self.model.state)
        if problem is not None:
            return self._stop(MISFIT, problem)
        if self._done_for == seen:
            return self._set(READY)
        self._set(WAITING)
        self._schedule()

    def cancel(self):
        """Stop the pass in flight (at its next layer); the last result stays, marked as before the edit."""
        if self.state == WAITING:
            self._stop(STOPPED)

    def rerun(self):
        """Run the stopped pass again (the session as it is now)."""
        if self.state in (STOPPED, FAILED):
            self._seen = None
            self.refresh()

    def finish(self):
        """Start a waiting pass now and take its result (tests, the command line)."""
        if self._timer.isActive():
            self._timer.stop()
            self._start()
        self.work.finish()

    def shutdown(self):
        self._timer.stop()
        self.work.shutdown()

    # ----- internals ---------------------------------------------------------------------------------
    def _lost(self, source, served):
        """Why the head's checkpoint cannot serve the session, or None: open, its config no longer matches the
        head; not open, its folder is not there or the last try to open it failed."""
        if served:
            model = self.ck.model
            if self._fits is None or self._fits[0] is not source or self._fits[1] is not model:
                from explorer.models.flow_back import checkpoint_misfit
                self._fits = (source, model, checkpoint_misfit(model.config, source))
            why = self._fits[2]
            return None if why is None else QT_TRANSLATE_NOOP("ModelView", "no longer matches it: {why}").format(why=why)
        if not source.folder.is_dir():
            return QT_TRANSLATE_NOOP("ModelView", "cannot be opened: the folder is not there any more")
        refused = self.ck.refusal(source.folder)
        return None if refused is None else QT_TRANSLATE_NOOP("ModelView", "cannot be opened: {why}").format(why=refused)

    def _known(self, source):
        """The source with what the model said before any edit: its own logits (a head just opened), the ones a
        reopened session's first pass computed, or the latest run's on the same ids; None: the pass must."""
        if source.logits is not None:
            return source
        if self._unedited is not None and self._unedited.same_head(source):
            return self._unedited
        if self._latest_is(source):
            logits = np.array(self.ck.latest.run.last_logits, dtype=np.float32)
            logits.flags.writeable = False
            return replace(source, logits=logits)
        return None

    def _set(self, state, reason=""):
        if (state, reason) != (self.state, self.reason) or state == READY:
            self.state, self.reason = state, reason
            self.changed.emit()

    def _stop(self, state, reason=""):
        self._timer.stop()
        self._first_wait = None
        self.work.forget()
        self._set(state, reason)

    def _schedule(self):
        if not self.watching:
            return
        now = time.monotonic()
        if self._first_wait is None or not self._timer.isActive():
            self._first_wait = now
        if now - self._first_wait < MOST_WAIT_S or not self._timer.isActive():
            self._timer.start(PAUSE_MS)

    def _start(self):
        """Snapshot the session (copies: later edits write in place) and hand it to the worker: never run on this
        thread (a model's forward pass), and a pass still in flight is dropped."""
        self._first_wait = None
        source, model = self.source, self.ck.model
        if self.state != WAITING or source is None or model is None:
            return
        session = self.model.to_session()
        baseline = self._baseline[1] if self._baseline and self._baseline[0].same_head(source) else None
        if baseline is None and self._latest_is(source):
            baseline = self.ck.latest.run.attentions[source.layer + 1:]  # the run the head was opened from
        known = self._known(source)
        self._passes += 1
        progress, exclusive = self.progress.emit, self.ck.exclusive

        def job(cancelled):
            from explorer.models import RunCancelled, next_token_change, with_logits
            try:
                with exclusive(cancelled):
                    full, unedited = known, baseline
                    if full is None:  # a reopened session: the original pass on its ids, as when it was opened
                        full, weights = with_logits(model, source, progress=progress, cancelled=cancelled)
                        unedited = weights if unedited is None else unedited
                    found = next_token_change(model, full, session, k=TOP_K, progress=progress,
                                              cancelled=cancelled, baseline=unedited)
            except RunCancelled:
                return None
            return full, found

        self.work.ask((self._passes, self._seen), job, math.inf)

    def _latest_is(self, source):
        latest = self.ck.latest
        return latest is not None and tuple(latest.run.ids) == source.ids and self.ck.serves(source)

    def _done(self):
        """The newest pass answered (``work`` dropped the older ones, and those stopped)."""
        work = self.work
        if work.state == background.FAILED:
            self._done_for = None
            return self._set(FAILED, str(work.reason))
        if work.state != background.READY:
            return
        (_, seen), (source, (change, baseline)) = work.result_key, work.result
        self._baseline = (source, baseline)
        if self.source is not None and self.source.logits is None and source.same_head(self.source):
            self._unedited = source  # its first pass's logits serve every later one
        self.result, self._done_for = change, seen
        self._set(READY if seen == self._seen else WAITING)
