"""The worker's wait for a shown head to be drawn: a GUI thread blocked in ``finish()`` draws nothing, so a
job that shows its head meanwhile must go on at once, also when it started after ``finish()`` began
waiting (it was still queued behind another job). Nothing is timed: the wait is watched for how it ended."""
import threading

from explorer.model import worker as worker_module
from explorer.model.worker import RecomputeWorker


class WatchedCondition(threading.Condition):
    """Records how each ``wait_for`` ended: True, its predicate held; False, it timed out."""

    def __init__(self):
        super().__init__()
        self.ends = []

    def wait_for(self, predicate, timeout=None):
        ended = super().wait_for(predicate, timeout)
        self.ends.append(bool(ended))
        return ended


def test_a_job_that_starts_after_finish_began_waiting_does_not_wait_for_a_draw(qtbot, monkeypatch):
    monkeypatch.setattr(worker_module, "SEEN_WAIT_S", 2.0)
    worker = RecomputeWorker()
    watched = worker._cv = WatchedCondition()
    try:
        def job(run):
            run.show("partial")
            return "whole"

        with watched:  # the worker thread cannot take the job before finish() waits (it releases the lock)
            worker.submit(1, job)
            assert worker.finish() == (1, "whole")
        assert watched.ends == [True]  # its wait ended because finish() counted it drawn, not by timing out
    finally:
        worker.stop()
