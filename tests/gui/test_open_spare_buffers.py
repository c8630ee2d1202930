"""A large session's result buffers are made, and its shown head's memory touched, while its file is
read (issue 18, ``core.spare_buffers``): the results are then written into those arrays and are the
core's; a file that fails, a newer open, or a session whose results reuse the window's own let them
go. ``SPARE_BYTES`` and ``BACKGROUND_COST`` are lowered so L = 48 counts as large. Nothing is timed."""
import threading

import numpy as np
import pytest

import explorer.session_opener as session_opener
from explorer.core import spare_buffers
from explorer.core.pipeline import run_pipeline
from tests.gui.test_open_large_in_background import big_session, save, wait_until_shown


@pytest.fixture
def spares(monkeypatch, background, gate):
    """Every SpareBuffers the opener makes, in order; the worker's recomputes wait at ``gate``."""
    monkeypatch.setattr(spare_buffers, "SPARE_BYTES", 0)
    made = []
    real = session_opener.spare_for

    def record(shape, keep=None):
        spare = real(shape, keep)
        if spare is not None:
            made.append(spare)
        return spare

    monkeypatch.setattr(session_opener, "spare_for", record)
    return made


def released(spare):
    return spare._stop.is_set() and spare.scores is None


@pytest.mark.parametrize("suffix", [".json", ".aesz"])
def test_the_results_of_an_opened_session_are_written_into_its_spare_buffers(qtbot, window, spares, gate,
                                                                             tmp_path, suffix):
    session = big_session(48, heads=4, selected_head=2)
    path = save(session, tmp_path / f"big{suffix}")
    assert window.documents.open(path, ask=False)
    qtbot.waitUntil(lambda: bool(gate.started), timeout=20_000)
    (spare,) = spares
    assert spare.shape == (4, 48, 48) and spare.head == 2
    scores, weights = spare.scores, spare.weights
    gate.open()
    wait_until_shown(qtbot, window)
    results = window.model.results
    assert results.heads.scores is scores and results.heads.weights is weights
    want = run_pipeline(window.model.state.matrices, window.model.settings)
    for stage in ("scores", "weights", "head_outputs", "output"):
        np.testing.assert_array_equal(getattr(results.heads, stage), getattr(want.heads, stage), err_msg=stage)
    np.testing.assert_array_equal(window.panels["weights"].heatmap.image_array(), want.heads.weights[2])
    assert window.model.coordinator._spare is None


def test_a_file_refused_after_its_outline_lets_its_spare_go(qtbot, window, spares, warnings, tmp_path):
    session = big_session(48)
    path = save(session, tmp_path / "bad.json")
    text = path.read_text()
    path.write_text(text.replace('"causal": false', '"causal": 3'))  # the settings check refuses it, matrices read
    before = window.model.to_session()
    assert window.documents.open(path, ask=False)
    qtbot.waitUntil(lambda: bool(warnings), timeout=20_000)
    assert window.model.to_session() == before
    assert all(released(spare) for spare in spares)


def test_a_newer_open_lets_the_older_spare_go(qtbot, window, spares, gate, tmp_path, monkeypatch):
    first, second = big_session(48, seed=1), big_session(56, seed=2)
    save(first, tmp_path / "first.aesz")
    save(second, tmp_path / "second.aesz")
    overtaken = threading.Event()
    real = session_opener.SessionOpener._prepare

    def prepare(opener, request, shape):  # the first read stays at its outline until the second open
        real(opener, request, shape)
        if shape[1] == 48:
            overtaken.wait(10)

    monkeypatch.setattr(session_opener.SessionOpener, "_prepare", prepare)
    loads = window.model.loads
    window.documents.open(tmp_path / "first.aesz", ask=False)
    qtbot.waitUntil(lambda: bool(spares), timeout=20_000)
    window.documents.open(tmp_path / "second.aesz", ask=False)
    assert released(spares[0])
    overtaken.set()
    qtbot.waitUntil(lambda: window.model.loads == loads + 1, timeout=20_000)
    assert spares[-1].shape == (4, 56, 56) and len(spares) == 2
    gate.open()
    wait_until_shown(qtbot, window)
    assert window.model.results.heads.scores is not None and window.model.results.heads.scores.shape == (4, 56, 56)
    qtbot.wait(100)
    assert window.model.loads == loads + 1  # the first read's session never came


def test_no_spare_for_a_session_whose_results_reuse_the_windows_own(qtbot, window, spares, gate, tmp_path,
                                                                    monkeypatch):
    from explorer.model import coordinator
    monkeypatch.setattr(coordinator, "REUSE_BYTES", 0)  # results this small are rewritten in place too
    save(big_session(48, seed=1), tmp_path / "first.aesz")
    save(big_session(48, seed=2), tmp_path / "second.aesz")
    window.documents.open(tmp_path / "first.aesz", ask=False)
    qtbot.waitUntil(lambda: bool(gate.started), timeout=20_000)
    gate.open()
    wait_until_shown(qtbot, window)
    kept = window.model.results.heads.scores
    made = len(spares)
    loads = window.model.loads
    window.documents.open(tmp_path / "second.aesz", ask=False)
    qtbot.waitUntil(lambda: window.model.loads == loads + 1, timeout=20_000)
    wait_until_shown(qtbot, window)
    assert len(spares) == made  # none made: the results' own buffers are rewritten
    assert window.model.results.heads.scores is kept
