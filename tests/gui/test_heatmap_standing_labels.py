"""Column labels that lying would not all fit stand up (CJK stacked top to bottom, Latin turned a quarter): every
one drawn, over its own cell, none overlapping another, none clipped by the axis or the widget; a label longer than
the band is cut with … and the cell's tooltip names it in full. Only cells narrower than a standing line fall back
to every k-th label lying. Checked on what the top axis drew (its ink boxes, and the pixels inside them)."""
import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF, QImage
from PySide6.QtWidgets import QToolTip

from explorer.widgets.heatmap import Heatmap

LATIN = ["The", "internationalization", "cat", "chased", "the", "red", "laser", "dot"]
CJK = ["猫", "追", "红色", "激光点", "我们", "天安门广场", "升旗仪式", "吧"]


def shown(qtbot, tokens, size, rows=3, bar=True):
    h = Heatmap(cmap="sequential", row_title="query", col_title="key")
    qtbot.addWidget(h)
    h.colorbar.setVisible(bar)
    h.resize(*size)
    h.show()
    qtbot.waitExposed(h)
    h.set_matrix(np.linspace(0, 1, rows * len(tokens)).reshape(rows, len(tokens)),
                 row_labels=[f"q{i}" for i in range(rows)], col_labels=tokens, levels=(0.0, 1.0))
    qtbot.wait(50)
    return h


def drawn_labels(h):
    """(text drawn, ink box in widget pixels, ink box in axis coordinates) of each label of the top axis, as painted."""
    image = h.grab()  # paints: the axis draws its picture now
    axis = h.plot.getAxis("top")
    to_widget = h.viewportTransform()
    out = [(text, to_widget.mapRect(axis.mapRectToScene(box)), box) for text, box in axis.drawn]
    return out, image.toImage()


def cell_spans(h, cols):
    centres = [h.cell_center(0, j).x() for j in range(cols)]
    half = (centres[1] - centres[0]) / 2
    return [(c - half, c + half) for c in centres], 2 * half


def has_ink(image: QImage, rect: QRectF) -> bool:
    """Some pixel inside ``rect`` is much darker than the background (text is drawn there)."""
    ratio = image.devicePixelRatio()
    r = QRectF(rect.left() * ratio, rect.top() * ratio, rect.width() * ratio, rect.height() * ratio).toAlignedRect()
    r = r.intersected(image.rect())
    return any(image.pixelColor(x, y).lightness() < 128
               for y in range(r.top(), r.bottom() + 1) for x in range(r.left(), r.right() + 1))


def check_every_label_readable(h, tokens):
    """Every column's label drawn over its cell (full, or cut with …), none overlapping, none clipped."""
    labels, image = drawn_labels(h)
    spans, cell = cell_spans(h, len(tokens))
    axis = h.plot.getAxis("top")
    clip = axis.boundingRect()  # the axis paints clipped to this
    widget = QRectF(h.rect())
    by_column = {}
    for text, box, local in labels:
        column = [j for j, (a, b) in enumerate(spans) if a <= box.center().x() < b]
        assert len(column) == 1, text
        assert box.left() >= spans[column[0]][0] - 0.5 and box.right() <= spans[column[0]][1] + 0.5, text  # its cell
        by_column.setdefault(column[0], []).append(text)
        assert clip.contains(local), (text, local, clip)
        assert widget.contains(box), (text, box, widget)
        assert has_ink(image, box), text
    assert sorted(by_column) == list(range(len(tokens)))  # every column labelled…
    for j, column_texts in by_column.items():
        assert len(column_texts) == 1, column_texts  # …once
        text = column_texts[0]
        assert text == tokens[j] or (text.endswith("…") and tokens[j].startswith(text[:-1]) and len(text) > 1), text
    boxes = [box for _, box, _ in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.intersects(b), (a, b)  # no two labels overlap
    return {tokens[j]: texts[0] for j, texts in by_column.items()}, labels, cell


def test_latin_labels_that_do_not_fit_lying_stand_up_turned(qtbot):
    h = shown(qtbot, LATIN, (360, 320))
    fm = QFontMetricsF(h.font())
    spans, cell = cell_spans(h, len(LATIN))
    widths = [fm.horizontalAdvance(t) for t in LATIN]
    assert cell < (widths[2] + widths[3]) / 2  # "cat" and "chased" lying side by side would overlap
    texts, labels, cell = check_every_label_readable(h, LATIN)
    for text, box, _ in labels:
        if len(text) >= 3:
            assert box.height() > 1.5 * box.width(), text  # turned: as tall as the word is long
            assert box.width() < fm.height(), text  # one line across
    assert texts["internationalization"] != "internationalization"  # longer than the band: cut with …


def test_cjk_labels_stand_stacked_top_to_bottom(qtbot):
    h = shown(qtbot, CJK, (360, 320))
    fm = QFontMetricsF(h.font())
    texts, labels, cell = check_every_label_readable(h, CJK)
    assert texts["激光点"] == "激光点" and texts["升旗仪式"] == "升旗仪式"
    one = fm.horizontalAdvance("国")
    for text, box, _ in labels:
        assert box.width() <= one + 1, text  # one character wide: stacked, not turned (a turned line is ~1.2× wider)
        if len(text) > 1:
            assert box.height() > (len(text) - 0.5) * one * 0.8, text  # the characters one under the other


def test_the_demo_at_the_smallest_window_labels_every_key(qtbot):
    # the Scores dock of a 1024×640 window, and the A/B diff's narrower maps (no colour bar, untitled)
    for size, bar in (((320, 230), True), ((180, 170), False)):
        h = shown(qtbot, ["猫", "追", "红色", "激光点"], size, rows=4, bar=bar)
        texts, _, _ = check_every_label_readable(h, ["猫", "追", "红色", "激光点"])
        assert texts == {t: t for t in ["猫", "追", "红色", "激光点"]}, size


def test_a_cut_label_is_named_in_full_in_the_cells_tooltip(qtbot):
    h = shown(qtbot, LATIN, (360, 320))
    h.tooltip_provider = lambda r, c: f"row {r}, column {c}"
    texts, _, _ = check_every_label_readable(h, LATIN)
    assert texts["internationalization"].endswith("…")
    for column, full in ((1, "internationalization\nrow 0, column 1"), (2, "row 0, column 2")):
        centre = h.cell_center(0, column)
        qtbot.mouseMove(h.viewport(), centre.toPoint())
        qtbot.waitUntil(lambda: h.cell_at(centre) == (0, column) and QToolTip.isVisible())
        assert QToolTip.text() == full


def test_cells_narrower_than_a_line_fall_back_to_every_kth_label_lying(qtbot):
    tokens = [f"tok{i}" for i in range(60)]
    h = shown(qtbot, tokens, (420, 300))
    fm = QFontMetricsF(h.font())
    spans, cell = cell_spans(h, len(tokens))
    assert cell < fm.height()  # a standing line would not fit in a cell
    labels, image = drawn_labels(h)
    assert 1 < len(labels) < len(tokens)
    widget = QRectF(h.rect())
    for text, box, _ in labels:
        assert text in tokens and box.width() > box.height(), text  # lying, whole
        assert widget.contains(box) and has_ink(image, box), text
    boxes = sorted((box for _, box, _ in labels), key=lambda b: b.left())
    for a, b in zip(boxes, boxes[1:]):
        assert a.right() < b.left()  # none overlap
    assert h.plot.getAxis("top").upright() is None


@pytest.mark.parametrize("tokens", [LATIN, CJK])
def test_labels_lie_again_when_the_cells_grow(qtbot, tokens):
    h = shown(qtbot, tokens, (360, 320))
    assert h.plot.getAxis("top").upright() is not None
    short = h.plot.getAxis("top").height()
    h.resize(1400, 320)
    qtbot.waitUntil(lambda: h.plot.getAxis("top").upright() is None)
    qtbot.waitUntil(lambda: h.plot.getAxis("top").height() < short)  # the band is given back to the matrix
    labels, _ = drawn_labels(h)
    assert sorted(text for text, _, _ in labels) == sorted(tokens)
    for text, box, _ in labels:
        assert box.width() >= box.height() or len(text) == 1, text  # lying
