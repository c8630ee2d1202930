"""The shown head first (issue 18): a whole recompute on the worker hands over the selected head's ①
and ② before the other heads; the Scores and Weights panels draw them at once while every other
view waits, a loading session uncovers those two docks first, and no view ever reads an array while
the worker writes it — in both kinds of buffers: fresh ones (results small enough to keep a copy)
and the results' own (too large to copy: the next recompute rewrites the arrays on screen).

BACKGROUND_COST is lowered so sessions of L = 64 go to the worker; REUSE_BYTES = 0 makes every
result "too large to copy". References are written from the definitions here; nothing is timed.
"""
import threading
import time
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QTimer

from explorer.core import head_steps as hs, recompute as rc
from explorer.core.pipeline import run_pipeline
from explorer.core.presets import random_session
from explorer.model import AttentionModel, coordinator
from explorer.widgets.heatmap import Heatmap
from tests.gui.same_numbers import assert_same_numbers

HEADS = 4


def big_session(seed=3, length=64):
    s = random_session(length, 16, seed=seed)
    return replace(s, settings=replace(s.settings, heads=HEADS), title=f"big {seed}")


def reference_head(model, head):
    """The selected head's scores and weights for the model's state, from the definitions (direct
    mode, no mask, no RoPE, no ALiBi: what ``big_session`` is)."""
    s = model.settings
    assert s.source == "direct" and not s.causal and not s.rope and s.positions == "none"
    d_h = model.matrix("Q").shape[1] // s.heads
    cols = slice(head * d_h, (head + 1) * d_h)
    scores = model.matrix("Q")[:, cols] @ model.matrix("K")[:, cols].T / np.sqrt(d_h) / s.temperature
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    return scores, e / e.sum(axis=1, keepdims=True)


@pytest.fixture(params=["fresh buffers", "own buffers"])
def buffers(request, monkeypatch):
    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)
    if request.param == "own buffers":
        monkeypatch.setattr(coordinator, "REUSE_BYTES", 0)
    return request.param


class AfterShown:
    """Once armed, holds the worker's jobs after they have handed over their shown head, until
    ``release()``: what is asserted "before the rest" is never a race. A job told to stop meanwhile stops."""

    def __init__(self, monkeypatch):
        self._go = threading.Event()
        self.armed = True
        self.shown = []
        real = coordinator.recompute

        def held(matrices, settings, *args, on_shown=None, cancelled=None, **kwargs):
            def show(partial):
                on_shown(partial)
                if not self.armed:
                    return
                self.shown.append(partial)
                for _ in range(6000):  # a guard: the test fails rather than hangs
                    if self._go.wait(0.005) or cancelled():
                        return

            return real(matrices, settings, *args, cancelled=cancelled,
                        on_shown=None if on_shown is None else show, **kwargs)

        monkeypatch.setattr(coordinator, "recompute", held)

    def release(self):
        self._go.set()


@pytest.fixture
def after_shown(monkeypatch):
    held = AfterShown(monkeypatch)
    yield held
    held.release()


# ----- the model -----------------------------------------------------------------------------------
def test_the_shown_head_arrives_first_equal_to_numpy_then_the_rest(qtbot, buffers):
    model = AttentionModel(big_session())
    try:
        model.set_selection(head=2)
        model.flush()
        old = model.results
        events = []

        def on_shown(flags):
            partial = model.shown_results()
            events.append(("shown", partial, model.pending, model.results is old,
                           partial.heads.scores[2].copy(), partial.heads.weights[2].copy()))

        model.shown_ready.connect(on_shown)
        model.changed.connect(lambda flags: events.append(("changed", model.results)))
        assert model.set_param("temperature", 0.6)
        model.recompute()
        qtbot.waitUntil(lambda: not model.computing and events and events[-1][0] == "changed", timeout=10_000)
        kind, partial, pending, old_still, scores, weights = events[0]
        assert kind == "shown" and partial.partial_head == 2 and partial.temperature == 0.6
        assert partial.heads.output is None  # ③ is not in it: the panels that draw ③ wait
        assert old_still and pending == (buffers == "own buffers")  # ③'s views keep the old numbers, or wait
        want_scores, want_weights = reference_head(model, 2)
        assert_same_numbers(scores, want_scores)
        assert_same_numbers(weights, want_weights)
        assert [e[0] for e in events[1:]] == ["changed"]
        assert model.shown_results() is model.results  # the partial result is gone with the whole one
        want = run_pipeline(model._state.matrices, model.settings)
        for stage in ("scores", "weights", "output"):
            assert_same_numbers(getattr(model.results.heads, stage), getattr(want.heads, stage), err_msg=stage)
    finally:
        model.shutdown()


def test_another_selected_head_waits_for_the_whole_results(qtbot, buffers, after_shown):
    model = AttentionModel(big_session())
    try:
        model.flush()
        assert model.set_param("temperature", 1.7)
        model.recompute()
        qtbot.waitUntil(lambda: bool(after_shown.shown), timeout=10_000)
        qtbot.waitUntil(lambda: model.shown_results() is not None
                        and model.shown_results().partial_head == 0, timeout=5_000)
        model.set_selection(head=3)  # its ① and ② are not made yet
        assert model.shown_results() is (None if buffers == "own buffers" else model.results)
        after_shown.release()
        qtbot.waitUntil(lambda: model.up_to_date, timeout=10_000)
        assert model.shown_results() is model.results and model.results.temperature == 1.7
    finally:
        model.shutdown()


# ----- the window ----------------------------------------------------------------------------------
def load_big(qtbot, window, session=None):
    window.model.load(big_session() if session is None else session)
    window.model.flush()
    window.uncover_now()
    for name in ("scores", "weights", "output"):
        window.panels[name].refresh()


def test_scores_and_weights_draw_the_shown_head_while_the_other_views_wait(qtbot, window, buffers, after_shown):
    after_shown.armed = False
    load_big(qtbot, window)
    after_shown.armed = True
    model = window.model
    model.set_selection(head=1)
    model.flush()
    output = window.panels["output"]
    old_output = output.heatmap.image_array().copy()
    assert model.set_param("temperature", 0.5)
    model.recompute()
    qtbot.waitUntil(lambda: bool(after_shown.shown), timeout=10_000)
    weights = window.panels["weights"]
    qtbot.waitUntil(lambda: weights.drawn_from is after_shown.shown[-1], timeout=5_000)
    assert model.computing and window.panels["scores"].drawn_from is after_shown.shown[-1]
    want_scores, want_weights = reference_head(model, 1)
    assert_same_numbers(window.panels["scores"].heatmap.image_array(), want_scores)
    assert_same_numbers(weights.heatmap.image_array(), want_weights)
    assert "0.5" in window.panels["scores"].caption.text()  # "/ T (T = 0.5)": the caption is of these numbers
    assert weights.heatmap.tooltip_provider(3, 5).startswith("weight[")  # hovering reads the new head
    np.testing.assert_array_equal(output.heatmap.image_array(), old_output)  # ③ waits for every head
    if buffers == "own buffers":  # the old ③ is being rewritten: its tooltip does not read it
        assert output.heatmap.tooltip_provider(3, 5) == "Recomputing…"
    after_shown.release()
    qtbot.waitUntil(lambda: model.up_to_date, timeout=10_000)
    qtbot.waitUntil(lambda: output.drawn_from is model.results, timeout=5_000)
    want = run_pipeline(model._state.matrices, model.settings)
    assert_same_numbers(weights.heatmap.image_array(), want.heads.weights[1])
    assert_same_numbers(output.heatmap.image_array(), want.heads.output)


def test_a_large_session_opens_with_the_shown_heads_docks_first(qtbot, window, after_shown, tmp_path, monkeypatch):
    from explorer.core.session import save_session

    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)
    session = big_session(seed=8)
    save_session(session, tmp_path / "big.json")
    assert window.documents.open(tmp_path / "big.json", ask=False)
    model = window.model
    qtbot.waitUntil(lambda: bool(after_shown.shown), timeout=10_000)
    covers = window.covers
    qtbot.waitUntil(lambda: not covers.is_up("scores") and not covers.is_up("weights"), timeout=5_000)
    assert model.loading and covers.is_up("output")  # the rest of the window waits, covered
    if window.panels.is_built("heads"):
        assert covers.is_up("heads")
    want_scores, want_weights = reference_head(model, 0)
    assert_same_numbers(window.panels["scores"].heatmap.image_array(), want_scores)
    assert_same_numbers(window.panels["weights"].heatmap.image_array(), want_weights)
    assert window.panels["weights"].heatmap.ticks("left")[0] == (0, session.tokens[0])
    model.set_selection(row=5)  # a row click meanwhile: the uncovered docks stay uncovered
    qtbot.wait(20)
    assert not covers.is_up("weights") and covers.is_up("output")
    after_shown.release()
    qtbot.waitUntil(lambda: not model.loading and not covers.is_up("output"), timeout=10_000)
    want = run_pipeline(model._state.matrices, model.settings)
    assert_same_numbers(window.panels["output"].heatmap.image_array(), want.heads.output)


class Accesses:
    """When the worker writes which arrays (a head's scores and weights, its output) and when the
    heatmaps read which: so a read during a write of the same memory can be found afterwards."""

    def __init__(self, monkeypatch):
        self.writes, self.reads = [], []
        real_score, real_mix, real_rows = hs.score_head, hs.mix_head, hs.softmax_rows
        real_set, real_show = Heatmap.set_matrix, Heatmap._show_image

        def softmax_rows(*args):  # a slow writer: each head written over several milliseconds
            if threading.current_thread() is not threading.main_thread():
                time.sleep(0.0005)
            return real_rows(*args)

        def score_head(inputs, bufs, h, *args, **kwargs):
            return self._write([bufs.scores[h], bufs.weights[h]], real_score, inputs, bufs, h, *args, **kwargs)

        def mix(inputs, w, out, h):
            return self._write([out], real_mix, inputs, w, out, h)

        def set_matrix(heatmap, values, **kwargs):
            return self._read([values], real_set, heatmap, values, **kwargs)

        def show_image(heatmap, *args):
            return self._read([heatmap._display], real_show, heatmap, *args)

        monkeypatch.setattr(hs, "BLOCK_CELLS", 8 * 64)  # 8 blocks a head at L = 64
        monkeypatch.setattr(hs, "softmax_rows", softmax_rows)
        for module in (rc, hs):  # the shown head is recompute's call, the others compute_head's
            monkeypatch.setattr(module, "score_head", score_head)
            monkeypatch.setattr(module, "mix_head", mix)
        monkeypatch.setattr(Heatmap, "set_matrix", set_matrix)
        monkeypatch.setattr(Heatmap, "_show_image", show_image)

    def _write(self, arrays, call, *args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            return call(*args, **kwargs)  # an edit in place: the GUI thread's own, between its reads
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            self.writes.append((arrays, start, time.perf_counter()))

    def _read(self, arrays, call, *args, **kwargs):
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            self.reads.append((arrays, start, time.perf_counter()))

    def torn(self):
        """(read, write) pairs of the same memory at the same time."""
        return [(r, w) for r, r0, r1 in self.reads for w, w0, w1 in self.writes
                if r0 < w1 and w0 < r1 and any(np.may_share_memory(a, b) for a in r for b in w)]


def test_no_view_reads_an_array_while_the_worker_writes_it(qtbot, window, buffers, monkeypatch):
    load_big(qtbot, window)
    model = window.model
    accesses = Accesses(monkeypatch)
    weights = window.panels["weights"]
    early = []
    weights.rendered.connect(lambda: early.append(weights.drawn_from.partial_head is not None))
    window.docks["heads"].raise_()  # every head on screen too
    steps = iter(range(60))

    def step():
        k = next(steps, None)
        if k is None:
            timer.stop()
            return
        model.set_param("temperature", 0.5 + 0.05 * k)  # a drag of the temperature at 200 events/s
        if k % 20 == 10:
            model.set_selection(head=k // 20)
        if k % 3 == 1:
            window.resize(1500 + 10 * (k % 2), 950)  # a resize re-samples the images already shown

    def draw_whenever_allowed():  # every view draws whatever it may read, as often as it can
        for name in ("scores", "weights", "output", "heads"):
            window.panels[name].refresh()

    timer, drawer = QTimer(), QTimer()
    timer.timeout.connect(step)
    drawer.timeout.connect(draw_whenever_allowed)
    timer.start(5)
    drawer.start(2)
    qtbot.waitUntil(lambda: not timer.isActive(), timeout=20_000)
    drawer.stop()
    qtbot.waitUntil(lambda: model.up_to_date and not model.computing, timeout=20_000)
    window.uncover_now()
    qtbot.wait(50)
    assert accesses.writes and accesses.reads
    assert accesses.torn() == []
    assert any(early)  # the drag showed the shown head first, not only whole results
    want = run_pipeline(model._state.matrices, model.settings)
    assert_same_numbers(weights.heatmap.image_array(), want.heads.weights[model.settings.selected_head])


def test_the_whole_results_do_not_draw_the_shown_head_again_and_an_edit_after_them_does(
        qtbot, window, buffers, monkeypatch):
    load_big(qtbot, window)
    model = window.model
    draws = []
    real = Heatmap.set_matrix
    monkeypatch.setattr(Heatmap, "set_matrix", lambda hm, *a, **k: draws.append(hm) or real(hm, *a, **k))
    scores, weights = window.panels["scores"], window.panels["weights"]
    model.set_param("temperature", 0.8)
    model.recompute()
    qtbot.waitUntil(lambda: model.up_to_date and weights.drawn_from is model.results, timeout=10_000)
    assert draws.count(weights.heatmap) == 1 and draws.count(scores.heatmap) == 1  # from the partial result only
    want = run_pipeline(model._state.matrices, model.settings)
    assert_same_numbers(weights.heatmap.image_array(), want.heads.weights[0])
    assert model.set_cell("Q", 5, 1, 3.0)  # one row of head 0, in place: drawn again
    model.flush()
    assert draws.count(weights.heatmap) == 2
    want = run_pipeline(model._state.matrices, model.settings)
    assert_same_numbers(weights.heatmap.image_array(), want.heads.weights[0])
    assert_same_numbers(scores.heatmap.image_array(), want.heads.scores[0])


def test_docks_uncovered_after_a_large_open_draw_their_titles_in_the_enabled_colours(qtbot, window, tmp_path,
                                                                                    monkeypatch):
    """A covered view is disabled; it draws at its uncover turn, and what it draws then must not take the
    disabled (grey) colours of its palette."""
    from PySide6.QtGui import QPalette

    from explorer.core.session import save_session

    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)
    save_session(replace(big_session(seed=4), tokens=tuple(f"w{i}" for i in range(64))), tmp_path / "big.json")
    assert window.documents.open(tmp_path / "big.json", ask=False)  # new tokens: every title is set again
    qtbot.waitUntil(lambda: not window.model.loading and not window.covers.is_up("output"), timeout=10_000)
    enabled = window.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText).name()
    for name in ("scores", "weights", "output"):
        axis = window.panels[name].heatmap.plot.getAxis("left")
        assert axis.labelStyle.get("color") == enabled, name


def test_a_dock_drawn_by_refresh_under_its_cover_keeps_following_the_results(qtbot, window, after_shown, tmp_path,
                                                                              monkeypatch):
    """A refresh (screenshots, exports, tests) that draws the shown head under its cover lifts the cover as
    the uncover tick would have: the panel is told its dock is on screen, so later results reach it."""
    from explorer import loading_covers
    from explorer.core.session import save_session

    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)
    monkeypatch.setattr(loading_covers, "UNCOVER_STEP_MS", 60_000)  # no tick lifts a cover during the test
    save_session(big_session(seed=9), tmp_path / "big.json")
    assert window.documents.open(tmp_path / "big.json", ask=False)
    model, weights = window.model, window.panels["weights"]
    qtbot.waitUntil(lambda: bool(after_shown.shown) and not weights.waiting(), timeout=10_000)
    assert window.covers.is_up("weights")
    weights.refresh()  # draws the shown head; its cover comes off
    assert not window.covers.is_up("weights") and weights.drawn_from is after_shown.shown[-1]
    after_shown.armed = False
    after_shown.release()
    qtbot.waitUntil(lambda: not model.loading, timeout=10_000)
    window.uncover_now()
    assert model.set_param("temperature", 0.45)
    model.flush()
    want = run_pipeline(model._state.matrices, model.settings)
    assert weights.drawn_from is model.results
    assert_same_numbers(weights.heatmap.image_array(), want.heads.weights[0])
