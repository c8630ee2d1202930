"""A temperature drag on the worker (issue 18): each job's shown head multiplies the QKᵀ its previous
job kept instead of making it again, and the whole results stay the plain pipeline's bit for bit (a
change of Q makes it again); and a new value goes to the worker before the GUI paints the one before
it. BACKGROUND_COST is lowered so L = 64 goes to the worker; nothing is timed."""
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt

from explorer.core.pipeline import run_pipeline
from explorer.core.presets import random_session
from explorer.model import AttentionModel, coordinator

STAGES = ("scores", "weights", "head_outputs", "output")


@pytest.fixture(params=["fresh buffers", "own buffers"])
def buffers(request, monkeypatch):
    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)
    if request.param == "own buffers":
        monkeypatch.setattr(coordinator, "REUSE_BYTES", 0)
    return request.param


def test_each_step_reuses_the_shown_heads_product_and_every_bit_is_the_pipelines(qtbot, buffers):
    s = random_session(64, 16, seed=4)
    model = AttentionModel(replace(s, settings=replace(s.settings, heads=4)))
    try:
        model.set_selection(head=1)
        model.flush()
        reused = []
        for k, temperature in enumerate((0.6, 0.45, 1.9, 0.8)):
            if k == 2:
                model.set_cell("Q", 5, 4, 2.5)  # head 2's q (d_h = 4): the product is made again
            assert model.set_param("temperature", temperature)
            model.recompute()
            assert model.computing  # on the worker, its shown head first
            qtbot.waitUntil(lambda: not model.computing and model.up_to_date, timeout=10_000)
            reused.append(model.coordinator._raw.reused)
            want = run_pipeline(model._state.matrices, model.settings)
            for stage in STAGES:
                np.testing.assert_array_equal(getattr(model.results.heads, stage), getattr(want.heads, stage),
                                              err_msg=f"{stage} at T = {temperature}")
        assert reused == [False, True, False, True]  # the first: the flush before it computed on this thread
    finally:
        model.shutdown()


class Later(QObject):
    """Records "later" in ``log`` when an event posted to it arrives."""

    def __init__(self, log):
        super().__init__()
        self.log = log

    def event(self, event):
        if event.type() == LATER:
            self.log.append("later")
            return True
        return super().event(event)


LATER = QEvent.Type(QEvent.registerEventType())


def test_a_new_value_goes_to_the_worker_before_what_was_posted_at_low_priority(qtbot, buffers, monkeypatch):
    """A paint asked for is such an event (Qt posts its UpdateRequest at low priority): during a drag
    the newest value is handed to the worker before the GUI paints the one before it."""
    s = random_session(64, 16, seed=5)
    model = AttentionModel(replace(s, settings=replace(s.settings, heads=4)))
    try:
        model.flush()
        log = []
        later = Later(log)
        submit = model.coordinator.worker.submit
        monkeypatch.setattr(model.coordinator.worker, "submit", lambda *a: (log.append("submit"), submit(*a))[1])
        QCoreApplication.postEvent(later, QEvent(LATER), Qt.EventPriority.LowEventPriority.value)
        assert model.set_param("temperature", 0.7)
        qtbot.waitUntil(lambda: len(log) == 2, timeout=5_000)
        assert log == ["submit", "later"]
        qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    finally:
        model.shutdown()


def test_a_shown_head_whose_successor_is_already_handed_over_is_not_drawn(qtbot, monkeypatch):
    """Two jobs show their heads while the GUI thread is busy: only the newer one is drawn. (With results
    recomputed into their own buffers the second request is held until the first head is drawn.)"""
    import time

    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)

    s = random_session(64, 16, seed=6)
    model = AttentionModel(replace(s, settings=replace(s.settings, heads=4)))
    try:
        model.flush()
        drawn = []
        model.shown_ready.connect(lambda flags: drawn.append(model.shown_results().temperature))
        worker = model.coordinator.worker

        def busy_until_shown(generation):  # the GUI thread does not return to its event loop meanwhile
            for _ in range(2000):
                if worker.shown_newest >= generation:
                    return
                time.sleep(0.005)
            raise AssertionError(f"job {generation} did not show its head")

        for temperature in (0.6, 0.9):
            assert model.set_param("temperature", temperature)
            model.recompute()
            busy_until_shown(model.coordinator._generation)
        qtbot.waitUntil(lambda: not model.computing and model.up_to_date, timeout=10_000)
        assert drawn == [0.9]
        assert model.results.temperature == 0.9
    finally:
        model.shutdown()


def test_a_change_still_posted_when_the_model_shuts_down_does_not_start_the_worker_again(qtbot, monkeypatch):
    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)
    s = random_session(64, 16, seed=7)
    model = AttentionModel(replace(s, settings=replace(s.settings, heads=4)))
    model.flush()
    submitted = []
    monkeypatch.setattr(model.coordinator.worker, "submit", lambda *a: submitted.append(a))
    assert model.set_param("temperature", 0.3)  # its recompute is posted for this turn …
    model.shutdown()  # … and the window closes first
    qtbot.wait(20)
    assert submitted == []


def reference_output(q, k, v, heads, temperature):
    """Concatenated head outputs softmax(q_h k_hᵀ / √d_h / T) v_h, written from the definition (no mask)."""
    d = q.shape[1] // heads
    outs = []
    for h in range(heads):
        cols = slice(h * d, (h + 1) * d)
        s = q[:, cols] @ k[:, cols].T / np.sqrt(d) / temperature
        w = np.exp(s - s.max(axis=1, keepdims=True))
        outs.append((w / w.sum(axis=1, keepdims=True)) @ v[:, cols])
    return np.concatenate(outs, axis=1)


def test_the_workers_copies_of_the_inputs_follow_a_cell_written_in_place_and_its_undo(qtbot, buffers):
    """Temperature steps hand the worker the same copies of Q, K and V while nothing writes them; a cell
    edit (written in place) and its undo must reach the next step's results."""
    s = random_session(64, 16, seed=8)
    model = AttentionModel(replace(s, settings=replace(s.settings, heads=4, causal=False)))
    try:
        model.flush()
        original = model.matrix("K")[3, 5]
        steps = [(0.6, None), (0.7, ("K", 3, 5, 9.5)), (0.8, "undo"), (0.9, None)]
        for temperature, edit in steps:
            if edit == "undo":  # the cell's edit is the newest step: undone by writing the old cell back
                model.undo_stack.undo()
                assert model.matrix("K")[3, 5] == original
            assert model.set_param("temperature", temperature)
            if edit not in (None, "undo"):
                assert model.set_cell(*edit)
            model.recompute()
            qtbot.waitUntil(lambda: not model.computing and model.up_to_date, timeout=10_000)
            q, k, v = (np.array(model.matrix(n)) for n in "QKV")
            np.testing.assert_allclose(model.results.heads.output, reference_output(q, k, v, 4, temperature),
                                       rtol=1e-12, atol=1e-12, err_msg=f"T = {temperature}")
    finally:
        model.shutdown()


@pytest.mark.parametrize("within, first_drawn", [(1e9, False), (0.0, True)], ids=["drawn a moment ago", "not lately"])
def test_a_shown_head_whose_successor_runs_is_drawn_only_when_none_was_drawn_a_moment_ago(
        qtbot, monkeypatch, within, first_drawn):
    """Job 1 shows its head after job 2 was handed over (job 2 held at its start): drawing job 1's head
    would take the cores job 2 needs, unless the screen has not had a new value for DRAWN_WITHIN_S.
    The moment is set by the test (0 or forever), nothing is timed."""
    import threading
    import time

    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)
    monkeypatch.setattr(coordinator, "DRAWN_WITHIN_S", within)
    s = random_session(64, 16, seed=9)
    model = AttentionModel(replace(s, settings=replace(s.settings, heads=4)))
    try:
        model.flush()
        assert model.set_param("temperature", 0.5)
        model.recompute()
        qtbot.waitUntil(lambda: not model.computing and model.up_to_date, timeout=10_000)  # one head drawn
        worker, held, second = model.coordinator.worker, threading.Event(), []
        real_submit = worker.submit

        def submit(generation, job):
            if generation in second:
                return real_submit(generation, lambda run: (held.wait(30), job(run))[1])
            return real_submit(generation, job)

        monkeypatch.setattr(worker, "submit", submit)
        drawn = []
        model.shown_ready.connect(lambda flags: drawn.append(model.shown_results().temperature))
        assert model.set_param("temperature", 0.6)
        model.recompute()
        first = model.coordinator._generation
        for _ in range(2000):  # this thread stays out of its event loop until job 1 has shown its head
            if worker.shown_newest >= first:
                break
            time.sleep(0.005)
        second.append(first + 1)
        assert model.set_param("temperature", 0.9)
        model.recompute()
        qtbot.waitUntil(lambda: worker._running == first + 1, timeout=5_000)  # job 1 has ended, job 2 is held
        QCoreApplication.processEvents()  # job 1's head comes in (posted before it ended)
        assert drawn == ([0.6] if first_drawn else [])
        held.set()
        qtbot.waitUntil(lambda: not model.computing and model.up_to_date, timeout=10_000)
        assert drawn[-1] == 0.9 and model.results.temperature == 0.9
    finally:
        model.shutdown()
