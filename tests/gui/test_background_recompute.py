"""Large recomputes leave the GUI thread: the latest request wins, stale shapes are dropped, small
edits update in place, and the results always end equal to the core's."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from explorer.core.pipeline import run_pipeline
from explorer.core.presets import random_session
from explorer.model import AttentionModel, attention_model
from explorer.model import coordinator
from tests.gui.same_numbers import assert_same_numbers


@pytest.fixture
def big(qtbot):
    """A model whose whole recompute is well above the background threshold (L = 512, 8 heads)."""
    model = AttentionModel(random_session(512, 64, seed=4))
    model.set_param("heads", 8)
    model.flush()
    assert coordinator.full_cost(model._state.matrices, model.settings) > coordinator.BACKGROUND_COST
    seen = []
    model.changed.connect(seen.append)
    yield model, seen
    model.shutdown()


def assert_current(model):
    want = run_pipeline(model._state.matrices, model.settings)
    for stage in ("scores", "weights", "output"):
        assert_same_numbers(getattr(model.results.heads, stage), getattr(want.heads, stage), err_msg=stage)


def test_a_setting_change_is_computed_off_the_gui_thread_and_then_announced(qtbot, big):
    model, seen = big
    model.set_param("temperature", 2.0)
    model.recompute()  # what the 0-ms timer does: hands the work over and returns
    assert model.computing and not seen
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert seen and model.results.temperature == 2.0
    assert_current(model)


def test_a_burst_of_changes_computes_far_fewer_times_and_ends_on_the_last(qtbot, big, monkeypatch):
    model, seen = big
    runs = []
    real = coordinator.RecomputeWorker.submit

    def counting(self, *args):
        runs.append(args[0])
        return real(self, *args)

    monkeypatch.setattr(coordinator.RecomputeWorker, "submit", counting)
    for i in range(40):
        model.set_param("temperature", 1.0 + i / 20)
        model.recompute()
    qtbot.waitUntil(lambda: not model.computing, timeout=20_000)
    QApplication.processEvents()
    assert model.results.temperature == pytest.approx(1.0 + 39 / 20)
    assert len(seen) < 40  # requests that waited behind a newer one were never computed
    assert_current(model)


def test_a_shape_change_drops_results_of_the_old_shape(qtbot, big):
    model, seen = big
    model.set_param("temperature", 3.0)
    model.recompute()
    model.add_token()
    model.recompute()
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    QApplication.processEvents()
    assert model.results.heads.scores.shape == (8, 513, 513)
    assert_current(model)


def test_flush_while_computing_gives_the_current_numbers_at_once(qtbot, big):
    model, seen = big
    model.set_param("causal", True)
    model.recompute()
    assert model.computing
    model.flush()
    assert not model.computing and not model.pending
    assert_current(model)
    QApplication.processEvents()  # a late result of the worker must not replace the newer one
    assert_current(model)


def test_small_edits_update_in_place_on_the_gui_thread(qtbot, big):
    model, seen = big
    scores = model.results.heads.scores
    model.set_cell("Q", 7, 3, 2.5)  # one row of one head: no worker
    model.recompute()
    assert not model.computing and model.results.heads.scores is scores
    model.set_cell("V", 100, 63, -1.0)  # one output column
    model.recompute()
    assert not model.computing
    assert_current(model)
    model.set_cell("K", 5, 0, 4.0)  # one head whole: 512² · 8 is still cheap enough here
    model.recompute()
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert_current(model)


def test_undo_after_in_place_edits_restores_the_numbers(qtbot, big):
    model, seen = big
    before = model.results.heads.weights.copy()
    for j in range(5):
        model.set_cell("Q", j, j, 3.0)
        model.recompute()
    for _ in range(5):
        model.undo_stack.undo()
    model.flush()
    assert_same_numbers(model.results.heads.weights, before)


def test_shutdown_stops_the_thread(qtbot, big):
    model, seen = big
    model.set_param("temperature", 0.5)
    model.recompute()
    model.shutdown()
    assert not model.coordinator.worker.busy


def test_big_sessions_keep_fewer_undo_steps(qtbot):
    small = AttentionModel(random_session(4, 3))
    big = AttentionModel(random_session(4096, 256, seed=1))
    assert small.undo_stack.undoLimit() == attention_model.UNDO_LIMIT
    assert 20 <= big.undo_stack.undoLimit() < 100  # three 8 MiB matrices: ~2 GiB of copies at most
    for seed in range(big.undo_stack.undoLimit() + 5):
        big.randomize(seed=seed, names=["V"])
    assert big.undo_stack.count() == big.undo_stack.undoLimit()
    big.shutdown()


def test_a_key_edit_at_a_large_size_redoes_one_head_on_the_worker(qtbot):
    model = AttentionModel(random_session(1024, 64, seed=2))
    model.set_param("heads", 8)
    model.flush()
    scores = model.results.heads.scores
    model.set_cell("K", 3, 9, 5.0)  # head 2 of 8: one head's softmax, not all of them
    model.recompute()
    assert model.computing and model.pending  # its buffers are being rewritten: panels wait
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert model.results.heads.scores is scores and not model.pending
    assert_current(model)
    model.set_cell("K", 4, 9, -5.0)
    model.recompute()
    model.set_cell("Q", 0, 0, 1.25)  # typed while the worker runs: must stay exactly as typed
    model.recompute()
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert model.matrix("Q")[0, 0] == 1.25 and model.matrix("K")[4, 9] == -5.0
    assert_current(model)
    model.shutdown()


def test_flush_with_only_a_selection_pending_still_brings_the_results_up_to_date(qtbot, big):
    model, seen = big
    model.set_param("temperature", 2.0)
    model.recompute()
    model.set_selection(row=5)
    model.flush()
    assert not model.computing and model.results.temperature == 2.0
    assert_current(model)


def test_a_failed_background_recompute_ends_the_wait_and_says_why(qtbot, big, monkeypatch):
    model, seen = big
    messages = []
    model.message.connect(messages.append)

    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(coordinator, "recompute", out_of_memory)
    model.set_param("temperature", 2.0)
    model.recompute()
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert not model.pending and any("memory" in m for m in messages)
    model.set_param("temperature", 3.0)
    model.flush()  # on this thread: refused the same way, never raised
    assert messages[-1].startswith("Could not compute attention")


def test_the_worker_starts_again_after_a_shutdown(qtbot, big):
    model, seen = big
    model.shutdown()
    model.set_param("temperature", 3.0)
    model.recompute()
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert model.results.temperature == 3.0


def test_while_the_worker_computes_the_editor_follows_and_tooltips_wait(qtbot, ui):
    window = ui.open_window(qtbot)
    model = window.model
    model.load(random_session(1024, 64, seed=3))
    model.set_param("heads", 8)
    model.flush()
    QApplication.processEvents()
    model.remove_token(0)
    model.recompute()  # to the worker: the results still have 1024 rows
    assert model.computing and model.pending
    table = window.panels["editor"].tables["Q"]
    assert table.rowCount() == 1023 and table.headerData(5, Qt.Orientation.Vertical) == model.tokens[5]
    hover = window.panels["scores"].heatmap.tooltip_provider
    assert hover(1022, 1022) == "Recomputing…"  # never an index into results of the old shape
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    QApplication.processEvents()
    assert window.panels["scores"].heatmap.image_array().shape == (1023, 1023)
    assert "score" in hover(1022, 1022)
    model.undo_stack.setClean()


def test_a_bug_in_a_background_job_ends_in_a_message_not_a_dead_worker(qtbot, big, monkeypatch):
    model, seen = big
    messages = []
    model.message.connect(messages.append)
    real = coordinator.recompute

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(coordinator, "recompute", broken)
    with qtbot.capture_exceptions() as reported:  # printed through sys.excepthook, as a bug should be
        model.set_param("temperature", 2.0)
        model.recompute()
        qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert reported and "internal error" in messages[-1] and not model.coordinator.worker.busy
    monkeypatch.setattr(coordinator, "recompute", real)
    model.set_param("temperature", 3.0)
    model.recompute()
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert model.results.temperature == 3.0
    assert_current(model)


def test_after_a_failed_change_of_shape_panels_keep_off_the_old_results(qtbot, big, monkeypatch):
    model, seen = big
    real = coordinator.recompute

    def no_memory_for_16_heads(matrices, settings, *args, **kwargs):
        if settings.heads == 16:
            raise MemoryError
        return real(matrices, settings, *args, **kwargs)

    monkeypatch.setattr(coordinator, "recompute", no_memory_for_16_heads)
    model.set_param("heads", 16)
    model.recompute()
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert model.results.n_heads == 8 and model.pending  # 8 heads of results for 16 in the state
    model.set_param("heads", 4)  # the next change recomputes whole and announces both
    model.flush()
    assert not model.pending and model.results.n_heads == 4 and seen[-1] & attention_model.SETTINGS
    assert_current(model)


def test_flush_after_a_deferred_key_edit_takes_the_workers_result(qtbot, monkeypatch):
    model = AttentionModel(random_session(1024, 64, seed=2))
    model.set_param("heads", 8)
    model.flush()
    whole = []
    real = coordinator.recompute
    monkeypatch.setattr(coordinator, "recompute", lambda *a, **k: whole.append(1) or real(*a, **k))
    model.set_cell("K", 3, 9, 5.0)
    model.recompute()
    assert model.computing
    model.flush()
    assert not model.computing and not model.pending and whole == []  # one head on the worker, no more
    QApplication.processEvents()  # the worker's queued result is not applied a second time
    assert_current(model)
    model.shutdown()


def test_an_edit_during_a_recompute_into_the_same_buffers_does_not_wait_for_it(qtbot, monkeypatch):
    """Results too large to copy are recomputed into their own buffers; an edit meanwhile tells the
    running job to stop and hands over the next one, without the GUI thread waiting for the first."""
    import threading

    monkeypatch.setattr(coordinator, "REUSE_BYTES", 0)  # every result counts as too large to copy
    monkeypatch.setattr(coordinator, "BACKGROUND_COST", 20_000)
    model = AttentionModel(random_session(64, 16, seed=1))
    try:
        model.set_param("heads", 4)
        model.flush()
        release, order = threading.Event(), []
        real = coordinator.recompute

        def stubborn(matrices, settings, *args, **kwargs):
            if threading.current_thread() is not threading.main_thread() and not order:
                order.append("first job started")
                release.wait(10)  # deaf to cancel() until the test lets it go
                order.append("first job released")
            return real(matrices, settings, *args, **kwargs)

        monkeypatch.setattr(coordinator, "recompute", stubborn)
        model.set_param("temperature", 2.0)
        model.recompute()
        qtbot.waitUntil(lambda: bool(order), timeout=5_000)
        model.set_param("temperature", 3.0)
        model.recompute()  # hands over at once (it used to wait here for the first job to stop)
        order.append("second request handed over")
        release.set()
        qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
        assert order[:3] == ["first job started", "second request handed over", "first job released"]
        assert model.results.temperature == 3.0
        assert_current(model)
    finally:
        model.shutdown()
