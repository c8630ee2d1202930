"""Opening a large session computes its results on the worker: the window stays responsive, the
views of results wait under a "Computing…" cover (never the previous session's numbers), the status
bar says so, and then everything is the core's. A second open or an edit meanwhile wins; saving needs
no results, exports and screenshots wait for them.

BACKGROUND_COST is lowered so sessions of L = 48–64 count as large (the demo stays small), and the
worker's whole recomputes are held at a gate until a test opens it, so what is asserted "while
computing" is never a race. Nothing is timed.
"""
import threading
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from explorer.core.pipeline import run_pipeline
from explorer.core.presets import random_session
from explorer.core.session import load_session, save_session
from explorer.loading_covers import WaitingCover
from explorer.main_window import MainWindow
from explorer.model import AttentionModel
from explorer.model import coordinator
from tests.gui.same_numbers import assert_same_numbers

HEATMAPS = ("scores", "weights", "output")


def big_session(length=64, seed=1, heads=4, **settings):
    s = random_session(length, 16, seed=seed)
    return replace(s, settings=replace(s.settings, heads=heads, **settings), title=f"big {length} {seed}")


def save(session, path):
    save_session(session, path)
    return path


def open_big(window, tmp_path, session=None, name="big.json"):
    """Save ``session`` (default: ``big_session()``) as ``tmp_path / name`` and open it in ``window``;
    its results are left to the worker (held at the gate). Returns the path."""
    path = save(big_session() if session is None else session, tmp_path / name)
    assert window.documents.open(path, ask=False)
    return path


def wait_until_held(qtbot, gate, rows=64):
    """The worker has started the recompute of a session of ``rows`` tokens and holds it at the gate."""
    qtbot.waitUntil(lambda: rows in gate.started, timeout=5_000)


def covers(window, visible=True):
    return [c for c in window.findChildren(WaitingCover) if c.isVisible() == visible]


def assert_panels_current(window):
    """Every heatmap shows the core's numbers for the model's state (1e-12)."""
    model = window.model
    want = run_pipeline(model._state.matrices, model.settings)
    h = model.settings.selected_head
    shown = {name: window.panels[name].heatmap.image_array() for name in HEATMAPS}
    assert_same_numbers(shown["scores"], want.heads.scores[h], err_msg="scores")
    assert_same_numbers(shown["weights"], want.heads.weights[h], err_msg="weights")
    assert_same_numbers(shown["output"], want.heads.output, err_msg="output")
    for stage in ("scores", "weights", "output"):
        assert_same_numbers(getattr(model.results.heads, stage), getattr(want.heads, stage), err_msg=stage)


def wait_until_shown(qtbot, window):
    """The results have arrived and every cover on screen has come off (one dock per timer tick);
    a panel behind a tab that still shows the previous session keeps its cover until it is shown."""
    model = window.model
    qtbot.waitUntil(lambda: not model.computing and not model.loading, timeout=20_000)
    qtbot.waitUntil(lambda: all(c.isHidden() for key, c in window.covers.covers.items() if window.covers.seen(key)), timeout=5_000)
    assert not model.pending


def only_current_results_announced(model):
    """Record, at every ``changed`` that panels may draw (not ``pending``), whether its results are
    those of the state on screen: the same Q, K, V, temperature and heads (direct sessions)."""
    seen = []

    def check(flags):
        if not model.pending:
            r, s = model.results, model.settings
            seen.append(r.temperature == s.temperature and r.n_heads == s.heads and all(
                a.shape == model.matrix(n).shape and np.array_equal(a, model.matrix(n))
                for n, a in (("Q", r.q_in), ("K", r.k_in), ("V", r.v))))

    model.changed.connect(check)
    return seen


# ----- File ▸ Open ---------------------------------------------------------------------------------
def test_opening_a_large_session_returns_at_once_and_the_window_stays_responsive(qtbot, window, gate, tmp_path):
    model = window.model
    demo_scores = window.panels["scores"].heatmap.image_array().copy()
    path = open_big(window, tmp_path)
    # open() returned while the worker is still held: the GUI thread never waited for the numbers
    assert model.loading and model.computing and model.pending and gate.started == [64]
    # the state is there at once: title, editor, controls
    assert "big.json" in window.windowTitle()
    assert window.panels["editor"].tables["Q"].rowCount() == 64
    assert window.panels["controls"].heads.currentData() == 4
    # the views of results wait under a cover that says why, and the status bar says it too
    shown = covers(window)
    assert {c.parentWidget() for c in shown} >= {window.docks[n].widget() for n in HEATMAPS}
    assert all(c.text() == "Computing attention for 64 tokens × 4 heads…" for c in shown)
    assert "computing attention for 64 tokens × 4 heads" in window.statusBar().currentMessage()
    assert window.panels["scores"].heatmap.tooltip_provider(63, 63) == "Recomputing…"
    # the panels did not redraw the previous session's numbers against the new tokens
    np.testing.assert_array_equal(window.panels["scores"].heatmap.image_array(), demo_scores)

    # the event loop runs: timers fire, a tab can be raised, the window paints
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=5_000)
    timer.stop()
    window.docks["heads"].raise_()
    qtbot.waitUntil(lambda: window.panels.is_built("heads"), timeout=5_000)
    window.grab()
    assert model.computing  # all of that while the worker still held the recompute

    gate.open()
    wait_until_shown(qtbot, window)
    assert window.statusBar().currentMessage() == f"Opened {path}"
    assert_panels_current(window)


@pytest.mark.parametrize("second", ["same shape", "other shape"])
def test_a_second_open_during_the_first_wins(qtbot, window, gate, tmp_path, second):
    model = window.model
    first = save(big_session(64, seed=1), tmp_path / "first.json")
    other = big_session(64, seed=2) if second == "same shape" else big_session(48, seed=2, heads=2)
    path = save(other, tmp_path / "second.json")
    announced = only_current_results_announced(model)
    assert window.documents.open(first, ask=False)
    qtbot.waitUntil(lambda: gate.started == [64], timeout=5_000)  # the first is being computed
    assert window.documents.open(path, ask=False)
    assert model.loading and model.title == other.title
    # the first job is told to stop (its results could never be shown), without the GUI waiting
    qtbot.waitUntil(lambda: gate.stopped == [64], timeout=5_000)
    gate.open()
    wait_until_shown(qtbot, window)
    assert announced and all(announced)  # nothing of the first session was ever announced as current
    np.testing.assert_array_equal(model.matrix("Q"), other.matrices["Q"])
    assert_panels_current(window)
    QApplication.processEvents()  # a late result of the first open would be dropped
    assert_panels_current(window)


def test_edits_during_the_open_win(qtbot, window, gate, tmp_path, ui):
    model = window.model
    announced = only_current_results_announced(model)
    path = open_big(window, tmp_path)
    wait_until_held(qtbot, gate)
    view = window.panels["editor"].views["Q"]
    ui.type_into(qtbot, view, 5, 3, "2.5")  # typed into the real editor while the worker computes
    assert model.set_param("temperature", 1.5)
    qtbot.waitUntil(lambda: not model.coordinator.due, timeout=5_000)
    assert model.loading and model.pending  # still nothing of this session to show
    qtbot.waitUntil(lambda: 64 in gate.stopped, timeout=5_000)  # the open's own job gave way
    gate.open()
    wait_until_shown(qtbot, window)
    assert announced and all(announced)  # the open's results without the edits were never shown
    assert model.matrix("Q")[5, 3] == 2.5 and model.results.temperature == 1.5
    assert model.results.q_in[5, 3] == 2.5
    assert_panels_current(window)
    assert model.undo_stack.count() == 2
    model.undo_stack.undo()
    model.undo_stack.undo()
    model.flush()
    np.testing.assert_array_equal(model.matrix("Q"), load_session(path).matrices["Q"])
    assert_panels_current(window)


def test_a_cell_typed_before_the_results_lands_on_its_token(qtbot, window, gate, tmp_path, ui):
    """The first session's results never come before the edit's: only the newest are current."""
    model = window.model
    announced = only_current_results_announced(model)
    open_big(window, tmp_path)
    model.set_cell("K", 7, 1, -3.0)
    model.recompute()
    gate.open()
    wait_until_shown(qtbot, window)
    assert model.results.k_in[7, 1] == -3.0
    assert announced and all(announced)
    assert_panels_current(window)


def test_saving_while_computing_saves_the_opened_session_without_waiting(qtbot, window, gate, tmp_path):
    model = window.model
    session = big_session()
    path = save(session, tmp_path / "big.json")
    assert window.documents.open(path, ask=False)
    model.set_cell("V", 2, 2, 0.25)
    target = tmp_path / "saved.json"
    assert window.documents.save_to(target)
    assert model.computing  # saving needs the session, not its results: nothing waited
    saved = load_session(target)
    assert saved.tokens == session.tokens and saved.settings == session.settings
    want = {n: np.array(a) for n, a in session.matrices.items()}
    want["V"][2, 2] = 0.25
    for name in "QKV":
        np.testing.assert_array_equal(saved.matrices[name], want[name])
    assert not window.isWindowModified()
    gate.open()
    wait_until_shown(qtbot, window)
    assert_panels_current(window)


def test_exports_while_computing_wait_for_the_numbers(qtbot, window, gate, tmp_path):
    model = window.model
    open_big(window, tmp_path)
    threading.Timer(0.2, gate.open).start()  # the export waits for the worker (flush), then writes
    assert window.documents.export_matrix("Weights", tmp_path / "weights.npy")
    want = run_pipeline(model._state.matrices, model.settings)
    assert_same_numbers(np.load(tmp_path / "weights.npy"), want.heads.weights[model.settings.selected_head])
    assert window.documents.export_window(tmp_path / "window.png")
    assert not covers(window)  # the picture shows the numbers, not "Computing…"
    assert_panels_current(window)


def test_an_export_flushes_a_held_open_and_uncovers_at_once(qtbot, window, gate, tmp_path):
    open_big(window, tmp_path)
    gate.open()
    assert window.documents.export_panel("weights", tmp_path / "weights.png")
    assert not covers(window) and not window.model.pending
    assert_panels_current(window)


def test_a_small_session_still_opens_with_its_results(qtbot, window, gate, tmp_path):
    model = window.model
    path = save(random_session(6, 4, seed=3), tmp_path / "small.json")
    assert window.documents.open(path, ask=False)
    assert not model.loading and not model.computing and not model.pending
    assert gate.started == [] and not covers(window)
    assert_panels_current(window)
    assert window.statusBar().currentMessage() == f"Opened {path}"


def test_a_failed_background_open_says_so_and_the_next_edit_tries_again(qtbot, window, gate, tmp_path,
                                                                      monkeypatch):
    model = window.model
    real = coordinator.recompute

    def no_memory_for_64_rows(matrices, settings, *args, **kwargs):
        if matrices["Q"].shape[0] == 64 and settings.temperature == 1.0:
            raise MemoryError
        return real(matrices, settings, *args, **kwargs)

    monkeypatch.setattr(coordinator, "recompute", no_memory_for_64_rows)
    gate.open()
    open_big(window, tmp_path)
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert model.loading and model.pending  # no results of this session: the covers stay
    assert "Could not compute attention" in window.statusBar().currentMessage()
    assert covers(window) and all(c.text().startswith("Could not compute attention") for c in covers(window))
    assert all("not enough memory" in c.text() for c in covers(window))  # the reason stays on screen
    assert model.set_param("temperature", 2.0)  # the next change recomputes whole
    wait_until_shown(qtbot, window)
    assert_panels_current(window)


# ----- the first session of a window: the SESSION argument, recovery ---------------------------------
def start_window(qtbot, session, path=None):
    window = MainWindow(session, path=path, persist_layout=False, recovery=False)
    qtbot.addWidget(window, before_close_func=lambda w: w.model.undo_stack.setClean())
    window.resize(1600, 1000)
    return window


def test_a_window_started_with_a_large_session_shows_at_once_then_fills_in(qtbot, home, gate, tmp_path):
    session = big_session(seed=5)
    window = start_window(qtbot, session, tmp_path / "big.json")
    model = window.model
    assert model.loading and model.computing and model.tokens == session.tokens
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.panels.is_built("readout"), timeout=5_000)  # built after the first paint
    assert covers(window) and "computing attention for 64 tokens" in window.statusBar().currentMessage()
    for name in HEATMAPS:  # built while waiting: nothing drawn yet, least of all another session's numbers
        assert window.panels[name].heatmap.image_array().size == 0
    gate.open()
    wait_until_shown(qtbot, window)
    assert window.statusBar().currentMessage().startswith("Edit any number")
    assert_panels_current(window)


def test_a_window_started_with_a_large_projected_session_builds_its_editor_while_waiting(qtbot, home, gate):
    base = AttentionModel(big_session(seed=6))
    assert base.set_param("source", "projected") and base.set_param("positions", "sinusoidal")
    base.flush()
    session = base.to_session()
    base.shutdown()
    window = start_window(qtbot, session)
    window.show()
    qtbot.waitExposed(window)
    model = window.model
    editor = window.panels["editor"]
    assert model.loading and "derivedQ" in editor.views  # the read-only X·Wᵀ tables exist, covered
    derived = window.covers.covers["editor.derivedQ"]
    page = editor.pages.currentWidget()
    if page.one_at_a_time:  # (the projected tables do not fit side by side: one at a time, by their buttons)
        page.buttons["derivedQ"].click()
        QApplication.processEvents()
    assert derived.isVisible() and derived.parentWidget() is editor.views["derivedQ"]
    gate.open()
    wait_until_shown(qtbot, window)
    want = run_pipeline(model._state.matrices, model.settings)
    table = editor.tables["derivedQ"]
    assert table.rowCount() == 64
    assert_same_numbers(np.array([[table.value(i, j) for j in range(table.columnCount())] for i in range(64)]),
                        want.q_in)
    assert_panels_current(window)


def test_the_demo_window_has_its_results_before_its_first_paint(qtbot, home, gate):
    window = start_window(qtbot, None)
    assert not window.model.pending and not window.model.loading and gate.started == []
    window.show()
    qtbot.waitExposed(window)
    assert not covers(window, visible=True) and not window.findChildren(WaitingCover)
    assert_panels_current(window)


def test_restoring_a_large_recovery_copy_computes_in_the_background(qtbot, window, gate, home, monkeypatch):
    session = big_session(seed=7)
    orphan = home / "recovery" / "session-1-1.json"
    orphan.parent.mkdir(parents=True, exist_ok=True)
    save_session(session, orphan)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    assert window.recovery.offer()
    model = window.model
    assert model.loading and model.tokens == session.tokens and window.isWindowModified()
    assert window.recovery.path.exists()  # the restored session is protected at once, results or not
    assert covers(window)
    gate.open()
    wait_until_shown(qtbot, window)
    assert window.statusBar().currentMessage() == "Restored the unsaved session from the last run."
    assert_panels_current(window)


def test_screenshot_of_a_large_session_waits_for_its_results(qtbot, home, gate, tmp_path):
    from explorer.app import take_screenshot

    window = start_window(qtbot, big_session(seed=8))
    threading.Timer(0.2, gate.open).start()
    assert take_screenshot(QApplication.instance(), window, str(tmp_path / "shot.png")) == 0
    assert (tmp_path / "shot.png").stat().st_size > 0
    assert not covers(window) and not window.model.pending
    assert_panels_current(window)


def test_closing_the_window_while_a_session_is_computed_stops_the_worker(qtbot, home, gate, tmp_path):
    window = start_window(qtbot, None)
    window.show()
    qtbot.waitExposed(window)
    open_big(window, tmp_path, big_session(seed=9))
    wait_until_held(qtbot, gate)
    assert window.close()  # nothing unsaved: no question; the held job is told to stop, not waited out
    assert gate.stopped == [64] and not window.model.coordinator.worker.busy
