import numpy as np
from PySide6.QtCore import Qt, QPoint
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox
from explorer.core.session import load_session

def test_pending_editor_save(qtbot, window, ui, tmp_path, monkeypatch):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "s.json"), ""))
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    view = window.panels["editor"].views["Q"]
    view.setFocus()
    index = view.model().index(0, 0)
    view.setCurrentIndex(index)
    view.edit(index)
    ed = ui.editor_of(view)
    ed.setFocus()
    ed.selectAll()
    qtbot.keyClicks(ed, "7.25")
    qtbot.keyClick(ed, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    print("saved?", (tmp_path / "s.json").exists())
    if (tmp_path / "s.json").exists():
        print("saved Q00", load_session(tmp_path / "s.json").matrices["Q"][0, 0])
    print("model", window.model.matrix("Q")[0, 0], view.state(), window.isWindowModified())
    qtbot.keyClick(ed, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    print("after ctrl+z in editor", ed.text(), window.model.undo_stack.count())

def test_pending_editor_quit(qtbot, window, ui, tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(1) or QMessageBox.StandardButton.Cancel)
    view = window.panels["editor"].views["Q"]
    index = view.model().index(0, 0)
    view.setCurrentIndex(index)
    view.edit(index)
    ed = ui.editor_of(view)
    ed.selectAll()
    qtbot.keyClicks(ed, "7.25")
    r = window.close()
    print("closed", r, asked, window.model.matrix("Q")[0, 0])
