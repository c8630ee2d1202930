"""Sessions and files through the window's own actions: save, open, broken files, the unsaved-changes
prompt, import and export, autosave and crash recovery. Every dialog is patched."""
import json
import shutil

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from explorer.core.matrix_io import load_matrix
from explorer.core.session import load_session
from tests.gui.same_numbers import assert_same_numbers


@pytest.fixture
def dialogs(monkeypatch):
    """Records every dialog; answers come from ``dialogs.answers`` / ``dialogs.files``."""
    class Dialogs:
        warnings, questions, files, answers = [], [], [], []

    def warning(parent, title, text, *args, **kwargs):
        Dialogs.warnings.append((title, text))
        return QMessageBox.StandardButton.Ok

    def question(parent, title, text, *args, **kwargs):
        Dialogs.questions.append((title, text))
        return Dialogs.answers.pop(0)

    def get_file(parent, caption, directory="", filter="", *args, **kwargs):
        return (str(Dialogs.files.pop(0)), "") if Dialogs.files else ("", "")

    Dialogs.warnings, Dialogs.questions, Dialogs.files, Dialogs.answers = [], [], [], []
    monkeypatch.setattr(QMessageBox, "warning", warning)
    monkeypatch.setattr(QMessageBox, "question", question)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", get_file)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", get_file)
    return Dialogs


def edit_some(window):
    """A few edits a person would make: a cell, a rename, the temperature and the mask."""
    m = window.model
    assert m.set_cell("Q", 1, 2, 1 / 3)
    assert m.set_cell("V", 3, 0, -0.1 + 0.2e-9)
    assert m.rename_token(2, "red")
    assert m.set_param("temperature", 0.7)
    assert m.set_param("causal", True)
    m.flush()


# ----- save and open ---------------------------------------------------------------------------
def test_save_and_open_round_trip_through_the_menu(qtbot, window, dialogs, tmp_path, ui):
    edit_some(window)
    assert window.isWindowModified()
    saved = ui.snapshot(window)
    target = tmp_path / "lesson1"  # no suffix: .json is added
    dialogs.files.append(target)
    window.actions["save_as"].trigger()
    path = tmp_path / "lesson1.json"
    assert path.exists()
    assert not window.isWindowModified()
    assert window.windowTitle().startswith("lesson1.json")
    assert str(path) in window.statusBar().currentMessage()
    assert json.loads(path.read_text("utf-8"))["tokens"] == ["猫", "追", "red", "激光点"]

    window.model.set_cell("K", 0, 0, 5.0)  # an edit after saving sets the marker again
    assert window.isWindowModified()
    window.actions["save"].trigger()  # saves to the same file without asking
    assert not window.isWindowModified() and dialogs.files == []
    window.actions["undo"].trigger()
    assert window.isWindowModified()
    window.actions["save"].trigger()

    window.actions["new"].trigger()  # clean: no question
    window.model.flush()
    assert window.model.tokens[2] == "红色" and window.documents.path is None
    assert dialogs.questions == []

    dialogs.files.append(path)
    window.actions["open"].trigger()
    window.model.flush()
    reopened = ui.snapshot(window)
    assert reopened["tokens"] == saved["tokens"]
    for n in "QKV":  # bit-exact
        assert reopened["matrices"][n].tobytes() == saved["matrices"][n].tobytes()
    assert reopened["settings"] == saved["settings"]
    assert window.panels["controls"].causal.isChecked()
    assert window.panels["controls"].temperature.value() == 0.7
    assert window.windowTitle().startswith("lesson1.json")
    assert not window.isWindowModified()
    assert window.model.undo_stack.count() == 0
    assert_same_numbers(window.panels["weights"].heatmap.image_array(),
                                  ui.expected(window.model).weights)
    assert [t for _, t in window.panels["weights"].heatmap.ticks("left")] == ["猫", "追", "red", "激光点"]
    assert window.documents.recent_files()[0] == str(path.resolve())


def test_saved_layout_comes_back_with_the_session(qtbot, window, dialogs, tmp_path):
    window.actions["view_output"].trigger()
    dialogs.files.append(tmp_path / "s.json")
    window.actions["save_as"].trigger()
    window.actions["reset_layout"].trigger()
    assert window.docks["output"].isVisible()
    dialogs.files.append(tmp_path / "s.json")
    window.actions["open"].trigger()
    assert window.docks["output"].isHidden()


def broken_files(tmp_path, good):
    text = good.read_text("utf-8")
    data = json.loads(text)
    out = {}
    out["truncated"] = text[: len(text) // 2]
    wrong = dict(data, version=99)
    out["version"] = json.dumps(wrong)
    nan = json.loads(text)
    nan["matrices"]["K"][1][1] = "NaN"
    out["nan"] = json.dumps(nan).replace('"NaN"', "NaN")
    out["empty"] = ""
    ragged = json.loads(text)
    ragged["matrices"]["V"][2] = [1.0]
    out["ragged"] = json.dumps(ragged)
    return out


@pytest.mark.parametrize("kind, words", [
    ("truncated", ""), ("version", "99"), ("nan", "NaN"), ("empty", ""), ("ragged", "V"),
])
def test_a_broken_file_leaves_the_session_exactly_as_it_was(qtbot, window, dialogs, tmp_path, ui, kind, words):
    good = tmp_path / "good.json"
    dialogs.files.append(good)
    window.actions["save_as"].trigger()
    bad = tmp_path / f"{kind}.json"
    bad.write_text(broken_files(tmp_path, good)[kind], "utf-8")
    edit_some(window)  # unsaved edits: the person says "Discard", then the file turns out broken
    before = ui.snapshot(window)
    heat = window.panels["weights"].heatmap.image_array().copy()
    dialogs.answers.append(QMessageBox.StandardButton.Discard)
    dialogs.files.append(bad)
    window.actions["open"].trigger()
    window.model.flush()
    assert len(dialogs.questions) == 1
    assert len(dialogs.warnings) == 1
    title, text = dialogs.warnings[0]
    assert title == "Could not open the session"
    assert f"{kind}.json" in text and words in text
    assert text in window.statusBar().currentMessage()
    ui.assert_same(ui.snapshot(window), before)
    assert window.isWindowModified()
    assert_same_numbers(window.panels["weights"].heatmap.image_array(), heat)
    assert window.documents.recent_files() == [str(good.resolve())]


def test_recent_files_menu_lists_saved_files(qtbot, window, dialogs, tmp_path):
    for name in ("a.json", "b.json"):
        dialogs.files.append(tmp_path / name)
        window.actions["save_as"].trigger()
    window.recent_menu.aboutToShow.emit()
    assert [a.text() for a in window.recent_menu.actions()] == ["b.json", "a.json"]
    window.model.set_cell("Q", 0, 0, 9.0)
    dialogs.answers.append(QMessageBox.StandardButton.Discard)
    window.recent_menu.actions()[1].trigger()
    assert window.windowTitle().startswith("a.json")
    assert window.model.matrix("Q")[0, 0] == 0.5


# ----- the unsaved-changes prompt --------------------------------------------------------------
def test_new_with_unsaved_edits_asks_cancel_keeps_discard_proceeds(qtbot, window, dialogs, ui):
    window.model.set_cell("Q", 0, 0, 9.0)
    window.model.flush()
    before = ui.snapshot(window)
    dialogs.answers.append(QMessageBox.StandardButton.Cancel)
    window.actions["new"].trigger()
    window.model.flush()
    assert len(dialogs.questions) == 1 and "Save the changes" in dialogs.questions[0][1]
    ui.assert_same(ui.snapshot(window), before)

    dialogs.answers.append(QMessageBox.StandardButton.Discard)
    window.actions["preset_uniform"].trigger()
    window.model.flush()
    assert len(dialogs.questions) == 2
    assert not window.model.matrix("Q").any()
    assert not window.isWindowModified()
    np.testing.assert_allclose(window.panels["weights"].heatmap.image_array(), 0.25)


def test_new_with_unsaved_edits_answer_save_saves_first(qtbot, window, dialogs, tmp_path):
    window.model.set_cell("Q", 0, 0, 9.0)
    dialogs.answers.append(QMessageBox.StandardButton.Save)
    dialogs.files.append(tmp_path / "kept.json")
    window.actions["new"].trigger()
    assert load_session(tmp_path / "kept.json").matrices["Q"][0, 0] == 9.0
    assert window.model.matrix("Q")[0, 0] == 0.5


def test_closing_with_unsaved_edits_asks(qtbot, window, dialogs):
    window.model.set_cell("Q", 0, 0, 9.0)
    dialogs.answers.append(QMessageBox.StandardButton.Cancel)
    window.actions["quit"].trigger()
    assert window.isVisible() and len(dialogs.questions) == 1
    assert window.model.matrix("Q")[0, 0] == 9.0
    dialogs.answers.append(QMessageBox.StandardButton.Discard)
    assert window.close()
    assert not window.isVisible() and len(dialogs.questions) == 2


def test_closing_a_clean_window_does_not_ask(qtbot, window, dialogs):
    assert window.close()
    assert dialogs.questions == []


# ----- import and export -----------------------------------------------------------------------
def test_import_a_matrix_from_npy(qtbot, window, dialogs, tmp_path, ui):
    new_v = np.arange(12.0).reshape(4, 3) / 7
    np.save(tmp_path / "v.npy", new_v)
    assert window.documents.import_matrix("V", tmp_path / "v.npy")
    window.model.flush()
    np.testing.assert_array_equal(window.model.matrix("V"), new_v)
    assert window.panels["editor"].tables["V"].value(3, 2) == new_v[3, 2]
    assert_same_numbers(window.panels["output"].heatmap.image_array(), ui.expected(window.model).output)
    assert "Imported v.npy into V" in window.statusBar().currentMessage()
    assert window.isWindowModified()
    window.actions["undo"].trigger()
    assert window.model.matrix("V")[0, 0] == 1.0
    # and through the menu
    np.save(tmp_path / "k.npy", np.ones((4, 5)))
    np.save(tmp_path / "q.npy", np.ones((4, 5)))
    dialogs.files.extend([tmp_path / "k.npy"])
    window.actions["import_K"].trigger()  # K 4×5 does not fit Q 4×3: refused
    assert window.model.matrix("K").shape == (4, 3)
    dialogs.files.extend([tmp_path / "q.npy"])
    window.actions["import_Q"].trigger()
    assert window.model.matrix("Q").shape == (4, 3)


@pytest.mark.parametrize("kind", ["rows", "nan", "garbage", "missing"])
def test_a_bad_matrix_is_refused_with_a_message_and_changes_nothing(qtbot, window, dialogs, tmp_path, ui, kind):
    path = tmp_path / "bad.npy"
    if kind == "rows":
        np.save(path, np.ones((5, 3)))
    elif kind == "nan":
        np.save(path, np.array([[1.0, np.nan, 0.0]] * 4))
    elif kind == "garbage":
        path.write_bytes(b"\x93NUMPY this is not really a matrix")
    window.model.set_cell("V", 0, 0, 2.0)
    before = ui.snapshot(window)
    assert not window.documents.import_matrix("V", path)
    window.model.flush()
    ui.assert_same(ui.snapshot(window), before)
    message = window.statusBar().currentMessage()
    assert message
    if kind != "rows":
        assert dialogs.warnings and dialogs.warnings[0][0] == "Could not import into V"
        assert "bad.npy" in dialogs.warnings[0][1]


def distinct_colours(image, step=5):
    return len({image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)})


def test_export_panel_png_and_svg_and_window(qtbot, window, dialogs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    png, svg = tmp_path / "weights.png", tmp_path / "scores.svg"
    assert window.documents.export_panel("weights", png)
    image = QImage(str(png))
    assert not image.isNull() and image.size() == window.panels["weights"].size()
    assert distinct_colours(image) > 20
    dialogs.files.append(svg)
    window.actions["export_panel_scores"].trigger()
    assert str(svg) in window.statusBar().currentMessage()
    renderer = QSvgRenderer(str(svg))
    assert renderer.isValid()
    drawn = QImage(renderer.defaultSize(), QImage.Format.Format_ARGB32)
    drawn.fill(QColor("white"))
    painter = QPainter(drawn)
    renderer.render(painter)
    painter.end()
    assert distinct_colours(drawn) > 20  # the heatmap, its texts and the colour bar, not an empty page
    text = svg.read_text("utf-8")
    assert "<image" in text and "激光点" in text
    dialogs.files.append(tmp_path / "editor.svg")
    window.actions["export_panel_editor"].trigger()  # a panel with tables and a toolbar
    assert "<text" in (tmp_path / "editor.svg").read_text("utf-8")
    dialogs.files.append(tmp_path / "window.png")
    window.actions["export_window"].trigger()
    assert QImage(str(tmp_path / "window.png")).size() == window.size()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["editor.svg", "home", "scores.svg", "weights.png",
                                                           "window.png"]


def test_cancelling_an_export_dialog_writes_nothing(qtbot, window, dialogs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for key in ("export_window", "export_panel_weights", "export_matrix_V", "import_V", "save_as", "open"):
        window.actions[key].trigger()  # the patched dialog returns "" as a cancelled one does
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    assert dialogs.warnings == [] and not window.isWindowModified()


@pytest.mark.parametrize("name, suffix", [("Weights", ".csv"), ("Scores", ".npy"), ("V", ".csv"), ("Output", ".npy")])
def test_export_a_matrix_loads_back_equal(qtbot, window, dialogs, tmp_path, name, suffix):
    window.model.set_cell("V", 1, 1, 1 / 3)
    window.model.set_param("causal", True)
    window.model.flush()
    path = tmp_path / f"{name}{suffix}"
    dialogs.files.append(path)
    window.actions[f"export_matrix_{name}"].trigger()
    shown = {"Weights": window.panels["weights"].heatmap.image_array(),
             "Scores": window.panels["scores"].heatmap.image_array(),
             "Output": window.panels["output"].heatmap.image_array(),
             "V": window.model.matrix("V")}[name]
    np.testing.assert_array_equal(load_matrix(path), shown)


# ----- autosave and recovery -------------------------------------------------------------------
def test_autosave_writes_a_recovery_file_and_a_clean_save_removes_it(qtbot, window, dialogs, home, tmp_path, ui):
    recovery = window.recovery
    assert recovery.path.parent == home / "recovery"
    recovery.autosave()
    assert not recovery.path.exists()  # nothing to recover yet
    edit_some(window)
    recovery.autosave()
    assert recovery.path.exists()
    restored = load_session(recovery.path)
    now = ui.snapshot(window)
    assert restored.tokens == now["tokens"] and restored.settings == now["settings"]
    for n in "QKV":
        np.testing.assert_array_equal(restored.matrices[n], now["matrices"][n])
    dialogs.files.append(tmp_path / "saved.json")
    window.actions["save_as"].trigger()
    assert not recovery.path.exists()
    window.model.set_cell("Q", 0, 0, 1.0)
    recovery.autosave()
    assert recovery.path.exists()
    window.actions["undo"].trigger()  # back to the saved state: clean again
    assert not recovery.path.exists()


def make_orphan(qtbot, window, home):
    """A recovery file whose writer is gone: written by this window, copied under a dead name."""
    window.model.set_cell("K", 2, 2, 7.5)
    window.model.rename_token(0, "狗")
    window.recovery.autosave()
    orphan = home / "recovery" / "session-1-1.json"
    shutil.copy(window.recovery.path, orphan)
    window.model.undo_stack.setIndex(0)  # undo both edits: clean, own recovery file removed
    assert not window.recovery.path.exists() and not window.isWindowModified()
    return orphan


def test_an_orphan_recovery_file_is_offered_yes_restores(qtbot, window, dialogs, home, ui):
    orphan = make_orphan(qtbot, window, home)
    dialogs.answers.append(QMessageBox.StandardButton.Yes)
    assert window.recovery.offer()
    window.model.flush()
    assert len(dialogs.questions) == 1 and dialogs.questions[0][0] == "Restore unsaved work?"
    assert window.model.matrix("K")[2, 2] == 7.5 and window.model.tokens[0] == "狗"
    assert window.isWindowModified()
    assert not orphan.exists()
    assert window.recovery.path.exists()  # the restored edits are protected again at once
    assert window.panels["weights"].heatmap.ticks("left")[0] == (0, "狗")
    assert_same_numbers(window.panels["weights"].heatmap.image_array(), ui.expected(window.model).weights)


def test_an_orphan_recovery_file_is_offered_no_deletes(qtbot, window, dialogs, home, ui):
    orphan = make_orphan(qtbot, window, home)
    before = ui.snapshot(window)
    dialogs.answers.append(QMessageBox.StandardButton.No)
    assert not window.recovery.offer()
    assert len(dialogs.questions) == 1
    assert not orphan.exists()
    ui.assert_same(ui.snapshot(window), before)
    assert not window.recovery.offer()  # asked once only
    assert len(dialogs.questions) == 1


def test_a_running_windows_recovery_file_is_not_offered(qtbot, window, dialogs, home):
    window.model.set_cell("K", 2, 2, 7.5)
    window.recovery.autosave()
    assert window.recovery.path.exists()
    assert window.recovery.offer() is False and dialogs.questions == []


# ----- a number still being typed --------------------------------------------------------------
def start_typing(qtbot, window, ui, text):
    view = window.panels["editor"].views["Q"]
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    index = view.model().index(0, 0)
    view.setFocus()
    view.setCurrentIndex(index)
    view.edit(index)
    editor = ui.editor_of(view)
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    return editor


# regression (was a bug): Ctrl+S while a cell editor holds a typed number saves the old value and marks the
# window clean; the typed number is committed only afterwards
def test_save_while_typing_in_a_cell_saves_the_typed_number(qtbot, window, dialogs, tmp_path, ui):
    editor = start_typing(qtbot, window, ui, "7.25")
    dialogs.files.append(tmp_path / "typed.json")
    qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert (tmp_path / "typed.json").exists()
    assert load_session(tmp_path / "typed.json").matrices["Q"][0, 0] == 7.25


# regression (was a bug): closing the window while a cell editor holds a typed number does not ask about
# unsaved changes (the stack is still clean); the number is committed during the close and lost
def test_closing_while_typing_in_a_cell_asks(qtbot, window, dialogs, ui):
    start_typing(qtbot, window, ui, "7.25")
    dialogs.answers.append(QMessageBox.StandardButton.Cancel)
    window.close()
    assert dialogs.questions, "closed without asking"
    assert window.isVisible()


@pytest.mark.parametrize("action, chosen, written", [
    ("export_matrix_Weights", "NumPy (*.npy)", "figure.npy"),
    ("export_panel_scores", "SVG drawing (*.svg)", "figure.svg"),
])
def test_an_export_without_a_suffix_follows_the_chosen_file_type(qtbot, window, monkeypatch, tmp_path, action,
                                                                   chosen, written):
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warnings.append(a[1:3]))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "figure"), chosen))
    window.actions[action].trigger()
    assert warnings == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["home", written])
