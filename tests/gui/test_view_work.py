"""The Sensitivity, A/B diff and Generation panels computing on their worker (``model.background``): "computing…"
while it runs, then numbers worked out here from the softmax's definition; of two quick edits only the last is
drawn; a window closed while their jobs run exits cleanly; what would not fit in the free memory is refused with
its size named.

Every job goes to the worker here (LIVE_COST 0), and is held at a gate the test opens, so what is asserted never
depends on how fast a thread runs."""
import math

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from explorer.core.presets import demo_session
from explorer.model import background
from explorer.model.background import COMPUTING, READY
from explorer.panels.ab_diff import ABDiffPanel
from explorer.panels.generation import GenerationPanel
from explorer.panels.sensitivity import SensitivityPanel
from tests.gui.app_processes import quit_while_computing
from tests.gui.panel_helpers import show_panel
from tests.gui.test_panel_work import Gate

@pytest.fixture
def on_worker(monkeypatch):
    monkeypatch.setattr(background, "LIVE_COST", 0)


EDITS = (2.0, -1.5)  # Q[0, 0] of the demo typed twice, each before the worker answered


def demo_qkv(q00=None):
    q, k, v = (np.array(demo_session().matrices[n], dtype=np.float64) for n in "QKV")
    if q00 is not None:
        q[0, 0] = q00
    return q, k, v


def softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def edit_twice(model, work):
    for value in EDITS:
        assert model.set_cell("Q", 0, 0, value)
        model.flush()
        QApplication.processEvents()
        assert work.state == COMPUTING


def counting(monkeypatch, cls, name):
    """Calls of ``cls.name`` recorded (with their first argument) and passed on."""
    calls, original = [], getattr(cls, name)

    def wrapped(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, wrapped)
    return calls


def says_computing_then_draws_the_last_edit(qtbot, monkeypatch, model, panel, gate, work):
    """While ``work``'s first job is held the panel says "computing…"; two edits follow, and once released the
    panel draws one result (the last edit's) and says it no longer."""
    qtbot.waitUntil(gate.entered.is_set, timeout=10_000)
    assert work.state == COMPUTING and "computing…" in panel.summary.text() and "computing…" in panel.caption.text()
    drawn = counting(monkeypatch, type(panel.views), "show_changes")
    edit_twice(model, work)
    gate.open()
    qtbot.waitUntil(lambda: work.state == READY, timeout=10_000)
    work.finish()  # anything still on its way arrives now
    QApplication.processEvents()
    assert len(drawn) == 1 and "computing…" not in panel.summary.text() + panel.caption.text()


def test_the_sensitivity_panel_says_computing_then_draws_only_the_last_of_two_edits(qtbot, on_worker, monkeypatch):
    from explorer.model import sensitivity_view
    gate = Gate(monkeypatch, sensitivity_view, "nudge_sensitivity")
    model, panel = show_panel(qtbot, SensitivityPanel, size=(900, 500))
    # the first job runs (held), on the demo as loaded
    says_computing_then_draws_the_last_edit(qtbot, monkeypatch, model, panel, gate, panel.view.work)
    # S[i → j] of the selection nudged by ε = 0.1: row i of A moves by ε·a(δ_j − a_j), O's row i by that times V
    i, j = model.selection.row, model.selection.key
    q, k, v = demo_qkv(EDITS[-1])
    a = softmax_rows(q @ k.T / math.sqrt(3))[i]
    expected = 0.1 * a * ((np.arange(4) == j) - a[j])
    weights = panel.views.heatmaps["weights"].image_array()
    np.testing.assert_allclose(weights[i], expected, atol=1e-12)
    assert expected.any() and not np.delete(weights, i, axis=0).any()
    np.testing.assert_allclose(panel.views.heatmaps["output"].image_array()[i], expected @ v, atol=1e-12)


def test_the_ab_diff_panel_says_computing_then_draws_only_the_last_of_two_edits(qtbot, on_worker, monkeypatch):
    from explorer.model import comparison
    gate = Gate(monkeypatch, comparison, "diff_stages")
    model, panel = show_panel(qtbot, ABDiffPanel, size=(900, 500))
    assert model.comparison.mark()
    # B − A of the state marked: held
    says_computing_then_draws_the_last_edit(qtbot, monkeypatch, model, panel, gate, model.comparison.work)
    q0, k, v = demo_qkv()
    q1, _, _ = demo_qkv(EDITS[-1])
    s0, s1 = q0 @ k.T / math.sqrt(3), q1 @ k.T / math.sqrt(3)
    np.testing.assert_allclose(panel.views.heatmaps["scores"].image_array(), s1 - s0, atol=1e-12)
    a0, a1 = softmax_rows(s0), softmax_rows(s1)
    np.testing.assert_allclose(panel.views.heatmaps["weights"].image_array(), a1 - a0, atol=1e-12)
    np.testing.assert_allclose(panel.views.heatmaps["output"].image_array(), (a1 - a0) @ v, atol=1e-12)
    assert "Largest changes" in panel.summary.text()


def causal_weights(q, k):
    s = q @ k.T / math.sqrt(q.shape[1])
    s[np.triu(np.ones(s.shape, dtype=bool), 1)] = -np.inf
    return softmax_rows(s)


def test_the_generation_panel_says_computing_then_draws_only_the_last_of_two_edits(qtbot, on_worker, monkeypatch):
    from explorer.model import decode_view
    gate = Gate(monkeypatch, decode_view, "run_pipeline")  # full causal attention (the demo's own mask is off)
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    qtbot.waitUntil(gate.entered.is_set, timeout=10_000)
    check = panel.view.check
    assert check.state == COMPUTING and "computing…" in panel.equivalence.text()
    assert "computing…" in panel.caption.text()
    assert panel.weights._values.shape == (1, 4)  # nothing full to draw yet: the new row alone
    seen = []
    original = GenerationPanel._draw_check
    monkeypatch.setattr(GenerationPanel, "_draw_check",
                        lambda self: (seen.append(check.result) if check.state == READY else None, original(self)))
    edit_twice(model, check)
    gate.open()
    qtbot.waitUntil(lambda: check.state == READY, timeout=10_000)
    check.finish()
    QApplication.processEvents()
    assert len({id(r) for r in seen}) == 1  # one result drawn: the last edit's
    q, k, v = demo_qkv(EDITS[-1])
    want = causal_weights(q, k)
    np.testing.assert_allclose(panel.weights._values, want, atol=1e-12)
    np.testing.assert_allclose(check.result.weights[0], want, atol=1e-12)
    assert check.result.difference <= 1e-12 and "✓" in panel.equivalence.text()
    assert "computing…" not in panel.caption.text()
    assert not panel.weights._masked[3].any() and panel.weights._masked[0, 1:].all()


def test_a_step_of_the_decode_changes_only_the_greyed_rows(qtbot):
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    for t in (2, 4, 1, 3):
        panel.go(t)
        model.flush()
        QApplication.processEvents()
        want = np.triu(np.ones((4, 4), dtype=bool), 1)
        want[t:] = True
        np.testing.assert_array_equal(panel.weights._masked, want)


def test_what_would_not_fit_in_the_free_memory_is_refused_naming_its_size(qtbot, monkeypatch):
    """The demo: 4 tokens, 1 head. 16 weights: a nudge holds 8 arrays of them (1 KiB), A and B − A 6 (0.8 KiB), full
    causal attention 4 (0.5 KiB); 125 bytes are free (× 0.8: 100 bytes)."""
    from explorer.model import comparison, decode_view, sensitivity_view
    for module in (comparison, decode_view, sensitivity_view):
        monkeypatch.setattr(module, "free_memory", lambda: 125)
    model, panel = show_panel(qtbot, SensitivityPanel, size=(900, 500))
    assert "needs 1.0 KiB" in panel.summary.text() and "only 0.1 KiB" in panel.summary.text()
    assert not panel.views.isVisible()
    done = model.comparison.mark()
    assert not done and "need 0.8 KiB" in done.reason and "1 head, 4 queries × 4 keys" in done.reason
    model, panel = show_panel(qtbot, GenerationPanel, size=(900, 800))
    text = panel.equivalence.text()
    assert "4 tokens with 1 head needs 0.5 KiB" in text and "only 0.1 KiB" in text
    assert panel.weights._values.shape == (1, 4)  # the decoded row alone


def test_quitting_while_the_three_panels_compute_exits_cleanly(tmp_path):
    quit_while_computing(tmp_path, ("sensitivity", "ab_diff", "generation"),
                         ("panels.sensitivity.view.work", "model.comparison.work", "panels.generation.view.check"),
                         floating=True, mark_a=True)
