"""A view's computation that reads the model's results where they are (a ``Background``): without copying them on
the worker (128 MiB a head at L = 4096), for the Efficient attention, Sensitivity and A/B diff views.

An edit rewrites the results in place, so such a read may be torn. The key names the results read (the load, their
revision and identity), so a torn read is only ever of an older key: a job whose key went stale stops at its next
check, and its result is dropped; an edit that is about to rewrite them (``state_changed``) stops it too.
"""
import weakref

from .background import Background


def _reading(model):
    """What names the model's results now (None once the model is gone)."""
    return None if model is None else (model.loads, model.revision, id(model.results))


class ResultsWork(Background):
    """``ask(what, job, cost)`` of the model's results now; ``what`` names the result among theirs (a head, a cell)."""

    def __init__(self, model, parent=None):
        super().__init__(model, parent)
        self._model = weakref.ref(model)  # (the job holds this too: never the model, nor this object)
        model.state_changed.connect(self.forget)  # the results are about to be rewritten: stop reading them

    def ask(self, what, job, cost):
        """``Background.ask`` with the key ``(load, revision, id(results), *what)``; ``job(cancelled)`` reads the
        results as they are now, and its ``cancelled()`` turns true also once they are no longer these."""
        model = self._model
        read = _reading(model())

        def reading(cancelled):
            return job(lambda: cancelled() or _reading(model()) != read)

        super().ask(read + tuple(what), reading, cost)
