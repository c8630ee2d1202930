"""A view's job that reads the model's results in place (``ResultsWork``): an edit that rewrites them in place
while it runs stops it at its next check, and what it read is never taken; untouched, its result is taken.

Every job goes to the worker here (LIVE_COST 0) and waits at a gate the test opens, so what is asserted never
depends on how fast a thread runs."""
import threading

import pytest

from explorer.model import AttentionModel, background
from explorer.model.background import COMPUTING, READY
from explorer.model.results_work import ResultsWork


@pytest.fixture
def held(monkeypatch, qtbot):
    """(model, work, ask(), checks, gate): ``ask()`` hands the worker a job that says what ``cancelled()``
    answered before and after the gate (``checks``) and returns its results' scores unless told to stop."""
    monkeypatch.setattr(background, "LIVE_COST", 0)
    model = AttentionModel()
    work = ResultsWork(model)
    checks, gate, entered = [], threading.Event(), threading.Event()

    def ask():
        scores = model.results.heads.scores

        def job(cancelled):
            checks.append(cancelled())
            entered.set()
            assert gate.wait(20), "the test never opened the gate"
            checks.append(cancelled())
            return None if checks[-1] else scores.copy()

        work.ask(("scores",), job, 1)
        qtbot.waitUntil(entered.is_set, timeout=10_000)

    yield model, work, ask, checks, gate
    gate.set()
    model.shutdown()


def test_a_job_whose_results_are_rewritten_in_place_stops_at_its_next_check(held):
    model, work, ask, checks, gate = held
    announced = []
    model.state_changed.connect(announced.append)
    ask()
    assert model.set_cell("Q", 0, 0, 2.0)
    model.flush()
    assert not announced  # a small edit, made in the results where they are: nothing told the job to stop
    gate.set()
    work.finish()
    assert checks == [False, True]
    assert work.state == COMPUTING and work.result is None  # what it read is never taken


def test_a_job_whose_results_stay_as_they_were_is_taken(held):
    model, work, ask, checks, gate = held
    before = model.results.heads.scores.copy()
    ask()
    gate.set()
    work.finish()
    assert checks == [False, False] and work.state == READY
    assert (work.result == before).all()
