"""A real model beside the session (F19): open a checkpoint, run typed text through it off the GUI
thread (progress "layer k of N", cancel, the latest text wins), and hand out a head as a session.

The forward pass and the thumbnails' max-pooling run on a worker thread (the pass shares its rows and
heads between the cores itself: ``explorer.models.lanes``); the window only receives the finished run.
"""
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from explorer.core.errors import ExplorerError
from explorer.core.translatable import QT_TRANSLATE_NOOP, message_of
from explorer.core.pooling import max_pool

from .worker import RecomputeWorker

THUMB = 48  # cells of a head's thumbnail at most, per side


@dataclass(frozen=True)
class ModelRun:
    """A finished run: the model's ``run`` and every head's weights max-pooled to a thumbnail."""

    run: object
    thumbnails: np.ndarray  # (layers, heads, ≤ THUMB, ≤ THUMB)


class Checkpoints(QObject):
    """The opened checkpoint and its latest run. ``opened(name)``, ``progress(text)``, ``ran()``
    (``latest`` holds it) and ``failed(reason)`` arrive on the GUI thread."""

    opened = Signal(str)
    progress = Signal(str)
    ran = Signal()
    generated = Signal()  # ``generation`` holds it
    failed = Signal(object)  # why: a text, marked for translation when the reader marked it (core/translatable)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = None  # an explorer.models.Model
        self.latest = None  # the ModelRun of the newest text that finished
        self.generation = None  # the newest greedy generation (explorer.models.generate.Generation)
        self.text = ""
        self._refused = {}  # resolved folder → why the last try to open it failed (until it opens)
        self._worker = RecomputeWorker(self)
        self._worker.done.connect(self._done)
        self._generation = self._handled = 0
        self._one_pass = threading.Lock()  # one forward pass at a time: runs and edited heads share the model

    @property
    def busy(self):
        return self._worker.busy

    def open(self, where="embedded"):
        """Open a checkpoint folder, a cached repo id ("gpt2"), or the embedded model. Reading the config
        and the tensor headers is quick (tensors stay memory-mapped); a bad file says why (``failed``)."""
        from explorer import models  # numpy-only, but tokenizers and safetensors load only when wanted
        try:
            model = models.open_embedded_model() if where == "embedded" else models.open_checkpoint(where)
        except (ExplorerError, OSError) as exc:
            reason = message_of(exc)  # names the file ("config.json: …"); which folder, unless it says so already
            if where != "embedded":
                self._refused[Path(where).resolve()] = reason
            self.failed.emit(reason if where == "embedded" or str(where) in reason else
                             QT_TRANSLATE_NOOP("ModelView", "{where}: {reason}").format(where=where, reason=reason))
            return False
        self.cancel()
        self.model, self.latest = model, None
        self._refused.pop(Path(model.folder).resolve(), None)
        self.opened.emit(model.name)
        return True

    def refusal(self, folder):
        """Why the last try to open ``folder`` (a resolved Path) failed, or None (never tried, or opened since)."""
        return self._refused.get(folder)

    def run(self, text):
        """Run ``text`` on the worker; a newer call overtakes the one in flight (it stops at its next layer)."""
        self.text = text

        def job(model, progress, cancelled):
            run = model.run(text, progress=progress, cancelled=cancelled)
            return ModelRun(run, max_pool(run.attentions, THUMB, THUMB))

        self._submit(job)

    def run_ids(self, ids, text):
        """Run exactly these token ids (a reopened head's), ``text`` being what they spell; as ``run``."""
        self.text = text
        ids = [int(i) for i in ids]

        def job(model, progress, cancelled):
            run = model.run_ids(ids, progress=progress, cancelled=cancelled)
            return ModelRun(run, max_pool(run.attentions, THUMB, THUMB))

        self._submit(job)

    def generate(self, text, n_new):
        """Generate ``n_new`` tokens greedily after ``text`` with a K/V cache in every layer (on the worker)."""
        self._submit(lambda model, progress, cancelled: model.generate(text, n_new, progress=progress,
                                                                        cancelled=cancelled))

    def _submit(self, work):
        """``work(model, progress, cancelled)`` on the worker; the newest wins."""
        if self.model is None:
            self.failed.emit(QT_TRANSLATE_NOOP("ModelView", "No model is open"))
            return
        model, progress = self.model, self.progress.emit
        self._generation += 1
        self._worker.cancel(wait=False)

        def job(cancelled):
            from explorer.models import RunCancelled
            try:
                with self.exclusive(cancelled):
                    return work(model, progress, cancelled)
            except RunCancelled:
                return None

        self._worker.submit(self._generation, job)

    @contextmanager
    def exclusive(self, cancelled):
        """On a worker thread: wait for any other pass on the model to end (RunCancelled if ``cancelled()``
        turns true meanwhile), then hold the model for this one."""
        from explorer.models import RunCancelled
        while not self._one_pass.acquire(timeout=0.05):
            if cancelled():
                raise RunCancelled("stopped before it started")
        try:
            yield
        finally:
            self._one_pass.release()

    def cancel(self):
        """Stop the run in flight (it ends at its next layer); the last finished run stays."""
        self._generation += 1
        self._worker.cancel(wait=False)
        self.progress.emit("")

    def finish(self):
        """Wait for the run in flight and take its result now (tests, the command line)."""
        last = self._worker.finish()
        if last is not None:
            self._done(*last)

    def _done(self, generation, outcome):
        if generation != self._generation or generation == self._handled or outcome is None:
            return
        self._handled = generation
        if isinstance(outcome, ExplorerError):
            self.failed.emit(message_of(outcome))
            return
        self.progress.emit("")
        if isinstance(outcome, ModelRun):
            self.latest = outcome
            self.ran.emit()
        else:
            self.generation = outcome
            self.generated.emit()

    def head_session(self, layer, head):
        """The latest run's head as an ordinary session (CheckpointError/SessionError say why not)."""
        return self.model.head_session(self.latest.run, layer, head)

    def head_source(self, layer, head):
        """Where ``head_session(layer, head)`` comes from, kept with the session so its edits can flow back."""
        from explorer.models import head_source
        return head_source(self.model, self.latest.run, layer, head)

    def serves(self, source):
        """True when the open model is the checkpoint ``source`` (a HeadSource) was made from."""
        return self.model is not None and Path(self.model.folder).resolve() == source.folder

    def shutdown(self):
        self._worker.stop()
