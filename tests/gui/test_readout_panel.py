"""F4 readout panel: the stacked shares w_ij·v_j and O_i inside the hull of V, following the model (offscreen)."""
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRectF
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QToolTip

from explorer.core import in_convex_hull
from explorer.core.presets import random_session
from explorer.panels.readout import PLOT_MIN_HEIGHT, STAR_PX, ReadoutPanel, key_colour
from explorer.panels.readout.bars import OUTPUT_COLOR
from explorer.widgets.palette import OKABE_ITO
from tests.box_geometry import length_inside, shared_area
from tests.gui.panel_helpers import show_panel


def make(qtbot, session=None, size=(700, 450)):
    return show_panel(qtbot, ReadoutPanel, session=session, size=size)


def bar_heights(panel):
    """{key index: heights per dimension} of the stacks as drawn."""
    return {stack.key: np.asarray(stack.height, float) for stack in panel.bars.stacks}


def star_pos(panel):
    assert panel.plane.star is not None
    return np.asarray(panel.plane.star, float)


def expected_parts(model, row, head=0):
    r = model.results
    dh = r.v.shape[1] // r.n_heads
    cols = slice(head * dh, (head + 1) * dh)
    w, v = r.heads.weights[head, row], r.v[:, cols]
    return np.array([[w[j] * x for x in v[j]] for j in range(len(w))]), cols  # key j's share: w_j · v_j


def assert_bars_match(model, panel, row):
    parts, _ = expected_parts(model, row, model.settings.selected_head)
    heights = bar_heights(panel)
    assert sorted(heights) == list(range(len(model.tokens)))
    for j, h in heights.items():
        np.testing.assert_allclose(h, parts[j], atol=1e-12)


def test_bars_are_each_keys_share_and_the_star_is_the_output_row(qtbot):
    model, panel = make(qtbot)
    row = model.settings.selected_row
    assert model.tokens[row] == "追"
    assert_bars_match(model, panel, row)
    # the bars stack to the output row: the marker of each dimension sits at O_id
    out = model.results.heads.output[row]
    _, totals = panel.bars.totals
    np.testing.assert_allclose(totals, out, atol=1e-12)
    np.testing.assert_allclose(star_pos(panel), out[[0, 1]], atol=1e-12)
    assert "③ Readout for 追" in panel.header.text()
    assert "0.45·v(猫)" in panel.header.text() and "convex combination" in panel.header.text()
    assert "✓" in panel.check_label.text() and panel.inside is True
    assert "猫&nbsp;0.45" in panel.legend.text()


def test_negative_shares_stack_down_from_zero(qtbot):
    model, panel = make(qtbot, random_session(5, 4, seed=2))
    ro = panel._readout
    assert (ro.parts < 0).any() and (ro.parts > 0).any()
    for stack in panel.bars.stacks:
        y0, h = np.asarray(stack.y0, float), np.asarray(stack.height, float)
        assert np.all(y0[h < 0] <= 0) and np.all(y0[h > 0] >= 0)


def test_readout_follows_the_selected_row(qtbot):
    model, panel = make(qtbot)
    model.set_selection(row=3)
    model.flush()
    assert panel.row_combo.currentIndex() == 3
    assert "③ Readout for 激光点" in panel.header.text()
    assert_bars_match(model, panel, 3)
    np.testing.assert_allclose(star_pos(panel), model.results.heads.output[3, [0, 1]], atol=1e-12)


def test_the_query_combo_selects_the_row_in_the_model(qtbot):
    model, panel = make(qtbot)
    panel.row_combo.activated.emit(0)
    model.flush()
    assert model.settings.selected_row == 0
    assert "③ Readout for 猫" in panel.header.text()


def test_editing_v_moves_the_star_and_it_stays_in_the_hull(qtbot):
    model, panel = make(qtbot)
    before = star_pos(panel)
    assert model.set_cell("V", 3, 1, 0.9)
    model.flush()
    after = star_pos(panel)
    assert not np.allclose(before, after)
    row = model.settings.selected_row
    np.testing.assert_allclose(after, model.results.heads.output[row, [0, 1]], atol=1e-12)
    assert in_convex_hull(after, model.matrix("V")[:, [0, 1]])
    assert panel.inside is True and "✓" in panel.check_label.text()
    assert_bars_match(model, panel, row)
    # the hull drawn is the hull of the new V rows on the plane
    drawn = {(round(x, 9), round(y, 9)) for x, y in panel.plane.hull}
    v = model.matrix("V")[:, [0, 1]]
    assert drawn == {(1.0, 0.0), (0.0, 1.0), (0.0, 0.0)}  # 激光点 (0, 0.9) is on the edge 红色–追
    assert all(in_convex_hull(p, v) for p in drawn)


def test_hidden_until_the_output_stage_is_revealed(qtbot):
    model, panel = make(qtbot)
    model.set_revealed(2)
    model.flush()
    assert panel.views.isHidden() and panel.legend.isHidden() and panel.check_label.isHidden()
    assert panel.hidden_label.isVisible()
    assert "hidden until ③ is revealed" in panel.header.text()
    assert "0.45" not in panel.header.text()
    model.set_revealed(3)
    model.flush()
    assert panel.views.isVisible() and not panel.hidden_label.isVisible()
    assert_bars_match(model, panel, model.settings.selected_row)


def test_the_dimension_combos_change_the_plane(qtbot):
    model, panel = make(qtbot)
    row = model.settings.selected_row
    assert panel.dims() == (0, 1)
    assert panel.x_combo.currentText() == "d0" and panel.y_combo.currentText() == "d1"
    panel.y_combo.setCurrentIndex(2)
    assert panel.dims() == (0, 2)
    np.testing.assert_allclose(star_pos(panel), model.results.heads.output[row, [0, 2]], atol=1e-12)
    np.testing.assert_allclose(panel.plane.points, model.matrix("V")[:, [0, 2]])
    assert panel.plane.titles == {"x": "d0", "y": "d2"}
    assert "(d0, d2)" in panel.check_label.text()
    panel.x_combo.setCurrentIndex(1)
    np.testing.assert_allclose(star_pos(panel), model.results.heads.output[row, [1, 2]], atol=1e-12)
    # the choice survives an edit
    model.set_cell("V", 0, 0, 0.5)
    model.flush()
    assert panel.dims() == (1, 2)


def test_several_heads_read_the_selected_heads_slice(qtbot):
    model, panel = make(qtbot, random_session(6, 4, seed=1))
    model.set_param("heads", 2)
    model.set_selection(head=1, row=2)
    model.flush()
    parts, cols = expected_parts(model, 2, head=1)
    heights = bar_heights(panel)
    for j, h in heights.items():
        np.testing.assert_allclose(h, parts[j], atol=1e-12)
    assert panel.dims() == (2, 3)
    np.testing.assert_allclose(star_pos(panel), model.results.heads.output[2, [2, 3]], atol=1e-12)
    assert "head 2/2" in panel.header.text() and "V[:, d2–d3]" in panel.header.text()
    assert [panel.x_combo.itemText(k) for k in range(panel.x_combo.count())] == ["d2", "d3"]


def test_one_dimension_puts_everything_on_a_line(qtbot):
    model, panel = make(qtbot)
    model.set_param("heads", 3)  # d_v = 3 → three heads of width 1
    model.flush()
    row = model.settings.selected_row
    assert panel.dims() == (0, None)
    assert panel.y_combo.isHidden()
    x, y = np.asarray(panel.plane.points).T
    np.testing.assert_allclose(x, model.matrix("V")[:, 0])
    np.testing.assert_array_equal(y, 0.0)
    np.testing.assert_allclose(star_pos(panel), [model.results.heads.output[row, 0], 0.0], atol=1e-12)
    assert panel.inside is True
    # three tokens share v = 0 on this line: one label names them all
    texts = [label.text for label in panel.plane.labels]
    assert "追, 红色, 激光点" in texts


def test_the_chosen_dimensions_survive_a_one_dimensional_detour(qtbot):
    model, panel = make(qtbot, random_session(5, 6, seed=4))
    panel.x_combo.setCurrentIndex(4)
    panel.y_combo.setCurrentIndex(2)
    assert panel.dims() == (4, 2)
    model.set_param("heads", 6)  # width 1 per head: a line
    model.flush()
    assert panel.dims() == (0, None)
    model.set_param("heads", 3)  # width 2: columns d0, d1 of head 1 — the choice is clamped to two columns
    model.flush()
    assert panel.dims() == (0, 1)
    model.set_param("heads", 1)
    model.flush()
    assert sorted(panel.dims()) == [0, 1]
    panel.x_combo.setCurrentIndex(5)
    assert panel.dims()[0] == 5


def test_many_keys_keep_the_heaviest_and_group_the_rest(qtbot):
    model, panel = make(qtbot, random_session(20, 4, seed=3))
    ro = panel._readout
    keys = [j for j in panel.bar_keys if j is not None]
    assert len(panel.bars.stacks) == 12 and panel.bar_keys[-1] is None
    assert set(keys) == set(np.argsort(-ro.weights, kind="stable")[:11].tolist())
    rest = [j for j in range(20) if j not in keys]
    d = ro.parts.shape[1]
    heights = np.asarray(panel.bars.stacks[-1].height, float)
    np.testing.assert_allclose(heights[:d], np.clip(ro.parts[rest], 0, None).sum(axis=0), atol=1e-12)
    np.testing.assert_allclose(heights[d:], np.clip(ro.parts[rest], None, 0).sum(axis=0), atol=1e-12)
    # every share is drawn: the signed sum of all heights per dimension is the output row
    total = sum(np.asarray(stack.height, float)[:d] for stack in panel.bars.stacks[:-1]) + heights[:d] + heights[d:]
    np.testing.assert_allclose(total, model.results.heads.output[model.settings.selected_row], atol=1e-12)
    assert "9&nbsp;others" in panel.legend.text()


def test_a_fully_masked_row_says_so(qtbot):
    model, panel = make(qtbot)
    r = model.results
    heads = replace(r.heads, weights=np.zeros_like(r.heads.weights), head_outputs=np.zeros_like(r.heads.head_outputs),
                    output=np.zeros_like(r.heads.output), masked_rows=np.ones_like(r.heads.masked_rows))
    model.results = replace(r, heads=heads)
    panel.refresh()
    assert "row fully masked: no output (all weights 0)" in panel.header.text()
    assert panel.plane.star is None and panel.plane.star_label.box is None and panel.inside is None
    assert panel.bars.totals is None
    for stack in panel.bars.stacks:
        np.testing.assert_array_equal(stack.height, 0.0)


def colour_at(plot, image, x, y):
    """The colour painted at data point (x, y) of ``plot`` in its ``image``."""
    px, py = plot.to_px((x, y))
    return QColor(image.pixel(round(px), round(py)))


def test_the_bars_and_the_plane_are_painted_where_their_numbers_say(qtbot):
    """Row 追 of the demo weighs 猫 0.45, 追 0.05, 红色 0.05, 激光点 0.45 (V rows (1, 0, 0), (0, 1, 0), (0, 0, 1),
    (0, 0.3, 0.8)): d0 is 猫's 0.45; d1 追's 0.05, then 激光点's 0.45 · 0.3 = 0.135 on it; d2 红色's 0.05, then
    激光点's 0.36. Slots in token order give the colours; the range is 0 … 0.5 (0.45 to a nice step), 6 % more."""
    model, panel = make(qtbot)
    QApplication.processEvents()
    bars = panel.bars
    np.testing.assert_allclose(bars.y_range, (-0.03, 0.53), atol=1e-12)
    image = bars.grab().toImage()
    background = QColor(image.pixel(bars.width() - 2, 2))
    expected = {(0, 0.23): key_colour(0), (0, 0.47): background, (0.5, 0.23): background, (0.25, 0.23): key_colour(0),
                (0.4, 0.23): background, (1, 0.02): key_colour(1), (1, 0.12): key_colour(3), (1, 0.25): background,
                (0.6, 0.08): background, (0.75, 0.08): key_colour(3), (1.25, 0.08): key_colour(3),
                (1.4, 0.08): background,  # a bar is 0.62 wide
                (2, 0.02): key_colour(2), (2, 0.33): key_colour(3), (2, 0.45): background}  # (off the grid lines)
    assert {xy: colour_at(bars, image, *xy) for xy in expected} == expected
    assert colour_at(bars, image, 0, float(model.results.heads.output[1, 0])) == QColor(OUTPUT_COLOR)  # O's dot

    plane = panel.plane
    image = plane.grab().toImage()
    for slot, v in enumerate([(1.0, 0.0), (0.0, 1.0), (0.0, 0.0), (0.0, 0.3)]):
        assert colour_at(plane, image, *v) == key_colour(slot)
    assert colour_at(plane, image, *star_pos(panel)) == QColor(OUTPUT_COLOR)


def test_a_negative_share_is_painted_below_zero(qtbot):
    """V[猫, d0] = −1: 猫's share of d0 is 0.45 · −1, a bar from 0 down to −0.45; d2 still reaches 0.41: the range
    −0.5 … 0.5 (each end to a nice step), 6 % more."""
    model, panel = make(qtbot)
    assert model.set_cell("V", 0, 0, -1.0)
    model.flush()
    QApplication.processEvents()
    bars = panel.bars
    np.testing.assert_allclose(bars.y_range, (-0.56, 0.56), atol=1e-12)
    image = bars.grab().toImage()
    background = QColor(image.pixel(bars.width() - 2, 2))
    assert colour_at(bars, image, 0, -0.23) == key_colour(0)
    assert colour_at(bars, image, 0, 0.23) == background
    assert colour_at(bars, image, 0, -0.475) == background
    assert colour_at(bars, image, 2, 0.33) == key_colour(3)  # d2 still stands up from 0


def test_bar_tooltip_names_the_key_and_its_share(qtbot):
    model, panel = make(qtbot)
    text = panel.bar_tooltip(0.0, 0.2)  # d0 of 追: all of it comes from 猫
    assert text.startswith("猫 → O[追, d0]") and "w 0.45" in text and "v 1.00" in text
    assert panel.bar_tooltip(0.5, 0.2) == ""  # between bars


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the offscreen platform, on QToolTip
def test_hovering_a_bar_shows_its_tooltip(qtbot):
    """The pointer resting on d0's bar of 追 (all of it 猫's share, 0.45 · 1.00) shows what that share is."""
    model, panel = make(qtbot)
    QApplication.processEvents()
    x, y = panel.bars.to_px((0.0, 0.2))
    qtbot.mouseMove(panel.bars, QPoint(2, 2))
    qtbot.mouseMove(panel.bars, QPoint(round(x), round(y)))
    qtbot.waitUntil(lambda: QToolTip.isVisible() and QToolTip.text().startswith("猫 → O[追, d0]"), timeout=3000)
    QToolTip.hideText()


def test_token_colours_are_the_okabe_ito_palette_then_darker():
    assert [key_colour(k).name().upper() for k in range(len(OKABE_ITO))] == list(OKABE_ITO)
    assert key_colour(len(OKABE_ITO)).lightness() < key_colour(0).lightness()


@pytest.mark.parametrize("size", [(700, 450), (380, 640)])
def test_views_sit_side_by_side_when_wide_and_stacked_when_narrow(qtbot, size):
    model, panel = make(qtbot, size=size)
    QApplication.processEvents()
    bars, plane = panel.bars.geometry(), panel.plane.geometry()
    if size[0] > size[1]:
        assert plane.left() >= bars.right()
    else:
        assert plane.top() >= bars.bottom()


# ----- regressions from the user test ----------------------------------------------------------------
def test_the_plane_never_shows_one_dimension_against_itself(qtbot):
    model, panel = make(qtbot)
    row = model.settings.selected_row
    assert panel.dims() == (0, 1)
    panel.y_combo.setCurrentIndex(0)  # d0 × d0? no: the axes swap
    assert panel.dims() == (1, 0)
    assert panel.x_combo.currentText() == "d1" and panel.y_combo.currentText() == "d0"
    np.testing.assert_allclose(star_pos(panel), model.results.heads.output[row, [1, 0]], atol=1e-12)
    np.testing.assert_allclose(panel.plane.points, model.matrix("V")[:, [1, 0]])
    assert "(d1, d0)" in panel.check_label.text()
    panel.x_combo.setCurrentIndex(0)  # and back
    assert panel.dims() == (0, 1) and panel.y_combo.currentText() == "d1"
    panel.x_combo.setCurrentIndex(2)  # a free column: no swap needed
    assert panel.dims() == (2, 1)
    model.set_param("heads", 3)  # width 1: one combo, nothing to swap
    model.flush()
    assert panel.dims() == (0, None) and panel.y_combo.isHidden()


def label_boxes(panel):
    """The plane's pixel rectangles of the token labels shown, the O label and the star (as drawn)."""
    x, y = panel.plane.to_px(star_pos(panel))
    r = STAR_PX
    return ([label.box for label in panel.plane.labels if label.box is not None], panel.plane.star_label.box,
            QRectF(x - r, y - r, 2 * r, 2 * r))


def as_box(rect):
    return (rect.left(), rect.top(), rect.right(), rect.bottom())


@pytest.mark.parametrize("row", [0, 1, 2, 3])
@pytest.mark.parametrize("size", [(700, 450), (1000, 600)])
def test_plane_labels_fit_and_keep_clear_of_the_star_and_each_other(qtbot, row, size):
    model, panel = make(qtbot, size=size)
    model.set_selection(row=row)
    model.flush()
    QApplication.processEvents()
    inside = panel.plane.data_rect().adjusted(-1, -1, 1, 1)
    labels, o_label, star = label_boxes(panel)
    assert o_label is not None and panel.plane.star_label.text == f"O[{model.tokens[row]}]"
    for rect in labels + [o_label]:
        assert inside.contains(rect), "a label is cut off at the edge of the plot"  # 追 at d1 = 1 used to be
    for k, rect in enumerate(labels):
        assert shared_area(as_box(rect), as_box(star)) == 0  # "★色": the star covered 红色
        assert shared_area(as_box(rect), as_box(o_label)) == 0
        for other in labels[k + 1:]:
            assert shared_area(as_box(rect), as_box(other)) == 0
    # the O label sits on no weight line that carries real weight
    ro = panel._readout
    star_c = star.center()
    pts, _ = panel.plane_points()
    for j in panel.shown_keys():
        if ro.weights[j] > 0.2:
            end = panel.plane.to_px(pts[j])
            assert length_inside((star_c.x(), star_c.y(), *end), as_box(o_label)) == 0


def test_the_o_label_stays_off_the_lines_of_chase(qtbot):
    """The user saw "O[追]" on the weight line to 猫: it now sits beside the star, on a white backing."""
    model, panel = make(qtbot)
    QApplication.processEvents()
    _, o_label, star = label_boxes(panel)
    fill = panel.plane.star_label.fill
    assert fill is not None and fill.lightness() == 255 and fill.alpha() > 200  # a white backing
    gap = max(o_label.left() - star.right(), star.left() - o_label.right(), o_label.top() - star.bottom(),
              star.top() - o_label.bottom())
    assert gap <= 35  # next to the star it names, not somewhere else in the plot


def test_small_docks_scroll_instead_of_squashing_the_plots(qtbot):
    model, panel = make(qtbot, size=(390, 290))  # the Readout dock of a 1024×700 window
    QApplication.processEvents()
    assert panel.bars.height() >= PLOT_MIN_HEIGHT and panel.plane.height() >= PLOT_MIN_HEIGHT
    assert panel.scroll.verticalScrollBar().maximum() > 0
    panel.resize(700, 300)  # wide but low: side by side, still at full height
    QApplication.processEvents()
    assert panel.plane.geometry().left() >= panel.bars.geometry().right()
    assert panel.bars.height() >= PLOT_MIN_HEIGHT and panel.plane.height() >= PLOT_MIN_HEIGHT


def test_a_redraw_with_fewer_keys_leaves_nothing_of_the_last_one(qtbot):
    """Twenty keys draw 11 of them and "others"; three keys then draw three stacks, labels and lines, and
    the points, the query combo and a renamed token follow."""
    model, panel = make(qtbot, random_session(20, 4, seed=3))
    assert [len(panel.bars.stacks), len(panel.plane.labels), len(panel.plane.lines)] == [12, 11, 11]
    model.set_cell("V", 0, 0, float(model.matrix("V")[0, 0]) + 0.25)
    model.set_selection(row=5)
    model.flush()
    np.testing.assert_allclose(panel.plane.points, model.matrix("V")[:, :2])

    model.load(random_session(3, 4, seed=1))
    model.flush()
    assert [len(panel.bars.stacks), len(panel.plane.labels), len(panel.plane.lines)] == [3, 3, 3]
    assert None not in panel.bar_keys and len(panel.plane.key_points) == 3
    assert [panel.row_combo.itemText(i) for i in range(panel.row_combo.count())] == \
        [f"{i}: {t}" for i, t in enumerate(model.tokens)]
    model.rename_token(1, "新")
    model.flush()
    assert panel.row_combo.itemText(1) == "1: 新"


def test_a_causal_row_spells_out_and_draws_only_the_keys_it_attends(qtbot):
    """Row 追 of the causal demo attends to 猫 and itself: the formula, bars and legend show those two,
    never a 0.00·v(…) of a key the mask hides."""
    model, panel = make(qtbot)
    model.set_param("causal", True)
    model.set_selection(row=1)
    model.flush()
    QApplication.processEvents()
    header, legend = panel.header.text(), panel.legend.text()
    assert "v(猫)" in header and "v(追)" in header and "v(红色)" not in header and "v(激光点)" not in header
    assert sorted(bar_heights(panel)) == [0, 1]
    assert "others" not in legend and "红色" not in legend


def test_a_repeated_token_is_told_apart_in_the_legend(qtbot):
    """At L = 24 the walkthrough's legend listed "the" five times; a repeated token gets its position."""
    session = random_session(length=5, dim=3, seed=2)
    session = replace(session, tokens=("the", "cat", "saw", "the", "dog"))
    model, panel = make(qtbot, session)
    legend = panel.legend.text()
    assert "the₀" in legend and "the₃" in legend and "cat" in legend and "cat₁" not in legend


def test_tiny_values_apart_keep_a_label_each(qtbot):
    """The demo's V × 1e−13: its rows on d0 × d1 — 猫 (1, 0), 追 (0, 1), 红色 (0, 0), 激光点 (0, 0.3), times
    1e−13 — are four places, as they are at 1; rounded to 12 decimals they were all (0, 0) and shared one label."""
    model, panel = make(qtbot)
    v = model.matrix("V").copy()
    for i, j in np.ndindex(v.shape):
        assert model.set_cell("V", i, j, float(v[i, j]) * 1e-13)
    model.flush()
    assert sorted(label.text for label in panel.plane.labels) == sorted(["猫", "追", "红色", "激光点"])


def test_an_svg_export_draws_the_grey_dots_as_discs(qtbot, tmp_path):
    """Twenty keys: 11 drawn in colour, the V rows as grey dots — in SVG circles, not 20 embedded pictures."""
    from explorer.documents import write_svg

    model, panel = make(qtbot, random_session(20, 4, seed=3))
    QApplication.processEvents()
    assert write_svg(panel.plane, tmp_path / "plane.svg")
    svg = (tmp_path / "plane.svg").read_text(encoding="utf-8")
    assert "<image" not in svg


def test_the_bars_name_the_heads_own_columns(qtbot):
    """Two heads of d_v = 4: head 1 mixes V[:, d2–d3], so its two bars are named d2, d3 (the x ticks are asked for
    lazily, from the columns of the readout drawn; the same width of 2 must not keep head 0's d0, d1)."""
    model, panel = make(qtbot, random_session(6, 4, seed=1))
    model.set_param("heads", 2)
    model.flush()
    QApplication.processEvents()
    assert [text for _, text in panel.bars._laid_out()[2]] == ["d0", "d1"]
    model.set_selection(head=1)
    model.flush()
    QApplication.processEvents()
    assert [text for _, text in panel.bars._laid_out()[2]] == ["d2", "d3"]
