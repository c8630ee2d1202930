"""The generic heatmap widget: data in, pixels and signals out (offscreen, pytest-qt)."""
import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QApplication, QToolTip

from explorer.widgets.cell_text import format_value
from explorer.widgets.heatmap import MASK_FILL, Heatmap

TOKENS = ["猫", "追", "红色", "激光点"]


def make(qtbot, cmap="sequential", size=(520, 460), **kw):
    h = Heatmap(cmap=cmap, colorbar_label="weight", row_title="query", col_title="key", **kw)
    qtbot.addWidget(h)
    h.resize(*size)
    h.show()
    qtbot.waitExposed(h)
    return h


def grab_rgb(h) -> tuple[np.ndarray, float]:
    """The widget as an (H, W, 3) uint8 array, and its device pixel ratio."""
    img = h.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, hgt, bpl = img.width(), img.height(), img.bytesPerLine()
    arr = np.frombuffer(img.constBits(), np.uint8, count=hgt * bpl).reshape(hgt, bpl)[:, : w * 3]
    return arr.reshape(hgt, w, 3).copy(), img.devicePixelRatio()


def cell_colour(h, rgb, dpr, row, col, frac=0.3) -> np.ndarray:
    """Median colour of a patch around the centre of a cell (robust to the printed value)."""
    c = h.cell_center(row, col)
    half = (h.cell_center(row, col + 1).x() - c.x()) if col + 1 < h.image_array().shape[1] else None
    half = half if half is not None else (c.x() - h.cell_center(row, col - 1).x()) if col else 20
    r = max(1, int(abs(half) * frac * dpr))
    x, y = int(round(c.x() * dpr)), int(round(c.y() * dpr))
    patch = rgb[y - r : y + r + 1, x - r : x + r + 1].reshape(-1, 3)
    return np.median(patch, axis=0)


def lower_triangle_demo(n=4):
    values = np.tril(np.full((n, n), 0.5))
    values[2, 1] = 0.0
    masked = np.triu(np.ones((n, n), bool), 1)
    return values, masked


def test_image_array_round_trip(qtbot):
    h = make(qtbot)
    values = np.arange(21, dtype=float).reshape(3, 7) / 20
    mask = np.zeros((3, 7), bool)
    mask[0, 6] = True
    h.set_matrix(values, row_labels=TOKENS[:3], col_labels=list("abcdefg"), levels=(0, 1), masked=mask)
    np.testing.assert_array_equal(h.image_array(), values)
    np.testing.assert_array_equal(h.masked_array(), mask)
    np.testing.assert_array_equal(h.image_item.image, h.image_array())
    assert h.levels() == (0.0, 1.0)
    lut = h.image_item.lut
    assert lut.dtype == np.uint8 and lut.shape[0] == 256
    # sequential: 0 is light, 1 is dark
    assert lut[0].astype(int).sum() > 600 and lut[-1].astype(int).sum() < 200


def test_non_finite_values_are_clipped_to_levels(qtbot):
    h = make(qtbot, cmap="diverging")
    values = np.array([[1.0, -np.inf], [np.nan, np.inf]])
    h.set_matrix(values, row_labels=["a", "b"], col_labels=["c", "d"], levels=(-2, 2),
                 masked=np.array([[False, True], [False, False]]))
    np.testing.assert_array_equal(h.image_array(), [[1.0, -2.0], [-2.0, 2.0]])


@pytest.mark.parametrize("cmap", ["sequential", "diverging"])
def test_masked_cells_look_different_from_zero(qtbot, cmap):
    h = make(qtbot, cmap=cmap)
    values, masked = lower_triangle_demo()
    h.set_matrix(values, row_labels=TOKENS, col_labels=TOKENS, levels=(-1, 1) if cmap == "diverging" else (0, 1),
                 masked=masked, row_notes=["Σ=1.000"] * 4)
    rgb, dpr = grab_rgb(h)
    zero = cell_colour(h, rgb, dpr, 2, 1)
    hidden = cell_colour(h, rgb, dpr, 0, 3)
    lut = h.image_item.lut.astype(float)
    zero_index = 0 if cmap == "sequential" else 128
    assert np.abs(zero - lut[zero_index]).max() <= 3, (zero, lut[zero_index])
    assert np.abs(hidden - zero).sum() > 150, (hidden, zero)
    assert np.abs(hidden - [MASK_FILL.red(), MASK_FILL.green(), MASK_FILL.blue()]).max() <= 3
    assert np.min(np.abs(lut - hidden).sum(axis=1)) > 40, "masked grey must not be a colour of the map"
    # the hatching: the masked patch has darker lines in it, the zero patch is flat
    c = h.cell_center(0, 3)
    x, y = int(c.x() * dpr), int((c.y() - 0.35 * (h.cell_center(1, 3).y() - c.y())) * dpr)
    strip = rgb[y - 2 : y + 3, x - 20 : x + 20].astype(int).sum(axis=2)
    assert strip.max() - strip.min() > 100


def test_hover_emits_cell_and_leaves_with_minus_one(qtbot):
    h = make(qtbot)
    values, masked = lower_triangle_demo()
    h.set_matrix(values, row_labels=TOKENS, col_labels=TOKENS, levels=(0, 1), masked=masked)
    seen = []
    h.cellHovered.connect(lambda r, c: seen.append((r, c)))
    with qtbot.waitSignal(h.cellHovered, timeout=2000):
        qtbot.mouseMove(h.viewport(), h.cell_center(2, 1).toPoint())
    assert seen[-1] == (2, 1)
    with qtbot.waitSignal(h.cellHovered, timeout=2000):
        qtbot.mouseMove(h.viewport(), h.cell_center(0, 3).toPoint())
    assert seen[-1] == (0, 3)
    with qtbot.waitSignal(h.cellHovered, timeout=2000):
        qtbot.mouseMove(h.viewport(), QPoint(2, 2))  # outside the matrix
    assert seen[-1] == (-1, -1)
    qtbot.mouseMove(h.viewport(), h.cell_center(1, 1).toPoint())
    qtbot.waitUntil(lambda: seen[-1] == (1, 1), timeout=2000)
    QApplication.sendEvent(h, QEvent(QEvent.Type.Leave))  # pointer leaves the widget
    assert seen[-1] == (-1, -1)
    assert h.cell_at(h.cell_center(3, 2)) == (3, 2)


def test_click_emits_cell(qtbot):
    h = make(qtbot)
    h.set_matrix(np.eye(3, 5), row_labels=TOKENS[:3], col_labels=list("abcde"), levels=(0, 1))
    with qtbot.waitSignal(h.cellClicked, timeout=2000) as blocker:
        qtbot.mouseClick(h.viewport(), Qt.MouseButton.LeftButton, pos=h.cell_center(1, 4).toPoint())
    assert blocker.args == [1, 4]


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the offscreen platform, on QToolTip
def test_tooltip_provider_is_asked_for_the_hovered_cell(qtbot):
    h = make(qtbot, cmap="diverging")
    h.set_matrix(np.zeros((4, 4)), row_labels=TOKENS, col_labels=TOKENS, levels=(-1, 1))
    calls = []

    def provider(r, c):
        calls.append((r, c))
        return f"q_{r}·k_{c} = 0"

    h.tooltip_provider = provider
    qtbot.mouseMove(h.viewport(), QPoint(2, 2))  # the cursor may still sit where an earlier test left it
    with qtbot.waitSignal(h.cellHovered, timeout=2000):
        qtbot.mouseMove(h.viewport(), h.cell_center(2, 0).toPoint())
    assert calls == [(2, 0)]
    qtbot.waitUntil(lambda: QToolTip.text() == "q_2·k_0 = 0", timeout=2000)
    with qtbot.waitSignal(h.cellHovered, timeout=2000):
        qtbot.mouseMove(h.viewport(), QPoint(1, 1))
    assert calls == [(2, 0)]  # not asked outside the matrix
    QToolTip.hideText()


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_a_tooltip_naming_a_token_like_a_tag_shows_it_as_written(qtbot):
    """A real model's "<s>" before the tooltip's first line break made Qt read it as rich text: the token
    vanished, the rest was struck through and the lines ran together."""
    h = make(qtbot)
    h.set_matrix(np.zeros((2, 2)), row_labels=["<s>", "the"], col_labels=["<s>", "the"], levels=(0, 1))
    said = "score[<s> → the]\nq · k = 0 & so on"
    h.tooltip_provider = lambda r, c: said
    qtbot.mouseMove(h.viewport(), QPoint(2, 2))
    with qtbot.waitSignal(h.cellHovered, timeout=2000):
        qtbot.mouseMove(h.viewport(), h.cell_center(0, 1).toPoint())
    qtbot.waitUntil(lambda: QToolTip.isVisible() and "score" in QToolTip.text(), timeout=2000)
    document = QTextDocument()
    document.setHtml(QToolTip.text())
    assert document.toPlainText() == said
    QToolTip.hideText()


def test_labels_notes_and_flags_on_the_axes(qtbot):
    h = make(qtbot)
    values, masked = lower_triangle_demo()
    masked[3] = True
    h.set_matrix(values, row_labels=TOKENS, col_labels=TOKENS, levels=(0, 1), masked=masked,
                 row_notes=[f"Σ={s:.3f}" for s in (1, 1, 1, 0)], flagged_rows=[False, False, False, True])
    assert h.ticks("top") == list(enumerate(TOKENS))
    assert h.ticks("left") == [(0, "猫"), (1, "追"), (2, "红色"), (3, "⚠ 激光点")]
    assert h.ticks("right") == [(0, "Σ=1.000"), (1, "Σ=1.000"), (2, "Σ=1.000"), (3, "Σ=0.000")]
    top = h.plot.getAxis("top")
    assert top.labelText == "key" and h.plot.getAxis("left").labelText == "query"


def test_many_labels_show_a_subset(qtbot):
    h = make(qtbot)
    n = 200
    labels = [f"token{i}" for i in range(n)]
    h.set_matrix(np.random.default_rng(0).random((n, n)), row_labels=labels, col_labels=labels, levels=(0, 1))
    left, top = h.ticks("left"), h.ticks("top")
    assert 1 < len(left) < n and 1 < len(top) < n
    assert left[0] == (0, "token0")
    step = left[1][0] - left[0][0]
    assert all(b[0] - a[0] == step for a, b in zip(left, left[1:]))


def test_cell_texts_contrast_with_the_cell(qtbot):
    h = make(qtbot, size=(600, 500))
    h.set_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]), row_labels=["a", "b"], col_labels=["c", "d"], levels=(0, 1))
    rgb, dpr = grab_rgb(h)

    def patch(r, c):
        p = h.cell_center(r, c)
        x, y = int(p.x() * dpr), int(p.y() * dpr)
        return rgb[y - 6 : y + 7, x - 25 : x + 26].astype(int).sum(axis=2)

    light, dark = patch(0, 0), patch(0, 1)
    assert light.min() < 200 < light.max()  # dark text on a light cell
    assert dark.max() > 500 and dark.min() < 200  # white text on a dark cell


def test_no_texts_when_cells_are_small(qtbot):
    h = make(qtbot, size=(300, 300))
    h.set_matrix(np.full((40, 40), 0.0), row_labels=[str(i) for i in range(40)],
                 col_labels=[str(i) for i in range(40)], levels=(0, 1))
    rgb, dpr = grab_rgb(h)
    p = h.cell_center(20, 20)
    x, y = int(p.x() * dpr), int(p.y() * dpr)
    patch = rgb[y - 2 : y + 3, x - 2 : x + 3].astype(int)
    assert np.ptp(patch.reshape(-1, patch.shape[-1]), axis=0).max() <= 2  # flat colour, no "0.00" crammed into 6-pixel cells


def test_highlight_and_selected_row_draw_outlines(qtbot):
    h = make(qtbot)
    values, masked = lower_triangle_demo()
    h.set_matrix(values, row_labels=TOKENS, col_labels=TOKENS, levels=(0, 1), masked=masked)
    before, dpr = grab_rgb(h)
    h.set_highlight([(3, 0)])
    h.set_selected_row(1)
    after, _ = grab_rgb(h)
    changed = np.argwhere(np.any(before != after, axis=2)) / dpr
    assert len(changed)
    c30, c11 = h.cell_center(3, 0), h.cell_center(1, 1)
    half_w = (h.cell_center(0, 1).x() - h.cell_center(0, 0).x()) / 2
    half_h = (h.cell_center(1, 0).y() - h.cell_center(0, 0).y()) / 2
    near_highlight = (np.abs(changed[:, 1] - c30.x()) <= half_w + 3) & (np.abs(changed[:, 0] - c30.y()) <= half_h + 3)
    near_row = np.abs(changed[:, 0] - c11.y()) <= half_h + 3
    assert near_highlight.any() and near_row.any()
    assert np.all(near_highlight | near_row)
    h.set_highlight([])
    h.set_selected_row(None)
    cleared, _ = grab_rgb(h)
    np.testing.assert_array_equal(cleared, before)


def test_big_matrix_updates_without_recreating_items(qtbot):
    h = make(qtbot, cmap="diverging")
    n = 2048
    labels = [str(i) for i in range(n)]
    rng = np.random.default_rng(1)
    mask = np.triu(np.ones((n, n), bool), 1)
    h.set_matrix(rng.normal(size=(n, n)), row_labels=labels, col_labels=labels, levels=(-3, 3), masked=mask)
    image, items = h.image_item, list(h.plot.getViewBox().addedItems)
    h.grab()
    values = rng.normal(size=(n, n))
    h.set_matrix(values, row_labels=labels, col_labels=labels, levels=(-4, 4), masked=mask)
    h.grab()
    assert h.image_item is image and list(h.plot.getViewBox().addedItems) == items
    np.testing.assert_array_equal(h.image_array(), values)
    assert h.levels() == (-4.0, 4.0) and h.colorbar.levels() == (-4.0, 4.0)
    assert tuple(h.image_item.getLevels()) == (-4.0, 4.0)


def test_equal_levels_do_not_crash(qtbot):
    h = make(qtbot, cmap="diverging")
    h.set_matrix(np.zeros((4, 4)), row_labels=TOKENS, col_labels=TOKENS, levels=(0.0, 0.0))
    lo, hi = h.levels()
    assert lo < 0 < hi
    rgb, dpr = grab_rgb(h)
    centre = h.image_item.lut[128].astype(float)
    assert np.abs(cell_colour(h, rgb, dpr, 1, 1) - centre).max() <= 3  # zero drawn as the neutral centre


def test_1x1_and_shape_changes(qtbot):
    h = make(qtbot)
    h.set_matrix([[0.25]], row_labels=["猫"], col_labels=["猫"], levels=(0, 1))
    h.grab()
    h.set_matrix(np.ones((3, 7)), row_labels=list("abc"), col_labels=list("abcdefg"), levels=(0, 1))
    h.grab()
    assert h.cell_at(h.cell_center(2, 6)) == (2, 6)


def test_bad_input_is_refused(qtbot):
    h = make(qtbot)
    with pytest.raises(ValueError):
        h.set_matrix(np.zeros(4), row_labels=TOKENS, col_labels=["a"], levels=(0, 1))
    with pytest.raises(ValueError):
        h.set_matrix(np.zeros((4, 4)), row_labels=TOKENS[:3], col_labels=TOKENS, levels=(0, 1))
    with pytest.raises(ValueError):
        h.set_matrix(np.zeros((4, 4)), row_labels=TOKENS, col_labels=TOKENS, levels=(1, 0))
    with pytest.raises(ValueError):
        h.set_matrix(np.zeros((4, 4)), row_labels=TOKENS, col_labels=TOKENS, levels=(0, 1),
                     masked=np.zeros((3, 4), bool))
    with pytest.raises(ValueError):
        Heatmap(cmap="rainbow")


def test_format_value():
    assert format_value(0.5) == "0.50"
    assert format_value(-0.001) == "−0.001"  # significant digits when the whole matrix is small
    assert format_value(-0.00390625, magnitude=0.0195) == "−0.0039"  # ALiBi's bias at distance 1, 8 heads
    assert format_value(3.1e-5, magnitude=0.05) == "3.1e−5" and format_value(0.0, magnitude=0.05) == "0"
    assert format_value(-0.001, magnitude=0.5) == "0.00"  # beside a value that reads in two decimals
    assert format_value(-1.234) == "−1.23"
    assert format_value(1234.4) == "1234"
    assert format_value(1.5e7) == "1.5e7"
    assert format_value(61.017, magnitude=700) == "61"  # one format for the whole matrix
    assert format_value(-0.2, magnitude=700) == "0"


def test_a_matrix_larger_than_the_screen_is_sampled_where_its_cells_are(qtbot):
    h = make(qtbot, size=(400, 360))
    n = 3000
    values = np.zeros((n, n))
    values[::40, ::40] = 1.0  # a grid of bright cells every 40 rows and columns
    labels = [f"t{i}" for i in range(n)]
    h.set_matrix(values, row_labels=labels, col_labels=labels, levels=(0.0, 1.0), finite=True)
    shown = h.image_item.image
    fy, fx = h._stride
    assert fy >= 2 and fx >= 2 and shown.shape == values[::fy, ::fx].shape  # ≤ ~2 samples per pixel
    np.testing.assert_array_equal(shown, values[::fy, ::fx])
    assert h.image_array() is values  # hover, tests and exports still see every cell
    rect = h.image_item.mapRectToParent(h.image_item.boundingRect())
    assert rect.left() == -0.5 and rect.top() == -0.5  # cell (0, 0) centred on (0, 0)
    assert n - 0.5 <= rect.right() < n - 0.5 + fx and n - 0.5 <= rect.bottom() < n - 0.5 + fy
    r, c = h.cell_at(h.cell_center(1234, 2345))  # a pixel holds several cells: within one pixel
    assert abs(r - 1234) <= 2 * fy and abs(c - 2345) <= 2 * fx
    h.resize(800, 700)  # more pixels: finer sampling
    qtbot.waitUntil(lambda: h._stride[0] < fy)
    assert h.image_item.image.shape[0] > shown.shape[0]


def test_between_two_and_four_cells_a_pixel_are_sampled_to_at_most_two(qtbot):
    """L = 1024 in a heatmap of ~400 pixels: every other cell is coloured (a pixel shows one anyway)."""
    h = make(qtbot, size=(520, 460))
    vb = h.plot.getViewBox()
    px = (vb.height() * h.devicePixelRatioF(), vb.width() * h.devicePixelRatioF())
    n = int(2.5 * max(px))  # 2.5 cells a pixel the long way, more the other
    values = np.random.default_rng(1).random((n, n))
    labels = [f"t{i}" for i in range(n)]
    h.set_matrix(values, row_labels=labels, col_labels=labels, levels=(0.0, 1.0), finite=True)
    fy, fx = h._stride
    assert fy >= 2 and fx >= 2
    assert h.image_item.image.shape[0] <= 2 * px[0] and h.image_item.image.shape[1] <= 2 * px[1]
    np.testing.assert_array_equal(h.image_item.image, values[::fy, ::fx])


def test_a_matrix_that_fits_the_screen_is_shown_cell_for_cell(qtbot):
    h = make(qtbot)
    values = np.arange(12.0).reshape(3, 4)
    h.set_matrix(values, row_labels=list("abc"), col_labels=list("defg"), levels=(0.0, 11.0))
    assert h._stride == (1, 1)
    np.testing.assert_array_equal(h.image_item.image, values)


def test_the_pixels_are_coloured_when_the_matrix_is_given_not_at_a_later_paint(qtbot):
    h = make(qtbot)
    values = np.array([[0.0, 1.0], [1.0, 0.0]])
    h.set_matrix(values, row_labels=["a", "b"], col_labels=["c", "d"], levels=(0.0, 1.0))
    before = h.image_item.qimage.copy()
    values[:] = 0.5  # the owner's array rewritten in place (a background recompute) before any paint
    h.grab()
    assert h.image_item.qimage == before


def test_a_causal_mask_larger_than_the_screen_is_sampled_with_the_image_and_drawn_in_place(qtbot):
    """At L = 1500 in a 520-pixel heatmap the grey of the mask is built at the image's sampling
    (not 1500² pixels), still covers the upper triangle, and follows a resize that samples anew."""
    n = 1500
    h = make(qtbot)
    values = np.full((n, n), 0.5)
    masked = np.triu(np.ones((n, n), bool), 1)
    names = [f"t{i}" for i in range(n)]
    h.set_matrix(values, row_labels=names, col_labels=names, levels=(0, 1), masked=masked, finite=True)
    image = h._mask_item._image
    fy, fx = h._stride
    assert (fy, fx) != (1, 1) and image.height() == len(range(0, n, fy)) and image.width() == len(range(0, n, fx))
    grey = np.array([MASK_FILL.red(), MASK_FILL.green(), MASK_FILL.blue()])
    rgb, dpr = grab_rgb(h)
    upper, lower = cell_colour(h, rgb, dpr, 200, 1300), cell_colour(h, rgb, dpr, 1300, 200)
    assert np.abs(upper - grey).max() <= 3 and np.abs(lower - grey).sum() > 100, (upper, lower)
    h.resize(1400, 1300)  # room for more samples: the mask is sampled again, as the image
    qtbot.waitUntil(lambda: h._stride != (fy, fx))
    assert h._mask_item._image.height() == len(range(0, n, h._stride[0]))
    rgb, dpr = grab_rgb(h)
    assert np.abs(cell_colour(h, rgb, dpr, 200, 1300) - grey).max() <= 3


def test_row_notes_give_way_where_they_would_shrink_the_numbers(qtbot):
    """② writes "Σ=1.000" beside each row while the cells keep room for their numbers at full size; where
    the notes' column would print the numbers smaller (a narrow dock), the notes go and the matrix takes their
    width — as wide as the same matrix without notes. Wide again, they come back."""
    values = np.array([[0.17, 0.55, 0.10, 0.18], [0.45, 0.05, 0.05, 0.45],
                       [0.27, 0.09, 0.21, 0.43], [0.08, 0.06, 0.59, 0.27]])
    notes = ["Σ=1.000"] * 4
    with_notes, without = make(qtbot, size=(600, 460)), make(qtbot, size=(600, 460))
    with_notes.set_matrix(values, row_labels=TOKENS, col_labels=TOKENS, levels=(0, 1), row_notes=notes)
    without.set_matrix(values, row_labels=TOKENS, col_labels=TOKENS, levels=(0, 1))
    QApplication.processEvents()
    # wide: 4 cells of ~90 px print "0.55" at the largest size with or without the notes' ~50 px
    assert with_notes.ticks("right") == list(enumerate(notes))
    assert with_notes.plot.getViewBox().width() < without.plot.getViewBox().width()
    for h in (with_notes, without):
        h.resize(300, 460)  # cells of ~25 px with the notes, ~37 px without: "0.55" needs ~37 for 14 px
    QApplication.processEvents()
    assert with_notes.ticks("right") == [(i, "") for i in range(4)]
    assert abs(with_notes.plot.getViewBox().width() - without.plot.getViewBox().width()) < 1
    with_notes.resize(600, 460)
    QApplication.processEvents()
    assert with_notes.ticks("right") == list(enumerate(notes))


def test_the_selected_row_is_labelled_where_rows_are_labelled_one_in_a_few(qtbot):
    """At L = 24 in a short dock every 5th row is labelled; the walkthrough's selected last row ("ran") had no label
    beside its outline. It takes the place of the labels too close to it."""
    from explorer.widgets.heatmap_ticks import labelled_rows

    assert labelled_rows(24, 5) == [0, 5, 10, 15, 20]
    assert labelled_rows(24, 5, 23) == [0, 5, 10, 15, 23]  # 20 is 3 rows from 23: one line would cover the other
    assert labelled_rows(24, 5, 10) == [0, 5, 10, 15, 20]  # already labelled
    assert labelled_rows(24, 1, 23) == list(range(24))
    h = make(qtbot, size=(420, 260))
    tokens = [f"w{i}" for i in range(24)]
    h.set_matrix(np.eye(24), row_labels=tokens, col_labels=tokens, levels=(0, 1))
    QApplication.processEvents()
    shown = [i for i, _ in h.ticks("left")]
    assert len(shown) < 24 and 23 not in shown  # one in a few
    h.set_selected_row(23)
    assert (23, "w23") in h.ticks("left")


@pytest.mark.parametrize("size", [(520, 700), (700, 380)])
def test_a_mark_is_a_round_ring_centred_on_its_cell_and_sized_to_it(qtbot, size):
    """The alignment mark (cross-attention ②'s strongest key) rings its cell: what it changes is a circle in
    pixels — as wide as tall, even in cells far from square — centred on the cell, filling most of the cell's
    shorter side and staying inside the cell."""
    h = make(qtbot, size=size)
    values, _ = lower_triangle_demo()
    h.set_matrix(values, row_labels=TOKENS, col_labels=TOKENS, levels=(0, 1))
    before, dpr = grab_rgb(h)
    h.set_marks([(1, 2)])
    after, _ = grab_rgb(h)
    ys, xs = np.nonzero(np.any(before != after, axis=2))
    ys, xs = ys / dpr, xs / dpr
    c = h.cell_center(1, 2)
    cell_w = h.cell_center(1, 3).x() - h.cell_center(1, 2).x()
    cell_h = h.cell_center(2, 2).y() - h.cell_center(1, 2).y()
    short = min(abs(cell_w), abs(cell_h))
    assert abs(cell_w) > 1.5 * abs(cell_h) or abs(cell_h) > 1.5 * abs(cell_w)  # cells far from square
    width, height = xs.max() - xs.min(), ys.max() - ys.min()
    assert abs((xs.max() + xs.min()) / 2 - c.x()) <= 2 and abs((ys.max() + ys.min()) / 2 - c.y()) <= 2
    assert abs(width - height) <= 2
    assert 0.6 * short <= width <= short
    assert np.all(np.abs(xs - c.x()) <= abs(cell_w) / 2) and np.all(np.abs(ys - c.y()) <= abs(cell_h) / 2)
    assert before[int(c.y() * dpr), int(c.x() * dpr)].tolist() == after[int(c.y() * dpr), int(c.x() * dpr)].tolist()


def test_cells_too_small_for_a_ring_get_no_mark(qtbot):
    """80 rows in 300 px (~3 px a row): a ring around a number cannot fit in such a cell, and one ring per row
    made a smeared band of black and white rings; nothing is drawn for the marks there."""
    h = make(qtbot, size=(520, 300))
    n = 80
    tokens = [f"w{i}" for i in range(n)]
    h.set_matrix(np.eye(n), row_labels=tokens, col_labels=tokens, levels=(0, 1))
    before, _ = grab_rgb(h)
    h.set_marks([(r, r) for r in range(n)])
    after, _ = grab_rgb(h)
    assert abs(h.cell_center(1, 0).y() - h.cell_center(0, 0).y()) < 10  # (the cells are that small)
    assert np.array_equal(before, after)
