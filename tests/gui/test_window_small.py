"""The smallest window the explorer is made for, 1024 × 640, and the default 1600 × 1000: every dock shows
its panel without sideways scrolling, no control is narrower than it needs, and the Generation and Model
docks keep their views at a readable size (the dock scrolls rather than squeezing them)."""
import pytest
from PySide6.QtWidgets import (QAbstractButton, QAbstractSpinBox, QApplication, QComboBox, QLabel, QLineEdit,
                               QScrollArea, QSizePolicy, QSlider, QTableView)

from explorer.panels.generation.panel import TILE_MIN_H
from tests.gui.conftest import open_window

SMALL, DEFAULT = (1024, 640), (1600, 1000)
DOCKS = ("editor", "controls", "lesson", "sqrt_d", "scores", "weights", "output", "readout", "lines", "heads",
         "split_merge", "positions", "rope", "generation", "model_view", "block", "efficient", "flash", "qk_space",
         "sensitivity", "ab_diff")
CONTROLS = (QLabel, QAbstractButton, QComboBox, QAbstractSpinBox, QSlider, QLineEdit)


def show_dock(window, name):
    dock = window.docks[name]
    dock.show()
    dock.raise_()
    for _ in range(3):
        QApplication.processEvents()
    if name == "model_view":
        window.model.checkpoints.finish()  # the embedded model's first run, so its grid is laid out
        QApplication.processEvents()
    return dock


def least_width(w):
    """The width a layout keeps for ``w`` at the least (as Qt's qSmartMinSize reads its size policy)."""
    policy = w.sizePolicy().horizontalPolicy()
    if policy == QSizePolicy.Policy.Ignored:
        hint = 0
    elif policy.value & QSizePolicy.PolicyFlag.ShrinkFlag.value:
        hint = w.minimumSizeHint().width()
    else:
        hint = max(w.sizeHint().width(), w.minimumSizeHint().width())
    return max(w.minimumWidth(), hint)


def cut_controls(panel):
    """Controls on screen narrower than they need (a combo's text, a check box's label cut off)."""
    cut = []
    for w in panel.findChildren(QLabel) + [c for kind in CONTROLS[1:] for c in panel.findChildren(kind)]:
        if not w.isVisible() or isinstance(w.parentWidget(), (QAbstractSpinBox, QTableView)):
            continue
        if isinstance(w, QLabel) and w.wordWrap():
            continue  # it wraps to any width
        if w.width() < least_width(w) - 1:
            cut.append((type(w).__name__, getattr(w, "text", lambda: "")(), w.width(), least_width(w)))
    return cut


@pytest.fixture(params=[SMALL, DEFAULT], ids=["1024x640", "1600x1000"])
def sized_window(request, qtbot, home):
    window = open_window(qtbot, size=request.param)
    yield window
    window.model.undo_stack.setClean()


def test_no_dock_scrolls_sideways(sized_window):
    for name in DOCKS:
        dock = show_dock(sized_window, name)
        scroll = dock.widget()
        panel = scroll.widget()
        assert not scroll.horizontalScrollBar().isVisible(), (name, panel.minimumSizeHint(), scroll.viewport().size())
        assert panel.width() <= scroll.viewport().width(), name


def test_the_rope_dock_with_llama3_scaling_does_not_scroll_sideways(sized_window):
    """Its base and factor read-outs and the low/high frequency factors stay in view (narrow: one group a row)."""
    sized_window.model.set_param("rope_scaling", "llama3")
    scroll = show_dock(sized_window, "rope").widget()
    panel = scroll.widget()
    assert panel.groups["high"].isVisible()
    assert not scroll.horizontalScrollBar().isVisible(), (panel.minimumSizeHint(), scroll.viewport().size())
    right = panel.factor_slider.read_out.mapTo(panel, panel.factor_slider.read_out.rect().topRight()).x()
    assert right <= scroll.viewport().width()


@pytest.mark.parametrize("name", ["editor", "controls", "positions", "generation", "model_view", "flash", "sensitivity",
                                  "ab_diff"])
def test_no_control_is_cut_off(sized_window, name):
    panel = show_dock(sized_window, name).widget().widget()
    assert cut_controls(panel) == []


def test_the_editor_shows_every_column_at_the_smallest_size(qtbot, home):
    window = open_window(qtbot, size=SMALL)
    editor = window.panels["editor"]
    QApplication.processEvents()
    for name in "QKV":
        view = editor.views[name]
        assert not view.horizontalScrollBar().isVisible(), name
        header = view.horizontalHeader()
        assert header.sectionViewportPosition(2) + header.sectionSize(2) <= view.viewport().width(), name
    # K and V leave the tokens to Q (their rows are Q's); the titles shorten and do not run into each other
    assert not editor.views["Q"].verticalHeader().isHidden()
    assert editor.views["K"].verticalHeader().isHidden() and editor.views["V"].verticalHeader().isHidden()
    titles = [editor.titles[n] for n in "QKV"]
    for left, right in zip(titles, titles[1:]):  # (each title sits in its table's cell: compare in the panel)
        assert left.mapTo(editor, left.rect().topRight()).x() < right.mapTo(editor, right.rect().topLeft()).x()
    window.resize(*DEFAULT)
    QApplication.processEvents()
    assert not any(editor.views[n].verticalHeader().isHidden() for n in "QKV")
    assert "is found by" in editor.titles["K"].text()


def test_the_generation_heatmaps_keep_their_size_in_the_default_dock(sized_window):
    dock = show_dock(sized_window, "generation")
    panel = dock.widget().widget()
    assert panel.findChildren(QScrollArea) == []  # one scroll, the dock's: nothing squeezed inside another
    for heatmap in panel.heatmaps():
        assert heatmap.height() >= TILE_MIN_H and heatmap.width() >= 180
    columns = len({h.x() for h in panel.heatmaps()})
    assert columns == (2 if sized_window.width() == DEFAULT[0] else 1)
    # what a first look at the default dock shows whole: the caption, the step controls, the first row
    if sized_window.width() == DEFAULT[0]:
        viewport = dock.widget().viewport().height()
        assert panel.weights.geometry().bottom() <= viewport and panel.bar.geometry().bottom() <= viewport


def test_a_low_window_gives_the_tabbed_row_room(qtbot, home):
    """At 1024 × 640 ③ and the tabbed panels under ① and ② get close to half the column (they had ~190 px,
    too low for Attention lines or Heads to show anything); at 1600 × 1000 the split stays 560 : 340."""
    window = open_window(qtbot, size=SMALL)
    QApplication.processEvents()  # (the dock sizes are applied with the next layout pass)
    top, low = window.docks["scores"].height(), window.docks["output"].height()
    assert low >= 0.45 * (top + low) and top >= low
    big = open_window(qtbot, size=DEFAULT)
    QApplication.processEvents()
    top, low = big.docks["scores"].height(), big.docks["output"].height()
    assert abs(top / (top + low) - 560 / 900) < 0.03


def test_a_window_shrunk_keeps_the_default_shares_until_the_person_arranges_the_docks(qtbot, home):
    """Shrunk from 1600 × 1000 to 1024 × 640, the window gives its docks what a window started at 1024 × 640 gives
    them (③ had kept 222 px of height and printed 8 px numbers, where a fresh start gives it 293); once the person
    drags a separator, a resize leaves their arrangement alone."""
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent

    sizes = lambda w: {name: w.docks[name].size().toTuple() for name in ("editor", "scores", "weights", "output")}  # noqa: E731
    fresh = open_window(qtbot, size=(1024, 640), persist_layout=False, recovery=False)
    shrunk = open_window(qtbot, size=(1600, 1000), persist_layout=False, recovery=False)
    shrunk.resize(1024, 640)
    QApplication.processEvents()
    assert sizes(shrunk) == sizes(fresh)
    press = QMouseEvent(QEvent.Type.MouseButtonPress, QPointF(2, 2), QPointF(2, 2), Qt.MouseButton.LeftButton,
                        Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(shrunk, press)  # a press on the window itself: on a separator between docks
    shrunk.resizeDocks([shrunk.docks["scores"], shrunk.docks["output"]], [200, 300], Qt.Orientation.Vertical)
    QApplication.processEvents()
    arranged = shrunk.docks["output"].height()
    shrunk.resize(1100, 640)
    QApplication.processEvents()
    assert shrunk.docks["output"].height() == arranged  # only the width changed: their heights stay theirs
