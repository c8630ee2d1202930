"""The application as a process: headless screenshots, the command line, and clean exits.

Each run is a subprocess (offscreen, its own ATTENTION_EXPLORER_HOME). They are started together
once per module and waited for, so the whole file costs about as much as its slowest run.
"""
import textwrap
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tests.gui.app_processes import run_at_once

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 90  # seconds: only a guard against a hang, never an assertion about speed

DRIVER = textwrap.dedent('''
    """Start the app normally and leave it through File > Quit, as a person would."""
    import os
    import sys

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    import explorer.app

    mode = sys.argv[1]
    app = QApplication(sys.argv[:1])


    def windows():
        return [w for w in QApplication.topLevelWidgets() if w.objectName() == "mainWindow"]


    def answer(parent, title, text, *args, **kwargs):
        print(f"asked: {title}", flush=True)
        return QMessageBox.StandardButton.Discard


    QMessageBox.question = answer  # the unsaved-changes prompt (never a real modal dialog)


    def edit():
        for w in windows():
            assert w.model.set_cell("Q", 0, 0, 4.0)
            w.model.flush()
            w.recovery.autosave()
            print("edited; recovery file:", w.recovery.path.exists(), flush=True)
            if mode == "edit-clean":
                w.model.undo_stack.setClean()


    def quit_():
        found = windows()
        print("windows:", len(found), flush=True)
        for w in found:
            w.actions["quit"].trigger()


    if mode != "plain":
        QTimer.singleShot(400, edit)
    QTimer.singleShot(900, quit_)
    QTimer.singleShot(60_000, lambda: os._exit(3))  # a hang is a failure, not a stuck test run
    sys.exit(explorer.app.main([]))
''')


SAVED_SETTINGS = "[window]\nstate=kept-state\ngeometry=kept-geometry\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> (returncode, stdout, stderr, folder), every process started at once."""
    base = tmp_path_factory.mktemp("app")
    driver = base / "driver.py"
    driver.write_text(DRIVER, "utf-8")
    broken = base / "broken.json"
    broken.write_text('{"format": "attention-explorer-session", "version": 1, "tok', "utf-8")
    session = ROOT / "tests" / "data" / "session_v1.json"
    main = str(ROOT / "main.py")
    commands = {
        "screenshot": [main, "--screenshot", "{dir}/out.png"],
        "size": [main, "--screenshot", "{dir}/out.png", "--size", "1280x800"],
        "module": ["-m", "explorer", "--screenshot", "{dir}/out.png"],
        "session": [main, str(session), "--screenshot", "{dir}/out.png"],
        "broken": [main, str(broken), "--screenshot", "{dir}/out.png"],
        "bad_size": [main, "--screenshot", "{dir}/out.png", "--size", "12x"],
        "tiny_size": [main, "--screenshot", "{dir}/out.png", "--size", "10x10"],
        "model": [main, "--model", "embedded", "--text", "the cat sat on the mat the cat sat on the mat",
                  "--layer", "2", "--head", "1", "--screenshot", "{dir}/out.png"],
        "model_bad_head": [main, "--model", "embedded", "--layer", "2", "--head", "9", "--screenshot",
                           "{dir}/out.png"],
        "keeps_layout": [main, "--screenshot", "{dir}/out.png"],
        "quit": [str(driver), "plain"],
        "quit_after_edit": [str(driver), "edit"],
        "quit_after_edit_clean": [str(driver), "edit-clean"],
    }
    def keep_layout(name, folder):
        if name == "keeps_layout":  # a person's saved layout, which a screenshot must not touch
            (folder / "home" / "settings.ini").write_text(SAVED_SETTINGS, "utf-8")

    return run_at_once(base, commands, TIMEOUT, keep_layout)


def png_size(path):
    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable PNG"
    return image


def assert_not_blank(image):
    step = 13
    colours = {image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)}
    assert len(colours) > 50, len(colours)


def assert_healthy(err):
    assert "Fatal Python error" not in err
    assert "Traceback" not in err, err


@pytest.mark.parametrize("name, size", [("screenshot", (1600, 1000)), ("size", (1280, 800)),
                                        ("module", (1600, 1000)), ("session", (1600, 1000))])
def test_screenshot_writes_a_non_blank_png(runs, name, size):
    code, out, err, folder = runs[name]
    assert code == 0, err
    assert_healthy(err)
    path = folder / "out.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = png_size(path)
    assert (image.width(), image.height()) == size
    assert_not_blank(image)
    # a screenshot run leaves no recovery file or lock behind
    assert not list((folder / "home").glob("recovery/session-*"))


def test_a_model_head_screenshot_prints_nothing_and_a_bad_head_only_why(runs):
    code, out, err, folder = runs["model"]
    assert code == 0, err
    assert err == ""  # not the offscreen platform's notes on every run either
    assert_not_blank(png_size(folder / "out.png"))
    code, out, err, folder = runs["model_bad_head"]
    assert code == 1
    assert err == "attention-explorer: --layer 2 --head 9: embedded has layers 1…2 and heads 1…4\n"
    assert not (folder / "out.png").exists()


def test_a_broken_session_fails_the_screenshot_with_a_message(runs):
    code, out, err, folder = runs["broken"]
    assert code == 1
    assert_healthy(err)
    assert "broken.json" in err
    assert not (folder / "out.png").exists()


@pytest.mark.parametrize("name", ["bad_size", "tiny_size"])
def test_a_bad_size_exits_2_with_a_message(runs, name):
    code, out, err, folder = runs[name]
    assert code == 2
    assert "--size must be" in err and "usage:" in err
    assert "Fatal Python error" not in err
    assert not (folder / "out.png").exists()


def test_quit_action_exits_0(runs):
    code, out, err, folder = runs["quit"]
    assert_healthy(err)
    assert code == 0, err
    assert "windows: 1" in out and "asked" not in out
    assert (folder / "home" / "settings.ini").exists()  # the layout was saved on the way out
    assert not list((folder / "home").glob("recovery/session-*"))


def test_quit_after_an_edit_asks_and_exits_0(runs):
    code, out, err, folder = runs["quit_after_edit"]
    assert_healthy(err)
    assert code == 0, err
    assert "edited; recovery file: True" in out
    assert "asked: Unsaved changes" in out
    assert not list((folder / "home").glob("recovery/session-*"))  # a clean exit removes the recovery copy


def test_quit_after_an_edit_marked_saved_exits_0_without_asking(runs):
    code, out, err, folder = runs["quit_after_edit_clean"]
    assert_healthy(err)
    assert code == 0, err
    assert "edited" in out and "asked" not in out
    assert not list((folder / "home").glob("recovery/session-*"))


def test_a_screenshot_leaves_the_saved_layout_alone(runs):
    code, out, err, folder = runs["keeps_layout"]
    assert code == 0, err
    assert (folder / "home" / "settings.ini").read_text("utf-8") == SAVED_SETTINGS
