"""The command line's SESSION and a crash-recovery copy are read as File ▸ Open reads a large file
(issue 18): off the GUI thread (a JSON one parsed in another process), the window shown and usable
meanwhile, with the same messages when the file cannot be read. BACKGROUND_BYTES is lowered so the
test files count as large; which thread calls the reader is recorded, nothing is timed."""
import json
import threading
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

import explorer.app
import explorer.documents as documents_module
import explorer.recovery as recovery_module
import explorer.session_opener as opener_module
from explorer.core.presets import random_session
from explorer.core.session import save_session
from explorer.core.session_write import session_to_json


@pytest.fixture
def readers(monkeypatch):
    """Every call of ``load_session`` by the window's code: (on the GUI thread?, file name)."""
    calls = []
    for module in (documents_module, opener_module, recovery_module):
        real = module.load_session

        def reading(path, *args, _real=real, **kwargs):
            calls.append((threading.current_thread() is threading.main_thread(), str(path)))
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(module, "load_session", reading)
    return calls


def session(seed=4):
    s = random_session(12, 8, seed=seed)
    return replace(s, settings=replace(s.settings, heads=2), title=f"from file {seed}")


def main_window():
    """The window ``main`` shows (windows of earlier tests may still wait for their deletion)."""
    return next(w for w in QApplication.topLevelWidgets() if w.objectName() == "mainWindow" and w.isVisible())


def run_main(monkeypatch, argv, until):
    """``explorer.app.main(argv)`` with its event loop standing in: the loop runs until ``until(window)``,
    then the window is looked at (``look(window)``) and main goes on to close it. Returns (status, look)."""
    seen = {}

    def exec_(app):
        window = main_window()
        seen["reading"] = window.documents.opening
        for _ in range(2000):
            if until(window):
                break
            app.processEvents()
            threading.Event().wait(0.005)
        window.model.flush()
        seen["tokens"], seen["title"] = window.model.tokens, window.windowTitle()
        seen["Q"] = np.array(window.model.matrix("Q"))
        seen["status"] = window.statusBar().currentMessage()
        window.model.undo_stack.setClean()
        return 0

    monkeypatch.setattr(QApplication, "exec", exec_)
    return explorer.app.main(argv), seen


@pytest.mark.parametrize("suffix", [".json", ".aesz"])
def test_a_session_on_the_command_line_is_read_off_the_gui_thread(qtbot, home, background, readers, tmp_path,
                                                                   monkeypatch, suffix):
    want = session()
    path = tmp_path / f"big{suffix}"
    save_session(want, path)
    status, seen = run_main(monkeypatch, [str(path)], lambda w: w.model.tokens == want.tokens)
    assert status == 0
    assert seen["reading"]  # the window was on screen while the file was read
    assert seen["tokens"] == want.tokens and f"big{suffix}" in seen["title"]
    np.testing.assert_array_equal(seen["Q"], want.matrices["Q"])
    assert not [name for on_gui, name in readers if on_gui]  # no read of it on the GUI thread
    assert [name for on_gui, name in readers if not on_gui]  # the opener's thread read it


def test_a_screenshot_of_a_session_on_the_command_line_waits_for_it_read_off_the_gui_thread(
        qtbot, home, background, readers, tmp_path, monkeypatch):
    want = session(seed=6)
    path = tmp_path / "big.json"
    save_session(want, path)
    seen = {}
    real = explorer.app.take_screenshot

    def look(app, window, shot, problem=None):
        seen["tokens"], seen["problem"] = window.model.tokens, problem
        return real(app, window, shot, problem)

    monkeypatch.setattr(explorer.app, "take_screenshot", look)
    assert explorer.app.main([str(path), "--screenshot", str(tmp_path / "shot.png")]) == 0
    assert seen == {"tokens": want.tokens, "problem": None} and (tmp_path / "shot.png").exists()
    assert readers and not [name for on_gui, name in readers if on_gui]


def bad_file(tmp_path):
    text = json.loads(session_to_json(session()))
    text["version"] = 99  # written by a newer version
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(text), "utf-8")
    return path


def test_a_bad_session_on_the_command_line_says_what_file_open_says(qtbot, home, background, warnings, tmp_path,
                                                                     monkeypatch, capsys):
    path = bad_file(tmp_path)
    from tests.gui.conftest import open_window

    window = open_window(qtbot)
    assert window.documents.open(path, ask=False)  # read in the background: the answer comes later
    qtbot.waitUntil(lambda: bool(warnings), timeout=20_000)
    file_open = warnings.pop()
    assert file_open[0] == "Could not open the session" and "newer" in file_open[1]
    window.model.undo_stack.setClean()
    window.close()

    status, seen = run_main(monkeypatch, [str(path)], lambda w: bool(warnings))
    assert status == 0 and warnings == [file_open]  # the same dialog, the same words
    assert seen["tokens"] != session().tokens  # the window kept the session it had
    assert explorer.app.main([str(path), "--screenshot", str(tmp_path / "shot.png")]) == 1
    assert file_open[1] in capsys.readouterr().err and not (tmp_path / "shot.png").exists()


def orphan_of(home, text):
    folder = home / "recovery"
    folder.mkdir(parents=True, exist_ok=True)
    orphan = folder / "session-1-1.json"
    orphan.write_text(text, "utf-8")
    return orphan


def test_a_large_recovery_copy_is_read_off_the_gui_thread(qtbot, window, background, readers, home, monkeypatch):
    want = replace(session(seed=9), layout={"file": "/somewhere/mine.json"})
    orphan = orphan_of(home, session_to_json(want))
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda parent, title, text, *a, **k: asked.append(text) or QMessageBox.StandardButton.Yes)
    assert window.recovery.offer()  # asked, and reading
    assert window.documents.opening and window.model.tokens != want.tokens
    assert f"({orphan.stat().st_size} bytes)" in asked[0]  # large: not read on the GUI thread to be described
    qtbot.waitUntil(lambda: window.model.tokens == want.tokens, timeout=20_000)
    np.testing.assert_array_equal(window.model.matrix("K"), want.matrices["K"])
    assert window.isWindowModified() and window.documents.path.name == "mine.json"
    qtbot.waitUntil(lambda: not orphan.exists(), timeout=20_000)  # once this window's own copy is written
    assert window.recovery.path.exists()
    assert window.statusBar().currentMessage() == "Restored the unsaved session from the last run."
    assert readers and not [name for on_gui, name in readers if on_gui]


def test_a_large_recovery_copy_that_cannot_be_read_is_kept_aside(qtbot, window, background, warnings, home,
                                                                 monkeypatch):
    text = json.loads(session_to_json(session()))
    text["version"] = 99
    orphan = orphan_of(home, json.dumps(text))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    tokens = window.model.tokens
    assert window.recovery.offer()
    qtbot.waitUntil(lambda: bool(warnings), timeout=20_000)
    kept = orphan.with_name("unreadable-session-1-1.json")
    title, said = warnings[0]
    assert title == "Could not restore" and "newer" in said and str(kept) in said
    assert kept.exists() and not orphan.exists() and window.model.tokens == tokens
    assert window.recovery.offer() is False  # not offered again


@pytest.mark.parametrize("with_model", [False, True])
def test_a_head_asked_for_on_the_command_line_is_not_replaced_by_a_recovery_offer(qtbot, home, monkeypatch,
                                                                                  with_model):
    orphan = orphan_of(home, session_to_json(session(seed=11)))
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        lambda parent, title, text, *a, **k: asked.append(text) or QMessageBox.StandardButton.No)
    argv = ["--model", "embedded", "--layer", "2", "--head", "1"] if with_model else []
    status, seen = run_main(monkeypatch, argv, lambda w: True)
    assert status == 0
    if with_model:  # the offer waits for a launch that asked for nothing else; the copy is kept for it
        assert not asked and orphan.exists() and "layer 2 head 1" in seen["title"]
    else:
        assert asked and not orphan.exists()  # offered and declined
