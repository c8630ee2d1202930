"""Extreme but finite inputs never put a NaN on screen; a fully masked row is shown as such.

Each case loads a session at the edge of what the app accepts — every cell ±1e6, the temperature at
0.05 and at 20, L = 1, d = 1, a custom scale of 1000, RoPE at its largest offset, projected mode with
X and W at ±1e6 — and then looks at everything the window shows: the numbers behind every heatmap,
their colour levels and labels, every label, button, box and table cell, every text item of every
pyqtgraph scene, and every string painted by the app's own paint code (``QPainter.drawText`` is
recorded while each tab of the window is grabbed). No "nan" or "inf" may appear, and every array
the panels draw from must be finite.

The app cannot produce a fully masked row: the only mask is the causal one, and there every query
sees at least itself. So those cases give the model a result holding one (``run_pipeline`` wrapped to
add a mask, as the core's ``mask=`` argument allows) and check that every panel shows it as masked,
with a message, and still shows no NaN.
"""
import re
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (QAbstractButton, QApplication, QComboBox, QGraphicsSimpleTextItem,
                               QGraphicsTextItem, QGraphicsView, QLabel, QLineEdit)

import explorer.model.coordinator as coordinator
from explorer.core.heads import multi_head_attention
from explorer.core.pipeline import run_pipeline
from explorer.core.presets import demo_session, multi_head_session
from explorer.core.session import MAX_ABS_VALUE, ROPE_OFFSET_MAX, Session, Settings

BAD_TEXT = re.compile(r"(?i)(?<![a-z])(nan|inf|infinity)(?![a-z])")
TAB_GROUPS = (("controls", "lesson", "sqrt_d"), ("readout", "lines", "heads", "split_merge", "positions"))
BIG = MAX_ABS_VALUE


def signs(shape, seed):
    """±1e6 in a seeded pattern (never all equal, so softmax has a winner and a loser in each row)."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random(shape) < 0.5, -BIG, BIG)


def session(L, d, settings, seed=0, title="extreme"):
    mats = {n: signs((L, d), seed + i) for i, n in enumerate("QKV")}
    return Session(tuple(f"t{i}" for i in range(L)), mats, settings, title=title)


def projected(settings, value):
    base = multi_head_session()
    mats = {n: np.where(np.asarray(a) >= 0, value, -value) for n, a in base.matrices.items()}
    return Session(base.tokens, mats, replace(base.settings, **settings), title="projected extreme")


CASES = {
    "cells ±1e6, T = 0.05, causal": session(4, 3, Settings(temperature=0.05, causal=True)),
    "cells ±1e6, T = 20, three heads": session(4, 3, Settings(temperature=20.0, heads=3), seed=3),
    "L = 1, d = 1, 1e6, T = 0.05, causal": session(1, 1, Settings(temperature=0.05, causal=True)),
    "L = 1, d = 1, -1e6, T = 20": Session(("x",), {n: [[-BIG]] for n in "QKV"}, Settings(temperature=20.0)),
    "d = 1, L = 6, no scale": session(6, 1, Settings(scale_mode="none", temperature=0.05), seed=5),
    "custom scale 1000, T = 0.05": session(5, 2, Settings(scale_mode="custom", scale=1000.0, temperature=0.05)),
    "mixed 1e6 and 1e-6": Session(("a", "b", "c"), {
        "Q": [[1e6, 1e-6], [-1e-6, -1e6], [0.0, 1e6]], "K": [[1e-6, 1e6], [1e6, -1e6], [-1e6, 0.0]],
        "V": [[1e6, -1e6], [1e-6, 0.0], [-1e6, 1e6]]}, Settings(temperature=0.05)),
    "RoPE, largest offset, base 1e6": session(4, 4, Settings(rope=True, rope_offset=ROPE_OFFSET_MAX,
                                                             rope_base=1e6, heads=2, temperature=0.05)),
    "RoPE interleaved, base 100, T = 20": session(3, 2, Settings(rope=True, rope_style="interleaved",
                                                                 rope_base=100.0, temperature=20.0)),
    "projected ±1e6, positions, T = 0.05": projected({"positions": "sinusoidal", "temperature": 0.05}, BIG),
    "projected ±1e6, causal, T = 20": projected({"causal": True, "temperature": 20.0}, BIG),
}


def masked_pipeline(rows):
    """run_pipeline, then the heads again with a mask that leaves ``rows`` no key at all (in place of
    the model's ``recompute``)."""
    def run(matrices, settings, previous=None, order=None, cancelled=None):
        r = run_pipeline(matrices, settings)
        mask = np.ones((r.q.shape[0], r.k.shape[0]), dtype=bool)
        mask[list(rows)] = False
        heads = multi_head_attention(r.q, r.k, r.v, settings.heads, scale=r.scale, mask=mask,
                                     causal=settings.causal, temperature=settings.temperature,
                                     wo=matrices.get("Wo") if settings.source == "projected" else None)
        return replace(r, heads=heads)
    return run


# ----- looking at everything ------------------------------------------------------------------
def painted_strings(window, monkeypatch):
    """Every string painted from Python (cell values, axis labels, lines, bars…) while each tab shows."""
    seen = []
    original = QPainter.drawText

    def record(self, *args):
        seen.extend(a for a in args if isinstance(a, str))
        return original(self, *args)

    monkeypatch.setattr(QPainter, "drawText", record)
    try:
        for i in range(max(len(g) for g in TAB_GROUPS)):
            for group in TAB_GROUPS:
                window.docks[group[i % len(group)]].raise_()
            QApplication.processEvents()
            window.grab()
    finally:
        monkeypatch.setattr(QPainter, "drawText", original)
    return seen


def widget_strings(window):
    texts = []
    for label in window.findChildren(QLabel):
        texts += [label.text(), label.toolTip()]
    for button in window.findChildren(QAbstractButton):
        texts += [button.text(), button.toolTip()]
    for line in window.findChildren(QLineEdit):  # spin boxes' and sliders' read-outs too
        texts.append(line.text())
    for combo in window.findChildren(QComboBox):
        texts += [combo.itemText(i) for i in range(combo.count())]
    for table in window.panels["editor"].tables.values():
        texts += [str(table.data(table.index(r, c))) for r in range(table.rowCount())
                  for c in range(table.columnCount())]
        texts += [str(table.headerData(r, o)) for o in (1, 2) for r in range(table.rowCount())]
    for view in window.findChildren(QGraphicsView):
        if view.scene() is None:
            continue
        for item in view.scene().items():
            if isinstance(item, QGraphicsTextItem):
                texts.append(item.toPlainText())
            elif isinstance(item, QGraphicsSimpleTextItem):
                texts.append(item.text())
    texts.append(window.statusBar().currentMessage())
    return [t for t in texts if t]


def heatmaps(window):
    from explorer.widgets.heatmap import Heatmap
    return window.findChildren(Heatmap)


def show_everything(window, qtbot):
    window.model.flush()
    for panel in window.panels.values():
        panel.refresh()
    QApplication.processEvents()


def assert_no_nan_on_screen(window, qtbot, monkeypatch):
    show_everything(window, qtbot)
    r = window.model.results
    for name in ("scores", "weights", "head_outputs", "concat", "output"):
        assert np.isfinite(getattr(r.heads, name)).all(), name
    maps = heatmaps(window)
    assert len(maps) >= 3
    for h in maps:
        if h.image_array().size:
            assert np.isfinite(h.image_array()).all()
            assert np.isfinite(h.levels()).all(), h.levels()
        for side in ("left", "top", "right"):
            for _, text in h.ticks(side):
                assert not BAD_TEXT.search(text), (side, text)
    texts = widget_strings(window) + painted_strings(window, monkeypatch)
    assert texts
    bad = sorted({t for t in texts if BAD_TEXT.search(t)})
    assert bad == [], bad[:20]


@pytest.mark.parametrize("case", sorted(CASES))
def test_extreme_values_put_no_nan_on_screen(qtbot, window, monkeypatch, case):
    window.model.load(CASES[case])
    assert_no_nan_on_screen(window, qtbot, monkeypatch)
    w = window.model.results.heads.weights
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)  # every row still a budget that sums to 1


def test_dragging_the_temperature_to_both_ends_with_extreme_cells(qtbot, window, monkeypatch):
    window.model.load(CASES["cells ±1e6, T = 0.05, causal"])
    slider = window.panels["controls"].temperature.slider
    for position in (0, slider.maximum()):
        slider.setSliderDown(True)
        slider.setValue(position)
        slider.setSliderDown(False)
        window.model.flush()
        assert window.model.settings.temperature in (0.05, 20.0)
        assert_no_nan_on_screen(window, qtbot, monkeypatch)


@pytest.mark.parametrize("case, rows", [
    ("demo", (2,)),
    ("cells ±1e6, T = 0.05, causal", (0, 3)),
    ("L = 1, d = 1, 1e6, T = 0.05, causal", (0,)),
    ("projected ±1e6, causal, T = 20", (1,)),
])
def test_a_fully_masked_row_is_shown_as_such_with_a_message(qtbot, window, monkeypatch, case, rows):
    monkeypatch.setattr(coordinator, "recompute", masked_pipeline(rows))
    window.model.load(demo_session() if case == "demo" else CASES[case])
    m = window.model
    m.set_selection(row=rows[0])
    show_everything(window, qtbot)
    heads = m.results.heads
    assert [i for i, masked in enumerate(heads.masked_rows) if masked] == list(rows)
    np.testing.assert_array_equal(heads.weights[:, list(rows)], 0.0)  # no key: zero weights, zero output
    np.testing.assert_array_equal(heads.output[list(rows)], 0.0)
    names = [m.tokens[i] for i in rows]

    weights = window.panels["weights"]
    assert "fully masked" in weights.caption.text() and all(n in weights.caption.text() for n in names)
    notes = dict(weights.heatmap.ticks("right"))
    left = dict(weights.heatmap.ticks("left"))
    for i in rows:
        if i in notes:
            assert notes[i] == "masked"
        if i in left:
            assert left[i].startswith("⚠")  # flagged in red
    assert weights.heatmap.masked_array()[list(rows)].all()  # drawn as masked (hatched grey)
    for name in ("scores", "output"):
        flagged = dict(window.panels[name].heatmap.ticks("left"))
        assert all(flagged[i].startswith("⚠") for i in rows if i in flagged), name
    readout = window.panels["readout"]
    assert "fully masked" in readout.check_label.text()
    lesson = window.panels["lesson"]
    assert "fully masked" in lesson.excluded_note.text()
    heads_panel = window.panels["heads"]
    assert any("fully masked" in label.text() for label in heads_panel.findChildren(QLabel)), \
        "the heads panel does not say which row is fully masked"
    assert_no_nan_on_screen(window, qtbot, monkeypatch)


# ----- found by the soak (tests/gui/test_reliability_soak.py) ------------------------------------
# regression (was a bug): with the cell slider on an X/W cell, Reset (or undo) back to a session without
# projections made EditorPanel._sync_slider raise KeyError on that render and on every later one
def test_reset_from_projected_mode_with_a_w_cell_selected_keeps_rendering(qtbot, window):
    m, editor = window.model, window.panels["editor"]
    m.set_param("source", "projected")
    m.flush()
    view = editor.views["Wq"]
    view.setCurrentIndex(view.model().index(0, 1))  # the cell slider now drags W_q[0, 1]
    editor.actions["add_token"].trigger()           # Q's table resets while its page is hidden
    m.flush()
    window.panels["controls"].heads.setFocus()      # the last click was somewhere else
    editor.actions["reset"].trigger()               # back to the demo: direct mode, no X or W
    m.flush()  # the editor renders inside the model's signal: pytest-qt fails the test on any exception
    assert editor._cell is None or m.has(editor._cell[0])
    assert m.set_cell("Q", 0, 0, 3.0)
    m.flush()  # and keeps rendering afterwards
    assert editor.tables["Q"].value(0, 0) == 3.0
