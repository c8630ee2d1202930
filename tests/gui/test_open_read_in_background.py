"""A large session file is read off the GUI thread (issue 18): File ▸ Open returns at once, the
session appears when read (a JSON one parsed in another process), errors still reach a dialog,
and the newest open wins. Work is observed, never timed."""
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog

import explorer.documents as documents_module
from explorer.core import presets
from explorer.core.session import save_session


@pytest.mark.parametrize("suffix", [".json", ".aesz"])
def test_a_large_file_opens_in_the_background(qtbot, window, background, tmp_path, suffix):
    session = presets.random_session(12, 8, seed=5)
    path = tmp_path / f"big{suffix}"
    save_session(session, path)
    loads = window.model.loads
    assert window.documents.open(path, ask=False)
    assert window.model.loads == loads  # not read yet: the call returned at once
    assert window.statusBar().currentMessage().startswith(f"Opening big{suffix}")
    qtbot.waitUntil(lambda: window.model.loads == loads + 1, timeout=20000)
    shown = window.model.to_session().matrices
    assert shown.keys() == session.matrices.keys()
    assert all(np.array_equal(shown[n], session.matrices[n]) for n in shown)  # bit for bit
    assert tuple(window.model.tokens) == session.tokens
    assert window.documents.path == Path(path)
    assert window.windowTitle().startswith(f"big{suffix}")


@pytest.mark.parametrize("suffix", [".json", ".aesz"])
def test_a_bad_large_file_says_why_and_changes_nothing(qtbot, window, background, warnings, tmp_path, suffix):
    path = tmp_path / f"bad{suffix}"
    save_session(presets.random_session(12, 8, seed=5), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # cut in half
    before = window.model.to_session()
    assert window.documents.open(path, ask=False)
    qtbot.waitUntil(lambda: bool(warnings), timeout=20000)
    title, text = warnings[0]
    assert title == "Could not open the session" and text.startswith(f"bad{suffix}: ")
    assert window.model.to_session() == before and window.documents.path is None


def test_the_newest_open_wins(qtbot, window, background, tmp_path):
    first, second = presets.random_session(12, 8, seed=1), presets.random_session(9, 8, seed=2)
    save_session(first, tmp_path / "first.json")
    save_session(second, tmp_path / "second.aesz")
    loads = window.model.loads
    window.documents.open(tmp_path / "first.json", ask=False)
    window.documents.open(tmp_path / "second.aesz", ask=False)
    qtbot.waitUntil(lambda: window.model.loads == loads + 1, timeout=20000)
    qtbot.wait(300)  # the first one's result, were it still to come, would land in this time
    assert window.model.loads == loads + 1 and tuple(window.model.tokens) == second.tokens
    assert window.documents.path.name == "second.aesz"


def test_save_as_offers_the_binary_form_first_for_a_large_session(window, monkeypatch):
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda parent, title, start, filters: asked.append((start, filters)) or ("", ""))
    window.documents.save_as()
    monkeypatch.setattr(documents_module, "LARGE_CELLS", 1)
    window.documents.save_as()
    (small_name, small_filters), (large_name, large_filters) = asked
    # offered under the demo's title, "Demo: 猫 追 红色 激光点", without the colon no file system takes everywhere
    assert small_name.endswith("/Demo 猫 追 红色 激光点.json") and small_filters.startswith("Attention Explorer session, JSON")
    assert large_name.endswith("/Demo 猫 追 红色 激光点.aesz") and large_filters.startswith("Attention Explorer session, binary")
