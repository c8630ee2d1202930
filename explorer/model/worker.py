"""One background thread for recomputes too long for the GUI thread: the latest request wins.

The GUI thread hands over a snapshot of the inputs with a generation number and returns at once.
A request that arrives while another waits replaces it (the older one is never computed); a job
already running is stopped by ``cancel()`` between blocks, or by ``supersede()`` once it has shown
its first head (``Run.show``: the shown head before the rest, so a drag shows progress however long
a whole recompute takes). Results come back on the GUI thread through ``shown`` and ``done``.
A whole recompute deals its heads out to this thread and, on a machine with more cores, to
helper "lanes" (``sharing()``): NumPy releases the GIL in its loops, so they run side by side.
"""
import os
import sys
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal

from explorer.core.errors import ExplorerError
from explorer.core.translatable import QT_TRANSLATE_NOOP


SWITCH_INTERVAL_S = 0.0005
# How long a job that has shown its first head waits for the GUI thread to draw it before going on.
SEEN_WAIT_S = 0.25
MAX_LANES = 4  # threads sharing out the heads of one recompute (NumPy releases the GIL in its loops)
_blas_limited = False


def cores():
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def one_blas_thread():
    """Keep BLAS to one thread per thread: the explorer's own threads (GUI, worker, lanes) share the cores.

    Also hand the GIL over more often: each of the worker's ~200 NumPy calls per recompute needs
    the GIL back, and with Python's default 5 ms switch interval a busy GUI thread (a drag) made
    every one of them wait, so a 50 ms recompute took half a second.
    """
    global _blas_limited
    if not _blas_limited:
        from threadpoolctl import threadpool_limits  # scans the loaded libraries: not at import time

        threadpool_limits(limits=1, user_api="blas")
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        _blas_limited = True


def _stop_at_exit(worker):
    """At interpreter exit, before it joins the executor's (non-daemon) threads, tell the job in
    flight to stop: a model deleted without ``shutdown()`` must not hold the exit for seconds."""
    ref = weakref.ref(worker)

    def stop():
        live = ref()
        if live is not None:
            live._stopping = True

    try:
        threading._register_atexit(stop)  # what concurrent.futures itself uses for the same moment
    except (AttributeError, RuntimeError):  # another Python, or already exiting
        pass


class Run:
    """What a job is given: called, it says whether to stop now; ``show(partial)`` hands the GUI thread
    part of the result early (after which a newer request may stop the job: ``supersede``)."""

    def __init__(self, worker, generation):
        self._worker = worker
        self.generation = generation
        self.shown = False

    def __call__(self):
        w = self._worker
        return (w._stopping or self.generation < w._cancel_below
                or (self.shown and self.generation < w._supersede_below))

    def show(self, partial):
        """Hand ``partial`` to the GUI thread, then wait until it has been drawn (``seen``), a newer
        request stops this job, or SEEN_WAIT_S: the drawing has the cores to itself, and during a drag
        the next value usually comes meanwhile, so heads of an overtaken state are never computed."""
        self.shown = True
        w = self._worker
        if w._stopping:
            return
        with w._cv:
            w.shown_newest = max(w.shown_newest, self.generation)
        try:
            w.shown.emit(self.generation, partial)
        except RuntimeError:  # the model was deleted without shutdown(): nobody to tell
            w._stopping = True
            return
        with w._cv:
            w._cv.wait_for(lambda: w._seen >= self.generation or self(), SEEN_WAIT_S)


class RecomputeWorker(QObject):
    """Runs recompute jobs on its own thread; ``shown(generation, partial result)`` and
    ``done(generation, result or error)`` arrive in the GUI thread."""

    done = Signal(int, object)
    shown = Signal(int, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._cv = threading.Condition()
        self._request = None  # (generation, job): job(run) → result, or None when cancelled
        self._running = None  # generation being computed
        self._cancel_below = 0  # jobs with a smaller generation stop at their next check
        self._supersede_below = 0  # … once they have shown their first head
        self._seen = 0  # the newest job whose shown head the GUI thread has drawn
        self.shown_newest = 0  # the newest job that has handed its shown head over (maybe not yet arrived)
        self._stopping = False
        self._thread = None
        self._last = None  # (generation, outcome) of the newest job that finished
        self._lanes = min(MAX_LANES, cores())
        self._helpers = None  # the executor of lanes 2 … (made on first use)

    def sharing(self):
        """``executor`` and ``lanes`` for ``core.recompute``: how many threads a recompute may use."""
        if self._lanes < 2:
            return {}
        if self._helpers is None:
            self._helpers = ThreadPoolExecutor(self._lanes - 1, thread_name_prefix="recompute-lane")
            _stop_at_exit(self)
        return {"executor": self._helpers, "lanes": self._lanes}

    def submit(self, generation, job):
        """Queue ``job(run)`` (a ``Run``; it must only read copied inputs); replaces any request still waiting."""
        one_blas_thread()
        with self._cv:
            if self._thread is None or not self._thread.is_alive():
                self._stopping = False  # stopped at a close, asked again (a window shown again)
                self._thread = threading.Thread(target=self._loop, name="recompute", daemon=True)
                self._thread.start()
            self._request = (generation, job)
            self._cv.notify_all()

    @property
    def busy(self):
        """True while a job runs or waits (its buffers must not be touched by anyone else)."""
        with self._cv:
            return self._running is not None or self._request is not None

    def cancel(self, wait=True):
        """Drop the waiting request, stop the running job at its next check, and (``wait``) wait for it.
        Without waiting, a job submitted next still runs only after it: one writer at a time."""
        with self._cv:
            self._request = None
            if self._running is not None:
                self._cancel_below = self._running + 1
                self._cv.notify_all()
            while wait and self._running is not None:
                self._cv.wait()

    def seen(self, generation):
        """The GUI thread has drawn what job ``generation`` showed: it goes on with the other heads."""
        with self._cv:
            self._seen = max(self._seen, generation)
            self._cv.notify_all()

    def supersede(self, at_once=False):
        """A newer request comes: the running job stops at its next check once it has shown its first
        head (``Run.show``), not before, so every job of a drag shows something; one that shows
        nothing runs to its end. ``at_once``: it stops at its next check even before (the screen has
        just shown a value, and the newer one is what it waits for)."""
        with self._cv:
            if self._running is not None:
                if at_once:
                    self._cancel_below = self._running + 1
                self._supersede_below = self._running + 1
                self._cv.notify_all()

    def finish(self):
        """Wait until every request has run; (generation, outcome) of the last one, or None."""
        with self._cv:
            while self._running is not None or self._request is not None:
                self._seen = max(self._seen, self._running or 0)  # nobody draws while this thread waits
                self._cv.notify_all()
                self._cv.wait()
            return self._last

    def stop(self):
        """End the thread (at exit); returns once it has finished."""
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
        self.cancel()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        if self._helpers is not None:
            self._helpers.shutdown(wait=True)
            self._helpers = None

    def _loop(self):
        while True:
            with self._cv:
                while self._request is None and not self._stopping:
                    self._cv.wait()
                if self._stopping:
                    return
                generation, job = self._request
                self._request = None
                self._running = generation
                self._cv.notify_all()  # a finish() waiting counts this job's shown head as drawn

            outcome = None
            try:
                outcome = job(Run(self, generation))
            except ExplorerError as exc:
                outcome = exc
            except MemoryError:
                outcome = ExplorerError(QT_TRANSLATE_NOOP("Coordinator", "not enough memory for attention at this size"))
            except Exception as exc:  # noqa: BLE001 — a bug must end in a message, never a dead worker
                sys.excepthook(*sys.exc_info())
                outcome = ExplorerError(QT_TRANSLATE_NOOP("Coordinator", "internal error {error} (please report it)").format(
                    error=repr(exc)))
            finally:
                with self._cv:
                    self._running = None
                    if outcome is not None:
                        self._last = (generation, outcome)
                    self._cv.notify_all()
                    if outcome is not None and not self._stopping:
                        try:
                            self.done.emit(generation, outcome)
                        except RuntimeError:  # the model was deleted without shutdown(): nobody to tell
                            self._stopping = True
