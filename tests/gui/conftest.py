"""Fixtures for driving the real main window offscreen.

Every test gets its own ``ATTENTION_EXPLORER_HOME`` (settings, recent files, recovery copies) in
``tmp_path``, and no modal dialog can ever open: unless a test patches them, the static dialog
helpers raise AssertionError (a real modal dialog would hang the offscreen run).
"""
import threading
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QFileDialog, QInputDialog, QLineEdit,
                               QMessageBox)

from explorer.core.attention import attention
from explorer.model import coordinator

DIALOGS = (
    (QMessageBox, ("question", "warning", "about", "critical", "information")),
    (QFileDialog, ("getOpenFileName", "getSaveFileName", "getExistingDirectory", "getOpenFileNames")),
    (QInputDialog, ("getText", "getInt", "getDouble", "getItem")),
)


@pytest.fixture(autouse=True)
def no_real_dialogs(monkeypatch):
    """A dialog nobody patched fails the test instead of hanging it."""
    for cls, names in DIALOGS:
        for name in names:
            def refuse(*args, _name=f"{cls.__name__}.{name}", **kwargs):
                raise AssertionError(f"{_name} opened a real modal dialog; patch it in the test")
            monkeypatch.setattr(cls, name, refuse)


@pytest.fixture(autouse=True)
def application_font_kept(qapp):
    """A test that runs ``explorer.app.main()`` in this process sets the application's (CJK) font; the
    tests after it get the font they would have had alone, so none depends on the order they run in."""
    font = QApplication.font()
    yield
    if QApplication.font() != font:
        QApplication.setFont(font)


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "home"
    monkeypatch.setenv("ATTENTION_EXPLORER_HOME", str(path))
    return path


def open_window(qtbot, size=(1600, 1000), **kwargs):
    from explorer.main_window import MainWindow

    window = MainWindow(**kwargs)
    # pytest-qt closes its widgets before fixture teardown: mark the session saved just before,
    # so closing does not ask about unsaved changes
    qtbot.addWidget(window, before_close_func=lambda w: w.model.undo_stack.setClean())
    if size:  # the offscreen screen is 800×800, and a new window fits itself to the screen
        window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.model.flush()
    return window


@pytest.fixture
def window(qtbot, home):
    w = open_window(qtbot)
    yield w
    w.model.undo_stack.setClean()


# ----- helpers shared by the window tests (reach them through the ``ui`` fixture) --------------------
def expected(model, temperature=None, causal=None):
    """What the core computes for the model's current Q, K, V (one head)."""
    s = model.settings
    return attention(model.matrix("Q"), model.matrix("K"), model.matrix("V"),
                     causal=s.causal if causal is None else causal,
                     temperature=s.temperature if temperature is None else temperature)


def editor_of(view) -> QLineEdit:
    editor = view.viewport().findChild(QLineEdit)
    assert editor is not None and editor.isVisible()
    return editor


def type_into(qtbot, view, row, col, text):
    """Open the real cell editor on (row, col), replace its text and press Return."""
    index = view.model().index(row, col)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = editor_of(view)
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    if text:
        qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.state() != QAbstractItemView.State.EditingState)


def cell_pos(view, row, col) -> QPoint:
    return view.visualRect(view.model().index(row, col)).center()


def send_mouse(widget, kind, pos, buttons, modifiers=Qt.KeyboardModifier.NoModifier):
    """A mouse event with explicit buttons and modifiers (QTest.mouseMove takes no modifiers)."""
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    event = QMouseEvent(kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), button, buttons, modifiers)
    QApplication.sendEvent(widget, event)


def grab_rgb(widget):
    """The widget as an (H, W, 3) uint8 array, and its device pixel ratio."""
    img = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, h, bpl = img.width(), img.height(), img.bytesPerLine()
    arr = np.frombuffer(img.constBits(), np.uint8, count=h * bpl).reshape(h, bpl)[:, : w * 3]
    return arr.reshape(h, w, 3).copy(), img.devicePixelRatio()


def cell_colour(heatmap, rgb, dpr, row, col, half=4):
    """Median colour of a small patch at a cell's centre."""
    c = heatmap.cell_center(row, col)
    x, y = int(round(c.x() * dpr)), int(round(c.y() * dpr))
    return np.median(rgb[y - half:y + half + 1, x - half:x + half + 1].reshape(-1, 3), axis=0)


def snapshot(window):
    """Everything a user could lose: tokens, matrices, settings, title, history position, file."""
    m = window.model
    return {
        "tokens": m.tokens,
        "matrices": {n: m.matrix(n).copy() for n in "QKV"},
        "settings": m.settings,
        "title": window.windowTitle(),
        "modified": window.isWindowModified(),
        "undo": (m.undo_stack.count(), m.undo_stack.index()),
        "path": window.documents.path,
    }


def assert_same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if key == "matrices":
            for n in "QKV":
                np.testing.assert_array_equal(a[key][n], b[key][n])
        else:
            assert a[key] == b[key], key


@pytest.fixture
def ui():
    """The helpers above, for the test modules (a conftest is not importable by name)."""
    return SimpleNamespace(expected=expected, editor_of=editor_of, type_into=type_into, cell_pos=cell_pos,
                           send_mouse=send_mouse, grab_rgb=grab_rgb, cell_colour=cell_colour,
                           snapshot=snapshot, assert_same=assert_same, open_window=open_window)


# ----- holding the worker: background recomputes that wait for the test -------------------------------
SMALL_ENOUGH = 20_000  # the demo (~300 multiply-adds) stays on the GUI thread; L = 48 with d = 16 does not


class Gate:
    """Holds every whole recompute the worker starts until ``open()``; a held job that is told to
    stop (``cancelled()``) stops, as a real one does at its next check. Recomputes on the GUI thread
    are never held. A job still held after 30 s goes on, and the test fails at teardown rather than
    hanging (the GUI thread waited for the worker, which it must not)."""

    def __init__(self, monkeypatch):
        self._open = threading.Event()
        self.started, self.stopped, self.timed_out = [], [], []
        real = coordinator.recompute

        def held(matrices, settings, *args, cancelled=None, **kwargs):
            if threading.current_thread() is not threading.main_thread():
                rows = matrices["X" if settings.source == "projected" else "Q"].shape[0]
                self.started.append(rows)
                waited = 0
                while not self._open.wait(0.005):
                    if cancelled is not None and cancelled():
                        self.stopped.append(rows)
                        return None
                    waited += 1
                    if waited > 6000:
                        self.timed_out.append(rows)
                        break
            return real(matrices, settings, *args, cancelled=cancelled, **kwargs)

        monkeypatch.setattr(coordinator, "recompute", held)

    def open(self):
        self._open.set()

    def close(self):
        """Hold the recomputes the worker starts from now on again."""
        self._open.clear()


@pytest.fixture
def gate(monkeypatch):
    monkeypatch.setattr(coordinator, "BACKGROUND_COST", SMALL_ENOUGH)
    g = Gate(monkeypatch)
    yield g
    g.open()
    assert not g.timed_out, "the GUI thread waited for a held recompute"


@pytest.fixture
def background(monkeypatch):
    """Every session file counts as large: read off the GUI thread, as File ▸ Open reads a large one."""
    import explorer.documents as documents_module
    monkeypatch.setattr(documents_module, "BACKGROUND_BYTES", 100)


@pytest.fixture
def warnings(monkeypatch):
    """The (title, text) of every warning dialog, instead of showing it."""
    from PySide6.QtWidgets import QMessageBox
    seen = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a, **k: seen.append((title, text)))
    return seen
