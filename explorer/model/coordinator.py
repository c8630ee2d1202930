"""The recompute coordinator: brings the results up to date once per event-loop turn, on this thread
when cheap, on the worker when not (latest wins), and says at every moment what the results are.

What the results are is ONE value, ``Phase`` (``phases.py``), changed only through its ``TRANSITIONS``.

**The shown head first.** A whole recompute on the worker makes the selected head's ① and ② before
anything else (on every lane) and hands them over at once as a *partial* result (``partial``,
announced with the model's ``shown_ready``); the other heads and ③ follow with ``changed``. Panels
that draw only the selected head's scores or weights read ``shown(head)``: the partial when it
holds their head, else ``results`` when readable. A partial is never a half-written buffer: its
head is not written again by its own job, and a later job that would rewrite it (results recomputed
into their own buffers, at L = 4096) is not handed to the worker before the partial has reached this
thread and been drawn — it is *held* (the newest state, taken when handed over), and the partial is
dropped in the same turn it is handed over. A newer request stops a running job once that job has
shown its head (``worker.supersede``), never before, so a drag shows the shown head of job after
job however long a whole recompute takes, and the last value is one head away, not one recompute.
"""
import time
import weakref

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer

from explorer.core.errors import ExplorerError
from explorer.core.raw_scores import RawScores
from explorer.core.recompute import apply_edit, edit_cost, full_cost, recompute
from explorer.core.translatable import QT_TRANSLATE_NOOP, message_of
from explorer.i18n import in_language, translate
from explorer.weak import WeakAttribute

from .flags import LESSON, SELECTION, SETTINGS, STRUCTURE, VALUES
from .phases import FAILED, TRANSITIONS, UNREADABLE, WORKING, Phase as P
from .worker import RecomputeWorker, one_blas_thread

# Work (≈ multiply-adds) above which a recompute leaves the GUI thread: ~5 ms of NumPy on one core.
BACKGROUND_COST = 20_000_000
# After a shown head is drawn, its job waits this long before the other heads (unless a newer request stops
# it): during a drag the next value comes within a frame or two and would stop them anyway, so meanwhile
# the paint, the X server and the next shown head have the cores; when the pointer rests they follow.
REST_MS = 25
# A shown head whose successor is already on the worker is not drawn, and a job a newer request overtakes stops
# before its shown head, when a head was drawn this recently: the screen has a fresh value, and drawing or finishing
# that head would take the cores the newer one needs (a drag still shows a new value about every DRAWN_WITHIN_S).
DRAWN_WITHIN_S = 0.035
# Results above this many bytes are recomputed into their own buffers (no second copy in memory);
# smaller ones get fresh buffers, so panels can keep drawing the last result while the next is made.
REUSE_BYTES = 256 * 2**20

COMPUTED_FLAGS = STRUCTURE | VALUES | SETTINGS  # changes that need new results
# The event that brings the results up to date once per turn, after the edits of the handler that made
# them. Posted with a high priority: ahead of a paint already asked for (a low-priority posted event), so
# during a drag the newest value goes to the worker before the GUI paints the one before it, not after.
_TURN = QEvent.Type(QEvent.registerEventType())


def _bounds(dirty):
    """{matrix: (range of rows, range of columns)} enclosing every written block."""
    out = {}
    for name, rows, cols in dirty:
        r0, c0 = out.get(name, ((rows.start, rows.stop), (cols.start, cols.stop)))
        out[name] = ((min(r0[0], rows.start), max(r0[1], rows.stop)),
                     (min(c0[0], cols.start), max(c0[1], cols.stop)))
    return {name: (range(*r), range(*c)) for name, (r, c) in out.items()}


class Coordinator(QObject):
    """Owns the results, the worker and the per-turn recompute of one ``AttentionModel``; announces new
    results with the model's ``changed`` (and the state alone, early, with ``state_changed``)."""

    model = WeakAttribute()  # the model owns this: no reference back to it (a dropped model is freed at once)

    def __init__(self, model):
        super().__init__(model)
        self.model = model
        self.phase = P.CURRENT
        self.results = None
        self.failure = None  # why the last recompute failed, while ``phase`` is a failed one
        self.edited = None  # with ``changed``: {matrix: (rows, cols)} written since the last one, or None
        self.flushing = False  # True while ``flush()`` runs (its ``changed`` is wanted on screen now)
        self._scheduled = 0  # flags of changes not yet given to a recompute
        self._unannounced = 0  # flags of changes given to a recompute whose results are not yet announced
        self._dirty = []  # (matrix, rows, cols) written since the last recompute; None = recompute whole
        self._generation = 0  # of the newest request given to the worker
        self._accept_from = 0  # worker results of older requests are dropped (another shape, or overtaken)
        self.partial = None  # newer results of which only the selected head's ① and ② are made, or None
        self._partial_from = 0  # partial results of older requests than this are not shown (newer ones are)
        self._unshown = None  # the whole recompute on the worker whose shown head has not reached this thread
        self._held = 0  # flags of a request held until it has (it would rewrite the buffers that head is in)
        self._repeated = None  # (partial, results): the whole results of the recompute that showed that partial
        self._fit = None  # (weak reference to the results, the state, whether they fit it): ``fits``' answer
        self._spare = None  # SpareBuffers the next session loaded may write its results into
        self._shown_at = float("-inf")  # when a shown head was last handed to the panels
        self._copies = None  # (the state's matrices, the worker's copies of them) until one is written
        self._unseen = None  # the job whose shown head a loading session's window has not yet drawn
        self.due = False  # a recompute is posted for this turn (``_TURN``)
        self._raw = RawScores()  # the shown head's QKᵀ, kept by the worker's jobs (a temperature step reuses it)
        self.worker = RecomputeWorker(self)
        self.worker.done.connect(self._on_worker_done)
        self.worker.shown.connect(self._on_shown)

    def _go(self, event):
        self.phase = TRANSITIONS[event][self.phase]

    # ----- what the panels ask -------------------------------------------------------------------
    @property
    def pending(self):
        """True while the results do not describe the state, or cannot be read: panels wait."""
        return bool(self._scheduled & COMPUTED_FLAGS) or self.phase in UNREADABLE or not self.fits(self.results)

    @property
    def computing(self):
        return self.phase in WORKING

    @property
    def loading(self):
        return self.phase in (P.LOADING, P.UNLOADED)

    @property
    def failed(self):
        return self.phase in FAILED

    def shown(self, head):
        """The newest results to draw head ``head``'s ① and ② from: the partial ones when they hold that
        head (a newer state's, while the worker makes the rest), else ``results`` unless ``pending``;
        None while there are none."""
        if self._scheduled & COMPUTED_FLAGS:
            return None
        partial = self.partial
        if partial is not None and partial.partial_head == head and self.fits(partial):
            return partial
        return None if self.pending else self.results

    def repeats(self, earlier, later):
        """Whether ``later`` are the whole results of the recompute whose partial result ``earlier`` was,
        nothing written in between: the same ① and ② numbers of its head, in the same arrays."""
        return self._repeated is not None and self._repeated[0] is earlier and self._repeated[1] is later

    def fits(self, result):
        """Whether a result (perhaps of an earlier state) has the shapes of the current state."""
        if isinstance(result, ExplorerError):
            return True
        state = self.model.state
        seen = self._fit  # panels ask this of the results ~16 times per edit: a state's shapes are fixed
        if seen is not None and seen[0]() is result and seen[1] is state:
            return seen[2]
        widths = state.widths()
        fits = (result is not None and result.n_heads == state.settings.heads and result.kv_heads == state.kv_heads
                and result.q.shape == (len(state.queries), widths[0])
                and result.k.shape == (len(state.tokens), state.kv_width()) and result.v.shape[1] == widths[1]
                and (result.x is None) == (state.settings.source != "projected"))
        if result is not None and result is self.results:
            self._fit = (weakref.ref(result), state, fits)
        return fits

    # ----- what the model tells it ---------------------------------------------------------------
    def schedule(self, flags):
        self._scheduled |= flags
        if not self.due:
            self.due = True
            QCoreApplication.postEvent(self, QEvent(_TURN), Qt.EventPriority.HighEventPriority.value)

    def stop(self):
        """Stop the worker; a recompute posted for this turn is dropped (it would start the worker again:
        an explicit ``recompute()`` still does)."""
        self.due = False
        self.worker.stop()

    def event(self, event):
        if event.type() == _TURN:
            if self.due:  # (else a flush came first)
                self.recompute()
            return True
        return super().event(event)

    def wrote(self, name, rows, cols):
        """A block of ``name`` was written in place: a small edit may update the results in place."""
        self._copies = None
        if self._dirty is not None:
            self._dirty.append((name, rows, cols))

    def whole(self):
        """The next recompute must be whole (the state was replaced)."""
        self._dirty = None

    def expect(self, spare):
        """The next session loaded may write its results into ``spare`` (None: forget any)."""
        if self._spare is not None and self._spare is not spare:
            self._spare.release()
        self._spare = spare

    def load(self, wait, snapshot):
        """A new session: computed here when cheap (or ``wait``), else on the worker (into the spare
        buffers made for it, when there are and the results' own do not fit)."""
        self._dirty = None
        state = self.model.state
        if wait or full_cost(state.matrices, state.settings) <= BACKGROUND_COST:
            self.expect(None)
            self.recompute(wait=True)  # a small session is never shown without its results
            return
        if self.results is None:
            # The window's first session. The editor builds its read-only X·Wᵀ tables from
            # ``results`` when it first shows a projected session: give it the demo's (~1 ms, never
            # drawn while ``pending``) rather than None, as if the window had opened this on the demo.
            demo = self.model.demo_state()
            self.results = recompute(demo.matrices, demo.settings)
        self._go("LOAD")
        self.recompute(snapshot=snapshot)

    # ----- recomputing ---------------------------------------------------------------------------
    def recompute(self, wait=False, snapshot=None):
        """Bring the results up to date and announce them once: in place for a small edit, on the GUI
        thread when cheap, else on the worker (``state_changed`` now, ``changed`` when it is done).
        ``wait=True`` never defers: tests, screenshots and exports need the numbers now.
        ``snapshot``: the current matrices where no edit can reach them (else the worker gets copies)."""
        m = self.model
        self.due = False
        flags, self._scheduled = self._scheduled, 0
        dirty, self._dirty = self._dirty, []
        if not flags:
            return
        self.edited = _bounds(dirty) if dirty and not flags & (STRUCTURE | SETTINGS) else None
        if flags & COMPUTED_FLAGS:
            try:
                small = not flags & ~(VALUES | SELECTION | LESSON)
                edited = self._apply_edits(dirty, wait) if small else None
                if edited is not None:
                    self._repeated = None  # the results' numbers change where they are
                if edited == "deferred":
                    self._unannounced |= flags
                    m.state_changed.emit(flags)
                    return
                if edited is None:
                    state = m.state
                    if full_cost(state.matrices, state.settings) <= BACKGROUND_COST:
                        flags |= self._compute_here()
                    elif not wait:
                        self._submit(flags, snapshot)
                        m.state_changed.emit(flags)
                        return
                    else:
                        one_blas_thread()  # large work on this thread too: no BLAS threads fighting it
                        flags |= self._compute_here(**self.worker.sharing())
            except (ExplorerError, MemoryError) as exc:
                self._fail(flags, exc)
                m.state_changed.emit(flags)
                return
        m.changed.emit(flags)  # new results, or a selection or the lesson (a failure stays to retry)

    def _fail(self, flags, exc):
        """A recompute failed: the old results stay (panels check ``pending`` before reading them),
        the next recompute is whole, and the change is announced with the next results."""
        self._dirty = None
        self._unannounced |= flags
        self._go("FAIL")
        self._partial_from = self._generation + 1
        if self.partial is not None:  # its head's panels go back to what the others show
            self.partial = None
            self.model.shown_ready.emit(VALUES)
        reason = (message_of(exc) if isinstance(exc, ExplorerError)
                  else QT_TRANSLATE_NOOP("Coordinator", "not enough memory at this size"))
        self.failure = reason  # (English to the code; in_language says it)
        self.model.message.emit(translate("Coordinator", "Could not compute attention: {why}").format(
            why=in_language(reason)))

    def _compute_here(self, **sharing):
        """A whole recompute on this thread (and the worker's lanes, when ``sharing`` says so);
        whatever the worker was doing is overtaken (its flags are returned, to be announced now)."""
        self.worker.cancel()
        self._accept_from = self._generation + 1
        overtaken, self._unannounced = self._unannounced | self._held, 0
        self.partial, self._unshown, self._held, self._repeated = None, None, 0, None
        previous = self.results if self._big() else None
        if previous is not None:
            self._go("REWRITE")  # stays unreadable if it fails half way through
        state = self.model.state
        try:
            self.results = recompute(state.matrices, self.model.settings, previous=previous, **sharing)
        except (ExplorerError, MemoryError):
            self._unannounced |= overtaken
            raise
        self._go("COMPUTED")
        self.failure = None
        return overtaken

    def _apply_edits(self, dirty, wait):
        """Update the results in place for a few edited cells of Q, K or V: "done" here, "deferred" to
        the worker (a K cell at L = 4096 redoes one head, not eight), or None when it must be whole."""
        m = self.model
        if (not dirty or self.results is None or m.projected or self.worker.busy
                or self.phase is not P.CURRENT or not self.fits(self.results)):
            return None
        merged = {}
        for name, rows, cols in dirty:
            r, c = merged.setdefault(name, (set(), set()))
            r.update(rows)
            c.update(cols)
        edits = [(name, sorted(rows), sorted(cols)) for name, (rows, cols) in merged.items()]
        cost = sum(edit_cost(self.results, *edit) for edit in edits)
        matrices, settings = m.state.matrices, m.settings
        if wait or cost <= BACKGROUND_COST:
            for edit in edits:
                apply_edit(self.results, matrices, settings, *edit)
            return "done"
        if 2 * cost > full_cost(matrices, settings):
            return None
        result = self.results
        snapshot = {name: np.array(matrices[name]) for name in merged}

        def job(run):
            for edit in edits:
                if run():
                    return None
                apply_edit(result, snapshot, settings, *edit)
            return result

        self._generation += 1
        self._go("REWRITE")  # before the worker starts writing into the buffers on screen
        self.worker.submit(self._generation, job)
        return "deferred"

    def _big(self):
        """True when the results are too large to keep a second copy: recompute into their buffers."""
        return self.results is not None and 2 * self.results.heads.scores.nbytes > REUSE_BYTES

    def _submit(self, flags, snapshot=None):
        """Give the worker a snapshot of the inputs; the selected head comes first, shown on its own."""
        big = self._big()
        fresh = bool(flags & STRUCTURE) or self.loading
        if big and not fresh and self._unshown is not None:
            # The running job writes into the results' buffers and its shown head has not reached this
            # thread: the next job would rewrite that head before anyone saw it. Held until it has.
            self._held |= flags
            return
        flags, self._held = flags | self._held, 0
        if snapshot is None:
            snapshot = self._worker_copies()
        settings = self.model.settings
        first = min(settings.selected_head, settings.heads - 1)
        order = [first] + [h for h in range(settings.heads) if h != first]
        previous = self.results if big else None
        spare, self._spare = (self._spare, None) if self.loading else (None, self._spare)
        self._generation += 1
        if fresh:
            # Results of another shape must never be shown, nor, while a session loads, its results
            # from before an edit (nothing of it is on screen yet: the latest request wins).
            self._accept_from = self._generation
        if big or fresh:
            self.partial = None  # its buffers are rewritten from now on (or it is of another shape)
        if fresh:
            # The job still running is of no use: it stops at its next check, and this one runs after
            # it on the same thread (one writer at a time); the GUI waits for neither.
            self.worker.cancel(wait=False)
        else:  # it stops once it has shown its head (at once if one was drawn a moment ago); this one runs after it
            self.worker.supersede(at_once=time.perf_counter() - self._shown_at < DRAWN_WITHIN_S)
        self._unshown = self._generation
        self._unannounced |= flags
        self._go("REWRITE" if big else "SUBMIT")
        sharing = self.worker.sharing()
        self.worker.submit(self._generation, lambda run: recompute(  # the shown head's summaries only
            snapshot, settings, previous=previous, order=order, summarise=order[:1], cancelled=run,
            on_shown=run.show, spare=spare, raw=self._raw, **sharing))

    def _worker_copies(self):
        """Copies of the state's matrices that no edit can reach, for the worker: the last ones again while
        the same arrays are the state's and none was written in place since (a temperature step copied
        Q, K and V into fresh memory each time: 0.2–3 ms at L = 1024 on this thread)."""
        matrices = self.model.state.matrices
        if self._copies is not None:
            sources, copies = self._copies
            if sources.keys() == matrices.keys() and all(sources[k] is a for k, a in matrices.items()):
                return copies
        copies = {k: np.array(a) for k, a in matrices.items()}
        self._copies = (dict(matrices), copies)
        return copies

    def _release(self):
        """The job a request was held for has shown its head (or ended): hand the request over."""
        if not self._held or self._unshown is not None:
            return
        flags = self._held
        try:
            self._submit(flags)
        except MemoryError as exc:  # copying the inputs
            self._held = 0
            self._fail(flags, exc)
            self.model.state_changed.emit(flags)

    def _on_shown(self, generation, partial):
        """The worker made the shown head's ① and ②: draw them (``shown_ready``) unless newer numbers
        are shown already; then a request held for them goes to the worker."""
        if generation == self._unshown:
            self._unshown = None
        rewritten = self._big() and generation != self._generation  # a newer job writes its arrays (held: never)
        # a newer job's shown head is on its way to this thread already (or that job runs, and a head was
        # drawn a moment ago): drawing this one is lost work
        overtaken = self.worker.shown_newest > generation or (
            generation < self._generation and time.perf_counter() - self._shown_at < DRAWN_WITHIN_S)
        taken = (generation >= max(self._accept_from, self._partial_from) and self.fits(partial) and not rewritten
                 and not overtaken)
        if taken and self.loading:
            # A loading session's ① and ② come out from under their covers a turn or two later: the job
            # goes on when the window says they are drawn (``shown_drawn``), or a newer request stops it.
            self._unseen = generation
        else:  # the job goes on REST_MS after this turn (and the paint it asked for), or a newer request stops it
            QTimer.singleShot(REST_MS, self, lambda: self.worker.seen(generation))
        if taken:
            self.partial = partial
            self._partial_from = generation + 1
            self._shown_at = time.perf_counter()
            self.model.shown_ready.emit(self._unannounced)  # panels of the shown head draw it now
        self._release()

    def shown_drawn(self):
        """The window has drawn the loading session's shown head: the worker goes on with the other heads."""
        generation, self._unseen = self._unseen, None
        if generation is not None:
            self.worker.seen(generation)

    def _on_worker_done(self, generation, outcome):
        """A background recompute finished: show it (a drag shows progress) unless a newer state of
        another shape, or a recompute on this thread, has overtaken it."""
        if generation == self._unshown:
            self._unshown = None  # it ended without showing its head (a failure)
        self._take(generation, outcome)
        self._release()

    def _take(self, generation, outcome):
        if generation < self._accept_from or not self.fits(outcome):
            return
        latest = generation == self._generation and not self._held
        if isinstance(outcome, ExplorerError):
            if latest:  # (a half-rewritten result stays unreadable: ``pending`` keeps panels off it)
                self._fail(0, outcome)
            return
        self.results = outcome
        completes = self.partial is not None and self._partial_from == generation + 1
        self._repeated = (self.partial, outcome) if completes else None
        if self._partial_from <= generation + 1:  # the partial result is of this request or older
            self.partial = None
            self._partial_from = generation + 1
        flags = self._unannounced
        if latest:
            self._unannounced = 0
            self._go("DONE")
            self.failure = None
        else:
            self._go("DONE_OLDER")
        self.edited = None
        self.model.changed.emit(flags)

    def flush(self):
        """Have the results of the current state now: the worker's when it is computing them, else
        computed on this thread (a failed recompute is tried again)."""
        self.flushing = True  # whoever draws what ``changed`` brings now draws it at once, not in steps
        try:
            self._scheduled |= self._held  # a request held for the worker's shown head: computed now
            self._held = 0
            if self.computing and not self._scheduled:
                last = self.worker.finish()
                if last is not None and last[0] == self._generation:
                    self._on_worker_done(*last)  # at once, on this thread
                    self._accept_from = self._generation + 1  # so its queued ``done`` does not come twice
            # Whenever the results do not describe the state (a failed recompute, a session loaded but
            # never computed, buffers left half rewritten), recompute whole on this thread.
            if self.phase is not P.CURRENT or not self.fits(self.results):
                self._scheduled |= self._unannounced | VALUES
                self._unannounced, self._dirty = 0, None
            if self._scheduled:
                self.recompute(wait=True)
        finally:
            self.flushing = False
