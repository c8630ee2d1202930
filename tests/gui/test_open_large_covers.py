"""The covers over the views of results while a large session's are computed, and what a failed
compute leaves (see test_open_large_in_background.py for the fixtures: the gate holds the worker).

Every view of results is covered whenever it comes on screen (the editor's X·Wᵀ tables too); a
covered view takes neither the keyboard nor a render until its own turn; docks that show no results
stay uncovered; after a failed compute nothing is exported or pictured as the previous session's
numbers, and ``flush`` tries again whatever happened meanwhile.
"""
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from explorer.core.pipeline import run_pipeline
from explorer.core.session import save_session
from explorer.loading_covers import WaitingCover
from explorer.main_window import DOCKS
from explorer.model import AttentionModel
from explorer.model import coordinator
from tests.gui.same_numbers import assert_same_numbers
from tests.gui.test_open_large_in_background import (
    HEATMAPS, assert_panels_current, big_session, covers, open_big, start_window, wait_until_held,
    wait_until_shown)

STATE_DOCKS = frozenset(spec.name for spec in DOCKS if not spec.reads_results)  # never covered
COVERED = frozenset(spec.name for spec in DOCKS) - STATE_DOCKS  # the docks of views of results


def projected_big(seed=6):
    base = AttentionModel(big_session(seed=seed))
    assert base.set_param("source", "projected")
    base.flush()
    session = base.to_session()
    base.shutdown()
    return session


def table_values(table):
    return np.array([[table.value(i, j) for j in range(table.columnCount())] for i in range(table.rowCount())])


def in_dock(window, widget):
    """The name of the dock ``widget`` lies in, or None."""
    return next((name for name, dock in window.docks.items() if widget is not None and dock.isAncestorOf(widget)),
                None)


# ----- what is covered ---------------------------------------------------------------------------------
@pytest.mark.parametrize("away", ["hidden", "behind a tab"])
def test_the_editors_derived_tables_are_covered_when_it_comes_on_screen_while_computing(qtbot, window, gate,
                                                                                       tmp_path, away):
    """The editor makes its read-only X·Wᵀ tables when it first shows a projected session: shown
    after the open (View ▸ Editor, a tab raised), they hold the previous session's numbers — covered."""
    model, editor, dock = window.model, window.panels["editor"], window.docks["editor"]
    assert "derivedQ" not in editor.views  # the demo is direct: no projected page yet
    if away == "hidden":
        dock.hide()
    else:
        window.tabifyDockWidget(window.docks["controls"], dock)
        window.docks["controls"].raise_()
    QApplication.processEvents()
    open_big(window, tmp_path, projected_big(), "projected.json")
    assert model.loading and "derivedQ" not in editor.views  # not made while off screen
    dock.show()
    dock.raise_()
    QApplication.processEvents()
    assert model.loading and "derivedQ" in editor.views
    page = editor.pages.currentWidget()
    for name in ("derivedQ", "derivedK", "derivedV"):
        if page.one_at_a_time:  # (the projected tables do not fit side by side: one at a time, by their buttons)
            page.buttons[name].click()
            QApplication.processEvents()
        view = editor.views[name]
        cover = window.covers.covers[f"editor.{name}"]
        assert view.isVisible() and cover.isVisible() and cover.parentWidget() is view
        assert not view.isEnabled()
    assert editor.views["X"].isEnabled()  # the editable tables stay the user's
    gate.open()
    wait_until_shown(qtbot, window)
    want = run_pipeline(model._state.matrices, model.settings)
    assert editor.tables["derivedQ"].rowCount() == 64
    assert_same_numbers(table_values(editor.tables["derivedQ"]), want.q_in)
    assert all(editor.views[n].isEnabled() for n in ("derivedQ", "derivedK", "derivedV"))
    assert_panels_current(window)


def test_docks_that_show_no_results_stay_uncovered(qtbot, window, gate, tmp_path):
    """The editor, the controls, the √d lesson (its own random q and k) and the Model view (a real model's
    runs) have nothing of the session's results to wait for."""
    assert STATE_DOCKS == {"editor", "controls", "sqrt_d", "model_view"}
    assert {spec.name for spec in DOCKS if spec.panel_class().reads_results is False} <= STATE_DOCKS
    window.docks["sqrt_d"].raise_()
    qtbot.waitUntil(lambda: window.panels.is_built("sqrt_d"), timeout=5_000)
    open_big(window, tmp_path)
    assert window.model.loading
    covered = {key for key, cover in window.covers.covers.items() if not cover.isHidden()}
    assert covered == COVERED
    for name in STATE_DOCKS:
        assert window.docks[name].widget().isEnabled()
        assert not [c for c in window.docks[name].findChildren(WaitingCover) if not c.isHidden()]
    assert window.panels["sqrt_d"].d_slider.isEnabled()
    gate.open()
    wait_until_shown(qtbot, window)


# ----- a covered view waits for its turn -----------------------------------------------------------------
@pytest.mark.parametrize("how", ["raised", "layout at start"])
def test_a_dock_shown_while_covered_renders_at_its_uncover_turn(qtbot, window, gate, tmp_path, how):
    """Raised while covered (or shown by the layout a SESSION argument brings), a dock's panel
    renders when its cover comes off, one dock per timer tick, not with the results' ``changed``."""
    for name in ("heads", "lines", "readout"):  # built, then behind other tabs
        window.docks[name].raise_()
        qtbot.waitUntil(lambda n=name: window.panels.is_built(n), timeout=5_000)
    if how == "raised":
        open_big(window, tmp_path)
        window.docks["heads"].raise_()
    else:  # `attention-explorer big.json` saved with the Heads tab in front: main() applies its layout
        window.docks["heads"].raise_()
        QApplication.processEvents()
        session = replace(big_session(), layout=window.layout_state())
        window = start_window(qtbot, session)
        window.apply_layout(session.layout, geometry=False)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.panels.is_built("heads"), timeout=5_000)
    QApplication.processEvents()
    model = window.model
    assert model.loading and window._dock_on_screen["heads"]  # on screen, and covered:
    assert not window.panels["heads"]._on_screen  # held until its cover comes off
    ticks, log = [0], []
    real_next = window.covers.uncover_next
    window.covers.uncover_next = lambda: (ticks.__setitem__(0, ticks[0] + 1), real_next())
    for name in ("heads", "scores", "weights", "output"):
        panel = window.panels[name]
        real = panel.render
        panel.render = lambda flags, _n=name, _r=real: (log.append((_n, ticks[0])), _r(flags))
    gate.open()
    wait_until_shown(qtbot, window)
    assert {name for name, _ in log} == {"heads", "scores", "weights", "output"}
    assert all(tick >= 1 for _, tick in log), log  # each at an uncover tick, none in the results' turn
    assert_panels_current(window)


def test_the_keyboard_never_reaches_a_covered_view(qtbot, window, gate, tmp_path):
    """Tab walks past covered docks (they are disabled under their covers), focus inside one moves
    to the editor, and everything takes the keyboard again once uncovered."""
    model = window.model
    window.docks["lines"].raise_()
    qtbot.waitUntil(lambda: window.panels.is_built("lines"), timeout=5_000)
    top_k = window.panels["lines"].top_k
    top_k.setFocus()
    QApplication.processEvents()
    assert window.focusWidget() is top_k
    open_big(window, tmp_path)
    assert model.loading
    assert window.focusWidget() is window.panels["editor"].views["Q"]  # not left inside the cover
    for name in COVERED:
        assert not window.docks[name].widget().isEnabled(), name
    for name in STATE_DOCKS:
        assert window.docks[name].widget().isEnabled(), name
    window.panels["controls"].heads.setFocus()
    reached = set()
    for _ in range(300):
        window.focusWidget().focusNextChild()  # what Tab does outside an item view
        reached.add(in_dock(window, window.focusWidget()))
    assert model.loading
    assert not reached & COVERED
    assert {"editor", "controls"} <= reached
    gate.open()
    wait_until_shown(qtbot, window)
    for name in COVERED:  # a built panel behind a tab (the Readout, behind the lines) uncovers when shown
        if window.panels.is_built(name) and window.docks[name].visibleRegion().isEmpty():
            window.docks[name].raise_()
            qtbot.waitUntil(window.docks[name].widget().isEnabled, timeout=5_000)
        assert window.docks[name].widget().isEnabled(), name
    window.docks["lines"].raise_()
    assert top_k.isEnabled()
    top_k.setFocus()
    assert window.focusWidget() is top_k


# ----- a failed compute ------------------------------------------------------------------------------------
@pytest.fixture
def no_memory(monkeypatch, gate):
    """Sessions of 64 tokens cannot be computed while ``no_memory["on"]``."""
    real = coordinator.recompute
    switch = {"on": True}

    def recompute(matrices, settings, *args, **kwargs):
        if switch["on"] and matrices["Q"].shape[0] == 64:
            raise MemoryError
        return real(matrices, settings, *args, **kwargs)

    monkeypatch.setattr(coordinator, "recompute", recompute)
    gate.open()
    return switch


def open_failing(qtbot, window, tmp_path):
    model = window.model
    path = open_big(window, tmp_path)
    qtbot.waitUntil(lambda: not model.computing, timeout=10_000)
    assert model.loading and "not enough memory" in model.failure
    return path


@pytest.mark.parametrize("select", [False, True])
def test_after_a_failed_open_exports_refuse_and_say_why(qtbot, window, no_memory, tmp_path, select):
    """Never the previous session's numbers under the new one's name, nor an exception."""
    model = window.model
    demo_weights = window.panels["weights"].heatmap.image_array().copy()
    open_failing(qtbot, window, tmp_path)
    if select:  # a click on a row of the editor (never covered)
        model.set_selection(row=5)
        model.recompute()
        assert model.failure is not None  # a selection is no new result: the failure stays
    bar = window.statusBar()
    for name in ("Weights", "Scores", "Output"):
        target = tmp_path / f"{name}.npy"
        assert not window.documents.export_matrix(name, target)
        assert not target.exists()
        assert bar.currentMessage().startswith(f"Did not export {name}: ")
        assert "not enough memory" in bar.currentMessage()
    assert window.documents.export_matrix("Q", tmp_path / "Q.npy")  # the session's own Q needs no results
    np.testing.assert_array_equal(np.load(tmp_path / "Q.npy"), model.matrix("Q"))
    assert not window.documents.export_panel("weights", tmp_path / "weights.png")
    assert not window.documents.export_window(tmp_path / "window.svg")
    assert not (tmp_path / "weights.png").exists() and not (tmp_path / "window.svg").exists()
    assert "not enough memory" in bar.currentMessage()
    assert model.loading and not model.up_to_date  # flush tried again, and failed again
    assert covers(window) and all(c.text().startswith("Could not compute attention") for c in covers(window))
    window.panels["weights"].refresh()  # waits while pending: draws nothing of the demo's 4 × 4 on 64 tokens
    np.testing.assert_array_equal(window.panels["weights"].heatmap.image_array(), demo_weights)
    no_memory["on"] = False
    assert window.documents.export_matrix("Weights", tmp_path / "weights.npy")  # tried again: now it works
    want = run_pipeline(model._state.matrices, model.settings)
    assert_same_numbers(np.load(tmp_path / "weights.npy"), want.heads.weights[model.settings.selected_head])


def test_flush_tries_a_failed_open_again_after_a_selection(qtbot, window, no_memory, tmp_path):
    """A transient failure (memory held for a moment): a click on a row, then an export, gets the
    session's numbers — the selection did not make the model forget that its results are missing."""
    model = window.model
    path = open_failing(qtbot, window, tmp_path)
    no_memory["on"] = False
    model.set_selection(row=5)
    model.recompute()
    assert model.loading and model.failure is not None
    model.flush()
    assert not model.loading and model.up_to_date and model.failure is None
    assert model.results.q.shape[0] == 64
    wait_until_shown(qtbot, window)
    assert window.statusBar().currentMessage() == f"Opened {path}"  # in place of why it failed
    assert_panels_current(window)


def test_a_screenshot_of_a_session_that_cannot_be_computed_fails_with_the_reason(qtbot, home, no_memory,
                                                                                  tmp_path, capsys):
    from explorer.app import take_screenshot

    window = start_window(qtbot, big_session(seed=8))
    shot = tmp_path / "shot.png"
    assert take_screenshot(QApplication.instance(), window, str(shot)) == 1
    err = capsys.readouterr().err
    assert "could not compute attention" in err and "not enough memory" in err and str(shot) in err
    assert not shot.exists()


# ----- the status bar ------------------------------------------------------------------------------------
def test_an_open_overtaken_on_the_gui_thread_keeps_the_newer_status(qtbot, window, gate, tmp_path):
    """Q, K, V of 5 tokens imported while a large open is computed: the small session is computed
    at once, and "Opened …" does not replace what the import said."""
    model = window.model
    open_big(window, tmp_path)
    wait_until_held(qtbot, gate)
    small = tmp_path / "small.npz"
    rng = np.random.default_rng(0)
    np.savez(small, Q=rng.standard_normal((5, 16)), K=rng.standard_normal((5, 16)), V=rng.standard_normal((5, 16)))
    assert window.documents.import_qkv(small)
    said = window.statusBar().currentMessage()
    assert said == "Imported Q, K and V from small.npz"
    model.recompute()  # the import's turn: small, on this thread, ending the open's wait
    assert not model.loading and not model.pending
    gate.open()
    wait_until_shown(qtbot, window)
    assert window.statusBar().currentMessage() == said
    assert_panels_current(window)


def test_shuffling_the_tokens_of_a_session_that_cannot_be_computed_is_refused(qtbot, window, no_memory, tmp_path):
    """Edit ▸ Shuffle tokens compares the outputs before and after: with none, it says so."""
    model = window.model
    open_failing(qtbot, window, tmp_path)
    tokens = model.tokens
    window.actions["shuffle"].trigger()
    assert model.tokens == tokens and model.shuffle is None and model.undo_stack.count() == 0
    assert window.statusBar().currentMessage().startswith("Cannot shuffle the tokens")
    assert "not enough memory" in window.statusBar().currentMessage()


# ----- a panel never shows another session's numbers ------------------------------------------------------
def test_a_tab_that_drew_the_previous_session_stays_covered_until_it_draws_this_one(qtbot, window, gate, tmp_path):
    """The Heads tab drew the demo and is behind another when a large session is opened: it keeps
    its cover after the results came, and lifts it only once it has drawn this session (raised while
    a temperature step computes, it draws this session's previous results: never the demo's)."""
    window.docks["heads"].raise_()
    qtbot.waitUntil(lambda: window.panels.is_built("heads") and window.panels["heads"].drawn_load == 1, timeout=5_000)
    window.docks["readout"].raise_()
    open_big(window, tmp_path)
    gate.open()
    wait_until_shown(qtbot, window)
    heads, cover = window.panels["heads"], window.covers.covers["heads"]
    assert heads.drawn_load == 1 and not cover.isHidden()  # behind its tab, still the demo's drawing
    gate.close()
    window.model.set_param("temperature", 2.0)
    qtbot.waitUntil(lambda: window.model.computing, timeout=5_000)
    window.docks["heads"].raise_()
    QApplication.processEvents()
    assert window.covers.seen("heads") and cover.isHidden() and heads.drawn_load == 2  # this session's
    gate.open()
    wait_until_shown(qtbot, window)
    assert_panels_current(window)


def test_a_change_as_the_results_arrive_keeps_the_covers_until_the_panels_can_draw(qtbot, window, gate, tmp_path):
    """A temperature step made in the very turn the session's results arrive: the uncover ticks find
    the panels unable to draw (pending) and leave the demo's drawing covered until they have drawn."""
    open_big(window, tmp_path)
    wait_until_held(qtbot, gate)
    model = window.model

    def step_at_once(flags):
        model.changed.disconnect(step_at_once)
        gate.close()
        model.set_param("temperature", 1.7)

    model.changed.connect(step_at_once)
    gate.open()
    qtbot.waitUntil(lambda: not model.loading and model.computing, timeout=10_000)
    for _ in range(20):  # uncover ticks come and go while the temperature step is held
        QApplication.processEvents()
        qtbot.wait(2)
    for name in HEATMAPS:
        panel = window.panels[name]
        assert panel.drawn_load == 2 or not window.covers.covers[name].isHidden(), name  # never the demo uncovered
    gate.open()
    wait_until_shown(qtbot, window)
    assert all(window.panels[name].drawn_load == 2 for name in HEATMAPS)
    assert_panels_current(window)


def test_reading_and_writing_a_large_file_shows_a_wait_cursor_and_says_so(qtbot, window, tmp_path, monkeypatch):
    """Parsing a large session holds the GUI thread for seconds: the cursor waits and the status bar
    names the file while it does; both end with it, and a small file does neither."""
    import explorer.documents as documents_module

    seen = []
    real_load, real_save = documents_module.load_session, documents_module.save_session

    def watched(real):
        def call(*args):
            cursor = QApplication.overrideCursor()
            seen.append((cursor is not None and cursor.shape() == Qt.CursorShape.WaitCursor,
                         window.statusBar().currentMessage()))
            return real(*args)
        return call

    monkeypatch.setattr(documents_module, "load_session", watched(real_load))
    monkeypatch.setattr(documents_module, "save_session", watched(real_save))
    path = tmp_path / "big.json"
    save_session(big_session(), path)
    assert window.documents.open(path, ask=False)  # under the threshold: no cursor, no message
    monkeypatch.setattr(documents_module, "BUSY_BYTES", 100)
    assert window.documents.open(path, ask=False)
    assert window.documents.save_to(tmp_path / "again.json")
    assert seen[0][0] is False
    assert seen[1] == (True, f"Opening big.json ({path.stat().st_size / 2 ** 20:.0f} MB)…")
    assert seen[2] == (True, "Saving again.json…")
    assert QApplication.overrideCursor() is None
