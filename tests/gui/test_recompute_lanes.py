"""Whole recomputes share their heads out between threads (one per core, up to four): the same
numbers as the core's pipeline, the shown head's row sums ready, the threads gone after shutdown."""
import threading

import numpy as np
import pytest

from explorer.core import head_steps
from explorer.core.pipeline import run_pipeline
from explorer.core.presets import random_session
from explorer.model import AttentionModel
from explorer.model import coordinator
from explorer.model import worker as worker_module
from tests.gui.same_numbers import assert_same_numbers


def lane_threads():
    return [t for t in threading.enumerate() if t.name.startswith("recompute-lane")]


@pytest.mark.parametrize("lanes", [1, 3])
def test_background_recomputes_with_any_number_of_lanes_equal_the_pipeline(qtbot, monkeypatch, lanes):
    monkeypatch.setattr(worker_module, "cores", lambda: lanes)
    model = AttentionModel(random_session(384, 48, seed=2))
    try:
        model.set_param("heads", 6)
        model.set_selection(head=4)
        model.flush()
        assert coordinator.full_cost(model._state.matrices, model.settings) > coordinator.BACKGROUND_COST
        model.set_param("temperature", 0.6)
        model.recompute()  # to the worker
        assert model.computing
        qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
        assert len(lane_threads()) == lanes - 1
        want = run_pipeline(model._state.matrices, model.settings)
        for stage in ("scores", "weights", "head_outputs", "output"):
            assert_same_numbers(getattr(model.results.heads, stage), getattr(want.heads, stage), err_msg=stage)
        sums = model.results.heads.row_sums
        assert not np.isnan(sums[4]).any()  # the shown head's, made on the way
        for h in range(6):  # the others on first use, the same numbers
            assert_same_numbers(model.results.row_sums(h), want.heads.weights[h].sum(axis=1))
    finally:
        model.shutdown()
    assert lane_threads() == []


def test_an_overflow_in_a_helper_lane_is_a_message_and_the_old_results_stay(qtbot, monkeypatch):
    monkeypatch.setattr(worker_module, "cores", lambda: 2)
    model = AttentionModel(random_session(384, 48, seed=3))
    try:
        model.set_param("heads", 6)
        model.flush()
        before = model.results.heads.weights.copy()
        messages = []
        model.message.connect(messages.append)
        real = head_steps.softmax_rows

        def overflowing(mask, s, w, top, h):  # values the editor allows never overflow: make two heads do
            if h in (3, 4):  # head 3 is a helper lane's (heads 1, 3, 5), head 4 this thread's (0, 2, 4)
                s = np.full_like(s, np.inf)
            return real(mask, s, w, top, h)

        monkeypatch.setattr(head_steps, "softmax_rows", overflowing)
        model.set_param("temperature", 0.5)
        model.recompute()
        qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
        assert any("overflowed at head 4" in m for m in messages), messages  # index 3, the first in order
        np.testing.assert_array_equal(model.results.heads.weights, before)
    finally:
        model.shutdown()
