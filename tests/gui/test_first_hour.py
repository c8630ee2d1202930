"""Issue 14, "What a new user met in the first hour": what a first look at the window showed wrong."""
import re
from pathlib import Path
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRectF
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QMessageBox, QStyle, QTabBar, QToolTip

from explorer.core.presets import random_session
from explorer.panels.output import OutputPanel
from explorer.panels.readout import ReadoutPanel
from explorer.panels.readout.plane import STAR_SIZE_PX
from explorer.view_menu import in_front
from explorer.widgets.heatmap import Heatmap
from tests.gui.panel_helpers import show_panel
from tests.gui.test_open_large_in_background import HEATMAPS, big_session, covers, start_window, wait_until_shown


def test_a_large_session_given_at_start_is_covered_edge_to_edge_and_shows_no_lesson_controls(qtbot, home, gate,
                                                                                           tmp_path):
    """Covers made before the window is first shown follow their views to their real size, and
    what only a lesson shows (the Reveal buttons, "stays hidden until ③") stays out of sight."""
    window = start_window(qtbot, big_session(seed=5), tmp_path / "big.json")
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.panels.is_built("readout"), timeout=5_000)
    assert covers(window)
    for name in (*HEATMAPS, "readout"):  # the docks on screen in the default layout
        cover = window.covers.covers[name]
        assert cover.isVisible() and cover.geometry() == window.docks[name].widget().rect()
        assert cover.width() > 300 and cover.height() > 200
    for name in HEATMAPS:
        assert not window.panels[name].reveal_button.isVisible()
    assert not window.panels["readout"].hidden_label.isVisible()
    gate.open()
    wait_until_shown(qtbot, window)
    for name in HEATMAPS:
        assert not window.panels[name].reveal_button.isVisible()
    assert not window.panels["readout"].hidden_label.isVisible()


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the offscreen platform, on QToolTip
def test_a_tooltip_on_screen_follows_an_undo_under_it(qtbot, window):
    """Heads 3, hover 红色 → 猫 until its tooltip shows, Ctrl+Z: the tooltip tells the new score."""
    model, heatmap = window.model, window.panels["scores"].heatmap
    assert model.set_param("heads", 3)
    window.model.flush()
    qtbot.mouseMove(heatmap.viewport(), QPoint(2, 2))
    qtbot.mouseMove(heatmap.viewport(), heatmap.cell_center(2, 0).toPoint())
    qtbot.waitUntil(lambda: QToolTip.isVisible() and "score[红色 → 猫]" in QToolTip.text(), timeout=2000)
    assert "× scale 1\n= 2" in QToolTip.text()  # one dimension per head: q·k = 1·2, scale 1/√1
    window.actions["undo"].trigger()
    model.flush()
    assert model.settings.heads == 1
    text = QToolTip.text()
    assert QToolTip.isVisible() and "score[红色 → 猫]" in text
    score = float(text.rsplit("= ", 1)[1].replace("−", "-"))
    assert abs(score - (1.0 * 2.0 + 0.8 * 0.0) / np.sqrt(3)) < 5e-3  # q(红色)·k(猫) / √3
    QToolTip.hideText()


def elided_cells(view):
    """(row, col) of the cells whose text is wider than their column."""
    metrics, header, table = view.fontMetrics(), view.horizontalHeader(), view.model()
    return [(i, j) for i in range(table.rowCount()) for j in range(table.columnCount())
            if metrics.horizontalAdvance(table.data(table.index(i, j))) + 6 > header.sectionSize(j)]


@pytest.mark.parametrize("size", [(1600, 1000), (1024, 640)])
def test_after_plus_d_and_randomize_every_column_fits_its_numbers(qtbot, home, ui, size):
    """The demo, "+d Q,K", Randomize: no "-0.…" — the columns fit their numbers (and scroll if they must)."""
    window = ui.open_window(qtbot, size=size)
    editor = window.panels["editor"]
    editor.actions["add_dim_qk"].trigger()
    editor.actions["randomize"].trigger()
    window.model.flush()
    QApplication.processEvents()
    QApplication.processEvents()
    for name in "QKV":
        view = editor.views[name]
        assert view.model().columnCount() == (3 if name == "V" else 4)
        assert elided_cells(view) == []
    window.model.undo_stack.setClean()


def large_session(length=1024, dim=64, heads=8):
    s = random_session(length, dim, seed=0)
    return replace(s, settings=replace(s.settings, heads=heads))


def test_a_tall_output_takes_the_panels_width(qtbot):
    """L = 1024 × d = 64: cells too small for numbers need not be square-ish — not a 10-pixel strip."""
    model, panel = show_panel(qtbot, OutputPanel, large_session(), size=(500, 400))
    heatmap = panel.heatmap
    span = heatmap.cell_center(0, 63).x() - heatmap.cell_center(0, 0).x()
    assert span > 0.5 * heatmap.width()
    assert len(heatmap.ticks("top")) >= 4  # d0, d10, … rather than one "d0"


def star_box(plane):
    """The star O_i as the plane paints it (widget pixels)."""
    x, y = plane.to_px(plane.star)
    r = STAR_SIZE_PX / 2
    return QRectF(x - r, y - r, 2 * r, 2 * r)


def test_the_readout_labels_only_what_can_be_read(qtbot):
    """Crowded hull plot (L = 1024): no token label lies on another or on the star; the legend names every
    key drawn, "<0.01" weights included (text, not the start of a tag)."""
    model, panel = show_panel(qtbot, ReadoutPanel, large_session(), size=(900, 420))
    plane = panel.plane
    shown = [label.box for label in plane.labels if label.box is not None]
    assert 0 < len(shown) < len(plane.labels)
    boxes = shown + [plane.star_label.box]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            both = a.intersected(b)
            assert both.width() * both.height() <= 0.1 * min(a.width() * a.height(), b.width() * b.height())
    star = star_box(plane)
    for box in shown:
        both = box.intersected(star)
        assert both.width() * both.height() < 0.25 * star.width() * star.height()
    legend = QTextDocument()
    legend.setHtml(panel.legend.text())
    for j in panel.shown_keys():
        assert model.tokens[j] in legend.toPlainText()
    assert "<0.01" in legend.toPlainText()


# ----- item 7: nothing cut in the default layout (1600 × 1000) ---------------------------------------
def raise_docks(window, *names):
    for name in names:
        window.docks[name].raise_()
    for _ in range(3):
        QApplication.processEvents()
    window.build_shown_panels()
    QApplication.processEvents()


def inside(inner, outer, slack=1.0):
    return (inner.left() >= outer.left() - slack and inner.right() <= outer.right() + slack
            and inner.top() >= outer.top() - slack and inner.bottom() <= outer.bottom() + slack)


def test_the_sqrt_d_lesson_fits_its_dock_with_whole_titles_and_axis_labels(qtbot, window):
    raise_docks(window, "sqrt_d")
    panel, scroll = window.panels["sqrt_d"], window.docks["sqrt_d"].widget()
    assert scroll.verticalScrollBar().maximum() == 0  # nothing below the dock's bottom edge
    for plot in (panel.spread_plot, panel.bars_plot, panel.entropy_plot):
        item = plot.getPlotItem()
        shown = plot.mapFromScene(plot.sceneRect()).boundingRect()
        title = item.titleLabel.item
        assert inside(plot.mapFromScene(title.sceneBoundingRect()).boundingRect(), shown)
        axis = item.getAxis("left")
        label = axis.label.mapRectToScene(axis.label.boundingRect())  # rotated: its height is the text's length
        column = axis.sceneBoundingRect()
        assert column.top() - 2 <= label.top() and label.bottom() <= column.bottom() + 2
    # the legends sit in the titles: no legend box over the points
    assert panel.spread_plot.getPlotItem().legend is None


def test_split_and_merge_keeps_its_arrow_labels_inside(qtbot, window):
    raise_docks(window, "split_merge")
    canvas = window.panels["split_merge"].canvas
    for s in canvas.stages:
        if s.kind == "arrow" and s.direction != "down":
            assert s.p0.y() - 5 - s.label_h >= 0
            assert s.p0.y() <= canvas.height()


@pytest.mark.parametrize("heads", [1, 3])
def test_the_readout_shows_its_legend_and_check_without_scrolling(qtbot, window, heads):
    assert heads == 1 or window.model.set_param("heads", heads)
    window.model.flush()
    panel = window.panels["readout"]
    viewport = panel.scroll.viewport()

    def bottom(label):
        return label.mapTo(viewport, label.rect().bottomLeft()).y()

    qtbot.waitUntil(lambda: bottom(panel.check_label) <= viewport.height(), timeout=2000)  # the layout settles
    for label in (panel.legend, panel.check_label):
        assert label.isVisible() and bottom(label) <= viewport.height()
    assert panel.scroll.verticalScrollBar().maximum() == 0
    star = star_box(panel.plane)
    for label in panel.plane.labels:
        if label.box is not None:
            both = label.box.intersected(star)
            assert both.width() * both.height() < 0.25 * star.width() * star.height()


# ----- item 8: the View menu -------------------------------------------------------------------------
def test_view_menu_brings_a_tab_behind_another_to_the_front_and_hides_only_one_in_front(qtbot, window):
    # (Attention lines: a tab that opens in its place; the large panels open floating, test_dock_opening.py)
    lines, readout, choose = window.docks["lines"], window.docks["readout"], window.actions["view_lines"]
    QApplication.processEvents()
    assert not in_front(lines) and in_front(readout)  # Attention lines is a tab behind the Readout
    choose.trigger()
    QApplication.processEvents()
    assert in_front(lines) and not lines.isHidden() and choose.isChecked()
    assert not in_front(readout)
    choose.trigger()  # in front now: hidden
    QApplication.processEvents()
    assert lines.isHidden() and not choose.isChecked()
    choose.trigger()  # closed: back, and in front
    QApplication.processEvents()
    assert in_front(lines) and choose.isChecked()
    window.docks["readout"].raise_()
    QApplication.processEvents()
    choose.trigger()  # behind a tab again: to the front, never hidden
    QApplication.processEvents()
    assert in_front(lines) and choose.isChecked()
    lines.close()  # its own close button keeps the menu's check in step
    assert not choose.isChecked()


# ----- item 9: the guess's magenta outline ------------------------------------------------------------
def magenta_pixels(heatmap, ui):
    """How many pixels of the heatmap are the guess outline's magenta (#ff0099)."""
    rgb, _ = ui.grab_rgb(heatmap)
    return int(np.sum((np.abs(rgb.astype(int) - (255, 0, 153)) <= 40).all(axis=-1)))


@pytest.mark.parametrize("then", ["show all", "reveal to the end", "undo"])
def test_the_guess_outline_goes_when_the_lesson_ends_or_the_history_moves(qtbot, window, ui, then):
    model, scores = window.model, window.panels["scores"].heatmap
    model.set_revealed(0)
    model.set_guess(1, 1, 0)  # 追 → 猫
    QApplication.processEvents()
    assert magenta_pixels(scores, ui) > 20
    model.set_revealed(1)
    QApplication.processEvents()
    assert magenta_pixels(scores, ui) > 20  # revealed ①: the guess stays to compare with
    if then == "show all":
        window.panels["lesson"].show_all_button.click()
    elif then == "reveal to the end":
        model.set_revealed(2)
        model.set_revealed(3)
    else:
        assert model.set_cell("Q", 1, 0, 0.0)
        model.flush()
        QApplication.processEvents()
        assert magenta_pixels(scores, ui) == 0  # other numbers than the guess was made on
        window.actions["undo"].trigger()
    model.flush()
    QApplication.processEvents()
    assert magenta_pixels(scores, ui) == 0


# ----- item 10: where File ▸ Open starts ----------------------------------------------------------------
def test_open_starts_in_the_last_folder_used_even_after_a_restart(qtbot, home, ui, tmp_path, monkeypatch):
    asked = []

    def get_file(parent, caption, directory="", filter="", *args, **kwargs):
        asked.append(directory)
        return (str(answers.pop(0)), "") if answers else ("", "")

    answers = []
    monkeypatch.setattr(QMessageBox, "question", lambda *args, **kwargs: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", get_file)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", get_file)
    folder = tmp_path / "lessons"
    folder.mkdir()
    first = ui.open_window(qtbot)
    answers.append(folder / "one.json")
    first.actions["save_as"].trigger()
    assert (folder / "one.json").exists()
    first.actions["new"].trigger()  # a new session has no folder of its own
    first.actions["open"].trigger()  # cancelled
    assert asked[-1] == str(folder)
    assert first.close()

    second = ui.open_window(qtbot)  # the next run
    second.actions["open"].trigger()
    assert asked[-1] == str(folder)
    other = tmp_path / "matrices"
    other.mkdir()
    np.save(other / "q.npy", np.ones((4, 3)))
    answers.append(other / "q.npy")
    second.actions["import_Q"].trigger()
    second.actions["open"].trigger()
    assert asked[-1] == str(other)
    second.model.undo_stack.setClean()


# ----- item 13: a matrix file on the command line -----------------------------------------------------
def test_a_matrix_file_named_for_its_matrix_is_imported_from_the_command_line(qtbot, home, tmp_path, monkeypatch):
    import explorer.app

    q = np.arange(12.0).reshape(4, 3) / 10
    np.save(tmp_path / "Q.npy", q)
    seen = {}
    real = explorer.app.take_screenshot

    def look(app, window, path, problem=None):
        seen["Q"], seen["problem"] = window.model.matrix("Q").copy(), problem
        window.model.undo_stack.setClean()
        return real(app, window, path, problem)

    monkeypatch.setattr(explorer.app, "take_screenshot", look)
    assert explorer.app.main([str(tmp_path / "Q.npy"), "--screenshot", str(tmp_path / "shot.png")]) == 0
    assert seen["problem"] is None
    np.testing.assert_array_equal(seen["Q"], q)
    assert (tmp_path / "shot.png").exists()


def test_another_matrix_file_on_the_command_line_says_how_to_bring_it_in(qtbot, home, tmp_path, capsys):
    import explorer.app

    np.save(tmp_path / "weights.npy", np.ones((4, 3)))
    assert explorer.app.main([str(tmp_path / "weights.npy"), "--screenshot", str(tmp_path / "shot.png")]) == 1
    err = capsys.readouterr().err
    assert "weights.npy is a matrix file" in err and "File ▸ Import matrix" in err
    assert "UTF-8" not in err


# ----- item 12: RoPE on the demo ------------------------------------------------------------------------
def test_the_rope_panel_on_the_demo_offers_one_click_to_an_example_that_works(qtbot, window):
    raise_docks(window, "rope")
    panel, model = window.panels["rope"], window.model
    assert model.matrix("Q").shape[1] == 3  # the demo: d = 3, odd
    assert panel.problem_label.isVisible() and panel.example_button.isVisible()
    panel.example_button.click()
    model.flush()
    QApplication.processEvents()
    assert model.settings.rope and model.matrix("Q").shape[1] % (2 * model.settings.heads) == 0
    assert not panel.problem_label.isVisible() and not panel.example_button.isVisible()
    window.actions["undo"].trigger()  # one step back to the demo
    model.flush()
    QApplication.processEvents()
    assert model.tokens == ("猫", "追", "红色", "激光点") and not model.settings.rope
    assert panel.problem_label.isVisible() and panel.example_button.isVisible()


# ----- item 14: one of a thing is singular ------------------------------------------------------------
PLURAL_AFTER_ONE = re.compile(r"(?<![\d.,])1 (tokens|heads|rows|columns|keys|pairs|lines|values)\b")


def test_no_text_of_the_window_says_1_tokens_or_1_heads(qtbot, window):
    """One token, one head, a head width of 2 (one RoPE pair): every label of every panel reads singular."""
    assert window.model.set_session(random_session(1, 2, seed=0), "One token")
    window.model.flush()
    texts = []
    for name, dock in window.docks.items():
        dock.raise_()
        QApplication.processEvents()
        window.build_shown_panels()
        window.panels[name].refresh()
        QApplication.processEvents()
        texts += [label.text() for label in dock.findChildren(QLabel) if label.isVisible()]
    texts.append(window.covers._computing_text())
    assert "L = 1 token," in " ".join(texts)
    assert "× 1 head…" in window.covers._computing_text()
    assert [t for t in texts if PLURAL_AFTER_ONE.search(t)] == []


# ----- item 11: the smallest supported window, 1024 × 640 ----------------------------------------------
SMALLEST = (1024, 640)


def dark_pixels_at(heatmap, rgb, dpr, row, col):
    """Pixels near a cell's centre much darker than the cell's own colour: its printed number."""
    c = heatmap.cell_center(row, col)
    x, y = int(round(c.x() * dpr)), int(round(c.y() * dpr))
    patch = rgb[y - 6:y + 7, x - 10:x + 11].astype(int).sum(axis=-1)
    return int(np.sum(patch < np.median(patch) - 150))


def test_at_the_smallest_size_tab_names_are_whole_and_cells_print_their_numbers(qtbot, home, ui, tmp_path):
    window = ui.open_window(qtbot, size=SMALLEST)
    qtbot.waitUntil(lambda: window.panels.is_built("readout"), timeout=5_000)
    QApplication.processEvents()
    shot = window.grab()
    assert (window.width(), window.height()) == SMALLEST
    assert shot.save(str(tmp_path / "smallest.png"))
    titles = {dock.windowTitle() for dock in window.docks.values()}
    bars = [bar for bar in window.findChildren(QTabBar) if bar.isVisible() and bar.count()]
    assert len(bars) >= 2  # Controls | Lesson | √d, and Readout | … | RoPE
    for bar in bars:
        for i in range(bar.count()):
            text = bar.tabText(i)
            assert text in titles and "…" not in text
            room = bar.tabRect(i).width() - bar.style().pixelMetric(QStyle.PixelMetric.PM_TabBarTabHSpace, None, bar)
            assert room >= bar.fontMetrics().horizontalAdvance(text), text
    for name in ("scores", "weights", "output"):
        heatmap = window.panels[name].heatmap
        rgb, dpr = ui.grab_rgb(heatmap)
        assert dark_pixels_at(heatmap, rgb, dpr, 0, 0) > 5, name  # "0.58", "0.17", "0.17" are drawn


def test_narrow_cells_still_print_a_number_that_fits(qtbot, ui):
    """The Weights of a small window: cells ~24 px wide by 60 px tall print "0.55" in a smaller font
    rather than nothing."""
    heatmap = Heatmap(cmap="sequential")
    qtbot.addWidget(heatmap)
    heatmap.resize(210, 330)  # cells ~25 px wide once laid out (230 did only until its axis measured the labels)
    heatmap.show()
    qtbot.waitExposed(heatmap)
    values = np.full((4, 4), 0.17)
    heatmap.set_matrix(values, row_labels=list("abcd"), col_labels=list("abcd"), levels=(0.0, 1.0))
    QApplication.processEvents()
    width = heatmap.cell_center(0, 1).x() - heatmap.cell_center(0, 0).x()
    assert 20 <= width < 28
    rgb, dpr = ui.grab_rgb(heatmap)
    assert dark_pixels_at(heatmap, rgb, dpr, 0, 0) > 5


def test_a_new_users_first_save_starts_in_their_documents_folder(qtbot, home, ui, tmp_path, monkeypatch):
    """Not the folder the app was started in (the walkthrough's first Save offered the app's source folder)."""
    from PySide6.QtCore import QStandardPaths

    documents = tmp_path / "Documents"
    documents.mkdir()
    monkeypatch.setattr(QStandardPaths, "writableLocation", lambda where: str(documents))
    monkeypatch.chdir(tmp_path)
    asked = []

    def get_file(parent, caption, directory="", *args, **kwargs):
        asked.append(directory)
        return "", ""  # cancelled
    monkeypatch.setattr(QFileDialog, "getSaveFileName", get_file)
    window = ui.open_window(qtbot)
    window.actions["save_as"].trigger()
    assert [str(Path(a).parent) for a in asked] == [str(documents)]  # (a suggested name in it)
