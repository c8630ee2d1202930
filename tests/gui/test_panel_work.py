"""The Efficient attention and Transformer block panels computing on their worker (``model.background``): "computing…"
while it runs, then the numbers of the independent references of their own tests; of two quick edits only the
last is drawn; a window closed while a job runs exits cleanly.

Every job goes to the worker here (LIVE_COST 0), and is held at a gate the test opens, so what is asserted never
depends on how fast a thread runs."""
import math
import threading

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from explorer.core.block import BlockSettings, block_weights
from explorer.model import background
from explorer.model.background import COMPUTING, READY
from explorer.panels.block import BlockPanel
from explorer.panels.efficient import EfficientPanel
from tests.core import block_reference as ref
from tests.gui.app_processes import quit_while_computing
from tests.gui.panel_helpers import show_panel
from tests.gui.test_block_panel import TIGHT, random_session, shown
from tests.gui.test_efficient_panel import BAND, demo_reference, plain


class Gate:
    """Wraps a function of a view's job: every call waits until the test opens the gate."""

    def __init__(self, monkeypatch, module, name):
        self.opened, self.entered = threading.Event(), threading.Event()
        real = getattr(module, name)

        def held(*args, **kwargs):
            self.entered.set()
            assert self.opened.wait(20), "the test never opened the gate"
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, held)

    def open(self):
        self.opened.set()


@pytest.fixture
def on_worker(monkeypatch):
    monkeypatch.setattr(background, "LIVE_COST", 0)


def band_reference(q00):
    """The demo head with Q[0, 0] = ``q00``, by the chapter's formula: exact A, and the window's A′ and O′."""
    from explorer.core.presets import demo_session
    s = demo_session()
    q, k, v = (np.array(s.matrices[n], dtype=np.float64) for n in "QKV")
    q[0, 0] = q00
    scores = q @ k.T / math.sqrt(3)
    full = np.exp(scores - scores.max(axis=1, keepdims=True))
    cut = np.where(BAND, full, 0.0)
    return full / full.sum(axis=1, keepdims=True), cut / cut.sum(axis=1, keepdims=True), v


def test_the_efficient_panel_says_computing_then_draws_the_workers_result(qtbot, on_worker, monkeypatch):
    from explorer.model import efficient_view
    gate = Gate(monkeypatch, efficient_view, "approximate")
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 420))
    panel.set_mechanism("window", window=2)
    QApplication.processEvents()
    assert panel.view.work.state == COMPUTING
    assert "computing…" in plain(panel.readout)
    gate.open()
    qtbot.waitUntil(lambda: panel.view.work.state == READY, timeout=10_000)
    exact, approx, v = demo_reference(BAND)
    np.testing.assert_allclose(panel.approx.image_array(), approx, atol=1e-12)
    np.testing.assert_array_equal(panel.approx.masked_array(), ~BAND)
    frob = np.linalg.norm(approx @ v - exact @ v) / np.linalg.norm(exact @ v)
    assert panel.figures.frobenius == pytest.approx(frob, rel=1e-12)
    assert "computing…" not in plain(panel.readout) and f"‖O′ − O‖/‖O‖ = {frob:.3g}" in plain(panel.readout)


def test_of_two_quick_edits_only_the_last_is_drawn(qtbot, on_worker, monkeypatch):
    from explorer.model import efficient_view
    gate = Gate(monkeypatch, efficient_view, "approximate")
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 420))
    panel.set_mechanism("window", window=2)
    qtbot.waitUntil(gate.entered.is_set, timeout=10_000)  # the first job runs (held), on the demo as loaded
    drawn = []
    original = EfficientPanel._draw_tried
    monkeypatch.setattr(EfficientPanel, "_draw_tried", lambda self, tried: (drawn.append(tried), original(self, tried)))
    for value in (2.0, -1.5):  # two edits, each asking the worker again before anything came back
        assert model.set_cell("Q", 0, 0, value)
        model.flush()
        QApplication.processEvents()
        assert panel.view.work.state == COMPUTING
    gate.open()
    qtbot.waitUntil(lambda: panel.view.work.state == READY, timeout=10_000)
    panel.view.work.finish()  # anything still on its way arrives now
    QApplication.processEvents()
    assert len(drawn) == 1
    exact, approx, v = band_reference(-1.5)
    np.testing.assert_allclose(panel.approx.image_array(), approx, atol=1e-12)
    np.testing.assert_allclose(panel.exact.image_array(), exact, atol=1e-12)
    assert panel.figures.mass == pytest.approx(np.where(BAND, exact, 0.0).sum(axis=1).mean(), rel=1e-12)


def torch_stack(session, blocks, placement="pre"):
    """The first block's output and the mean ‖x_n‖ over n = 0 … blocks, by tests/core/block_reference.py."""
    w = block_weights(8, BlockSettings())
    m = session.matrices
    p = ref.torch_parameters(m, w)
    x, means, first = m["X"], [np.linalg.norm(m["X"], axis=1).mean()], None
    for n in range(blocks):
        x = ref.torch_encoder_layer(x, p, norm_first=placement == "pre", activation="gelu", n_heads=2, causal=True,
                                    eps=1e-5)
        first = x if n == 0 else first
        means.append(np.linalg.norm(x, axis=1).mean())
    return first, means


def test_the_block_panel_says_computing_then_draws_only_the_last_of_two_changes(qtbot, on_worker, monkeypatch):
    from explorer.model import block_view
    gate = Gate(monkeypatch, block_view, "session_block")
    session = random_session()
    model, panel = show_panel(qtbot, BlockPanel, session, size=(900, 700))
    qtbot.waitUntil(gate.entered.is_set, timeout=10_000)
    assert panel.view.work.state == COMPUTING and "computing…" in panel.note.text()
    panel.blocks.setValue(2)  # two quick changes while the first job is held
    panel.blocks.setValue(3)
    gate.open()
    qtbot.waitUntil(lambda: panel.view.work.state == READY, timeout=20_000)
    panel.view.work.finish()
    QApplication.processEvents()
    assert not panel.note.isVisible()
    first, means = torch_stack(session, 3)
    np.testing.assert_allclose(shown(panel, "out"), first, **TIGHT)
    xs, ys = panel.curve.getData()
    np.testing.assert_array_equal(xs, [0, 1, 2, 3])
    np.testing.assert_allclose(ys, means, **TIGHT)


def test_quitting_while_the_panels_compute_exits_cleanly(tmp_path):
    quit_while_computing(tmp_path, ("efficient", "block"), ("panels.efficient.view.work", "panels.block.view.work"),
                         projected=True)


def test_a_block_beyond_the_free_memory_is_refused_naming_its_size(qtbot, monkeypatch):
    """random_session(): 5 tokens, 2 heads — 2 · 2 · 5² · 8 = 800 bytes of scores and weights; 100 bytes are free."""
    from explorer.model import block_view
    monkeypatch.setattr(block_view, "free_memory", lambda: 125)  # × MEMORY_SHARE 0.8 = 100 bytes
    model, panel = show_panel(qtbot, BlockPanel, random_session(), size=(900, 700))
    assert panel.note.isVisible() and not panel.chain.isVisible() and not panel.make_ready.isVisible()
    assert "5 tokens with 2 heads needs 0.8 KiB" in panel.note.text() and "only 0.1 KiB of memory" in panel.note.text()


def test_a_result_that_comes_behind_a_tab_is_drawn_when_shown_for_the_session_then(qtbot, on_worker, monkeypatch):
    """The job of the demo (4 tokens) comes back after a token was added while the panel was hidden: nothing is
    drawn then (its rows would be of 4 tokens, the session has 5); shown again, the panel draws the 5 tokens'."""
    from explorer.model import efficient_view
    gate = Gate(monkeypatch, efficient_view, "approximate")
    model, panel = show_panel(qtbot, EfficientPanel, size=(1100, 420))
    qtbot.waitUntil(gate.entered.is_set, timeout=10_000)
    panel.hide()
    assert model.add_token()
    model.flush()
    gate.open()
    panel.view.work.finish()
    QApplication.processEvents()
    assert panel.approximation is None  # the 4-token result came while hidden: not drawn
    panel.show()
    qtbot.waitUntil(lambda: panel.view.work.state == READY and panel.approximation is not None, timeout=10_000)
    assert panel.approx.image_array().shape == (5, 5)
    rows = panel.approx.image_array().sum(axis=1)
    np.testing.assert_allclose(rows, np.ones(5), atol=1e-12)  # each row of A′ a distribution over its band
