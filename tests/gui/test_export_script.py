"""File ▸ Export ▸ Session as Python script… (F20): the script written is the session on screen, its numbers
are the window's, a cancelled dialog writes nothing and a refusal says why in the app's words."""
import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from explorer.core import as_code
from tests.core.as_code_checks import close, run_script


@pytest.fixture
def save_dialog(monkeypatch):
    """The save dialog answers with ``save_dialog.answer`` (a path, or "" for Cancel); warnings are recorded."""
    class Dialog:
        answer, asked, warnings = "", [], []

    def get_save(parent, caption, directory="", filter="", *args, **kwargs):
        Dialog.asked.append((caption, directory, filter))
        return str(Dialog.answer), filter.split(";;")[0]

    Dialog.asked, Dialog.warnings = [], []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", get_save)
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda parent, title, text, *a, **k: Dialog.warnings.append((title, text)))
    return Dialog


def export_menu(window):
    file = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    return next(a.menu() for a in file.actions() if a.text() == "&Export")


def test_the_action_is_in_file_export_with_a_tooltip(qtbot, window):
    action = window.actions["export_script"]
    assert action in export_menu(window).actions()
    assert action.text() == "Session as Python script…"
    assert "NumPy script" in action.toolTip() and action.statusTip() == action.toolTip()


def test_the_script_recomputes_the_numbers_the_window_shows(qtbot, window, save_dialog, tmp_path):
    model = window.model
    model.set_cell("Q", 1, 2, 1 / 3)   # the edited session, not the demo
    model.set_param("causal", True)
    model.set_param("temperature", 0.7)
    model.flush()
    save_dialog.answer = tmp_path / "mine"   # typed without a suffix: the file type's .py is added
    window.actions["export_script"].trigger()
    script = tmp_path / "mine.py"
    assert save_dialog.asked[0][0] == "Export the session as a Python script"
    assert save_dialog.asked[0][1].endswith("/Demo 猫 追 红色 激光点.py")  # the session's title, "Demo: 猫 追 红色 激光点"
    assert save_dialog.asked[0][2] == "Python script (*.py)"
    assert save_dialog.warnings == []
    assert str(script) in window.statusBar().currentMessage()
    run = run_script(script, tmp_path / "out.npz", tmp_path)
    assert run.returncode == 0, run.stderr
    r = model.results
    with np.load(tmp_path / "out.npz", allow_pickle=False) as saved:
        close(saved["S"], r.heads.scores, "S")
        close(saved["A"], r.heads.weights, "A")
        close(saved["O"], r.heads.head_outputs, "O")
        assert saved["A"][0, 0, 1] == 0.0   # causal: 猫 sees nothing after it
    assert "1/3" not in script.read_text("utf-8") and repr(1 / 3) in script.read_text("utf-8")


def test_cancelling_writes_nothing(qtbot, window, save_dialog, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    save_dialog.answer = ""
    window.actions["export_script"].trigger()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    assert save_dialog.warnings == []


def test_a_setting_the_script_cannot_reproduce_is_refused_by_name(qtbot, window, save_dialog, tmp_path, monkeypatch):
    monkeypatch.setitem(as_code.REPRODUCED, "temperature", (1.0,))
    window.model.set_param("temperature", 2.0)
    window.model.flush()
    save_dialog.answer = tmp_path / "refused.py"
    window.actions["export_script"].trigger()
    assert save_dialog.warnings and save_dialog.warnings[0][0] == "Could not export the script"
    assert "refused.py: the setting temperature (temperature) is 2.0" in save_dialog.warnings[0][1]
    assert "no script was written" in window.statusBar().currentMessage()
    assert not (tmp_path / "refused.py").exists()


def test_many_numbers_go_beside_the_script_and_the_status_bar_says_so(qtbot, window, save_dialog, tmp_path,
                                                                     monkeypatch):
    monkeypatch.setattr(as_code, "MAX_LITERAL_NUMBERS", 4)
    save_dialog.answer = tmp_path / "big.py"
    window.actions["export_script"].trigger()
    assert (tmp_path / "big_numbers.npz").exists()
    assert "big_numbers.npz" in window.statusBar().currentMessage()
    assert run_script(tmp_path / "big.py", tmp_path / "out.npz", tmp_path).returncode == 0
