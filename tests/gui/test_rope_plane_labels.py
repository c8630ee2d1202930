"""The RoPE panel's words where a person can read them: its plot titles wrap at sensible places (never "n" of
"m − n", nor a last word, alone on a line), and the rotation plane's labels (the angle, q's and k's names) sit
clear of the arrows and of each other, inside the plot — at the docked width of a 1024 × 640 window and wide."""
import numpy as np
import pytest
from PySide6.QtCore import QPointF

from explorer.core.presets import random_session
from tests.gui.panel_helpers import show_dock
from tests.gui.test_model_view_layout import sized_window  # noqa: F401  (a fixture: 1024 × 640 and 1600 × 1000)


def docked(window, qtbot):
    """The RoPE panel in its dock (384 px wide at 1024 × 640, 562 at 1600 × 1000) on a RoPE-ready session."""
    window.model.set_session(random_session(6, 4, seed=0))
    window.model.set_param("rope", True)
    panel = show_dock(qtbot, window, "rope")
    window.model.flush()
    qtbot.wait(30)
    return window.model, panel


def title_paragraphs(plot):
    """The title's lines as laid out on screen, by paragraph (a ``<br>`` starts one): (text, width in px) each,
    non-breaking spaces read as spaces."""
    document = plot.getPlotItem().titleLabel.item.document()
    paragraphs, block = [[]], document.begin()
    while block.isValid():
        layout, text = block.layout(), block.text()
        for k in range(layout.lineCount()):
            line = layout.lineAt(k)
            words = text[line.textStart():line.textStart() + line.textLength()]
            paragraphs[-1].append((words.replace("\u2028", "").replace("\u00a0", " ").strip(), line.naturalTextWidth()))
            if words.endswith("\u2028"):  # a line separator (a <br> inside one block)
                paragraphs.append([])
        paragraphs.append([])
        block = block.next()
    return [p for p in paragraphs if p]


def test_titles_wrap_between_words_into_even_lines(qtbot, sized_window):  # noqa: F811
    model, panel = docked(sized_window, qtbot)
    titles = {"plane": panel.plane, "spectrum": panel.spectrum, "score": panel.score_plot}
    wrapped = 0
    for name, plot in titles.items():
        paragraphs = title_paragraphs(plot)
        lines = [text for p in paragraphs for text, _ in p]
        wrapped += len(lines) > len(paragraphs)
        whole = plot.getPlotItem().titleLabel.item.document().toPlainText().replace("\u00a0", " ")
        for formula in ("m − n", "m·θ", "n·θ", "q_m·k_n"):  # a formula is one unit: never cut
            if formula in whole:
                assert any(formula in line for line in lines), (name, formula, lines)
        for paragraph in paragraphs:  # no line of a wrapped paragraph under half its longest: nothing left alone
            longest = max(width for _, width in paragraph)
            assert all(width >= longest / 2 for _, width in paragraph), (name, paragraph)
    if sized_window.width() == 1024:
        assert wrapped >= 2  # (the test looks at wrapped titles: at 384 px all three wrap)


def scene_rect(item):
    return item.mapRectToScene(item.boundingRect())


def crosses(rect, a, b, step=0.5):
    """Whether the segment a → b (scene points) runs through ``rect``, by walking along it."""
    length = float(np.hypot(b.x() - a.x(), b.y() - a.y()))
    for t in np.linspace(0.0, 1.0, max(int(length / step), 2)):
        if rect.contains(QPointF(a.x() + t * (b.x() - a.x()), a.y() + t * (b.y() - a.y()))):
            return True
    return False


def arrow_ends(panel, line):
    x, y = line.getOriginalDataset()
    view = panel.plane.getPlotItem().getViewBox()
    return view.mapViewToScene(QPointF(float(x[0]), float(y[0]))), view.mapViewToScene(QPointF(float(x[1]), float(y[1])))


@pytest.mark.parametrize("m", [1, 6, 44, 19])  # θ_0 = 1 rad: angles of 57.3°, −16.2°, 1.0° and 8.6° (19 rad mod 2π)
def test_the_planes_labels_sit_clear_of_the_arrows_and_of_each_other(qtbot, sized_window, m):  # noqa: F811
    model, panel = docked(sized_window, qtbot)
    model.replace_matrix("K", model.matrix("Q"))  # q and k the same vector: the angle is (m − n)·θ_0 alone
    model.set_selection(row=1, key=1)
    model.flush()
    panel.n_slider.setValue(0)
    panel.m_slider.setValue(m)
    qtbot.wait(30)
    angle = np.degrees(m * 1.0)  # pair 0 turns by θ_0 = base⁰ = 1 rad a position
    want = (angle + 180.0) % 360.0 - 180.0
    assert panel.angle_text.toPlainText() == f"{want:.1f}°"
    view = panel.plane.getPlotItem().getViewBox()
    inside = view.mapRectToScene(view.boundingRect()).adjusted(-1, -1, 1, 1)  # (to within a pixel)
    labels = {"angle": scene_rect(panel.angle_text), "q": scene_rect(panel.q_text), "k": scene_rect(panel.k_text)}
    arrows = {"q": arrow_ends(panel, panel.q_line), "k": arrow_ends(panel, panel.k_line)}
    for name, rect in labels.items():
        assert rect.width() > 10 and inside.contains(rect), (name, rect, inside)
        for arrow, (a, b) in arrows.items():
            assert not crosses(rect.adjusted(1, 1, -1, -1), a, b), (name, "over the arrow", arrow)
    names = list(labels)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not labels[a].intersects(labels[b]), (a, b, labels[a], labels[b])
    # the angle's label stays by its arc: within a few label widths of the origin the arrows start at
    origin = view.mapViewToScene(QPointF(0.0, 0.0))
    centre = labels["angle"].center()
    assert np.hypot(centre.x() - origin.x(), centre.y() - origin.y()) < 4 * labels["angle"].width()
