"""Headings follow the settings at once while a large session's results are recomputed on the worker, and
axis titles set while a view is covered (disabled) keep the text colour."""
import pytest
from PySide6.QtGui import QPalette

from explorer.core.presets import random_session, translation_session
from explorer.model import AttentionModel, coordinator
from explorer.panels.heads import HeadsPanel
from explorer.panels.output import OutputPanel
from explorer.panels.scores import ScoresPanel
from explorer.panels.weights import WeightsPanel
from explorer.widgets.heatmap import Heatmap

PANELS = (ScoresPanel, WeightsPanel, OutputPanel, HeadsPanel)


@pytest.fixture
def on_the_worker(qtbot, monkeypatch, request):
    """Every whole recompute goes to the worker, as a 2048-token session's does (~0.6 s there); the panels
    are the test module's PANELS."""
    monkeypatch.setattr(coordinator, "BACKGROUND_COST", -1)
    model = AttentionModel(random_session(6, 8, seed=3))  # d = 8; built with its results at once
    model.set_revealed(3)
    model.flush()
    panels = []
    for cls in request.module.PANELS:
        panel = cls(model)
        qtbot.addWidget(panel)
        panel.resize(600, getattr(request.module, "PANEL_HEIGHT", 400))
        panel.show()
        panels.append(panel)
    qtbot.waitExposed(panels[-1])
    yield model, panels
    model.shutdown()


def captions(panels):
    return [p.caption.text() for p in panels]


def test_a_new_head_count_is_in_every_heading_before_its_results(qtbot, on_the_worker):
    model, panels = on_the_worker
    assert "1/√8" in captions(panels)[0] and "head 1/" not in captions(panels)[0]
    seen = []
    # connected after the panels: runs when they have had their say, while the worker computes
    model.state_changed.connect(lambda flags: seen.append((model.pending, model.results.n_heads, captions(panels),
                                                           panels[3].heads_combo.currentData())))
    model.set_param("heads", 4)  # d_h = 8 / 4 = 2
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    pending, drawn_heads, (scores, weights, output, heads), combo = seen[0]
    assert pending and drawn_heads == 1  # the results are still the old ones …
    assert combo == 4
    assert "1/√2" in scores and "head 1/4" in scores  # … the headings are the new settings'
    assert "head 1/4" in weights and "4 heads side by side" in output
    assert "H = 4 slices of d_h = 2" in heads and "1/√2 = 0.7071" in heads
    model.flush()
    qtbot.waitUntil(lambda: model.results.n_heads == 4 and len(panels[3].cells) == 4, timeout=5000)
    assert captions(panels) == seen[0][2]  # the results bring the same headings


def test_a_heading_keeps_what_the_results_added_while_they_recompute(qtbot, monkeypatch):
    """Cross-attention: ② adds "○ marks each query's strongest key" from its results; it stays while a
    new head count is computed, beside the new "head 1/2"."""
    monkeypatch.setattr(coordinator, "BACKGROUND_COST", -1)
    model = AttentionModel(translation_session())  # 7 queries, 4 keys, d = 4
    model.set_revealed(3)
    model.flush()
    panel = WeightsPanel(model)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    assert "strongest key" in panel.caption.text() and "head 1/" not in panel.caption.text()
    seen = []
    model.state_changed.connect(lambda flags: seen.append((model.pending, panel.caption.text())))
    model.set_param("heads", 2)
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    pending, caption = seen[0]
    assert pending and "head 1/2" in caption and "strongest key" in caption
    model.shutdown()


def test_axis_titles_set_while_covered_are_not_greyed(qtbot):
    heatmap = Heatmap(row_title="query", col_title="key")
    qtbot.addWidget(heatmap)
    heatmap.setEnabled(False)  # as under a loading cover
    heatmap.set_titles("query tokens", "key tokens")
    ink = heatmap.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText).name()
    greyed = heatmap.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText).name()
    assert ink != greyed
    for side in ("left", "top"):
        assert heatmap.plot.getAxis(side).labelStyle["color"] == ink
