"""F8 heads grid: one heatmap per head, following the model; the heads combo; click to select a head (offscreen)."""
import numpy as np
import pytest
from PySide6.QtCore import Qt

from explorer.core.presets import demo_session, random_session
from explorer.widgets.palette import head_colour
from explorer.panels.heads import MAX_SHOWN, HeadsPanel
from tests.gui.panel_helpers import show_panel
from tests.gui.same_numbers import assert_same_numbers


def make(qtbot, session=None, size=(800, 500)):
    return show_panel(qtbot, HeadsPanel, session=session, size=size)


def choose_heads(model, panel, h):
    """Pick ``h`` in the panel's heads combo, as a user would."""
    index = panel.heads_combo.findData(h)
    assert index >= 0, f"{h} is not offered"
    panel.heads_combo.setCurrentIndex(index)
    model.flush()


def laid_out(qtbot, panel):
    """Wait until new heads' heatmaps have their sizes (they are laid out on the next event-loop turn)."""
    def ready():
        return all(hm.isVisible() and hm.plot.getViewBox().width() > 20 for hm in panel.heatmaps)
    qtbot.waitUntil(ready, timeout=5000)


def combo_options(panel):
    return [panel.heads_combo.itemData(i) for i in range(panel.heads_combo.count())]


def assert_grid_shows(model, panel, what="weights"):
    r = model.results
    values = getattr(r.heads, what)
    assert len(panel.heatmaps) == r.n_heads
    for h, hm in enumerate(panel.heatmaps):
        assert_same_numbers(hm.image_array(), values[h])


def test_demo_offers_the_divisors_of_d_and_shows_one_heatmap_per_head(qtbot):
    model, panel = make(qtbot)
    assert combo_options(panel) == [1, 3]
    assert panel.heads_combo.currentData() == model.settings.heads == 1
    assert_grid_shows(model, panel)

    choose_heads(model, panel, 3)
    assert model.settings.heads == 3
    assert_grid_shows(model, panel)
    # the three heads really differ (d_h = 1: each head sees one dimension of Q and K)
    w = model.results.heads.weights
    assert not np.allclose(w[0], w[1]) and not np.allclose(w[1], w[2])
    titles = panel.titles()
    assert len(titles) == 3
    assert all(f"head {h + 1}" in t and "d_h = 1" in t and "scale 1/√1" in t for h, t in enumerate(titles))
    laid_out(qtbot, panel)
    for h, cell in enumerate(panel.cells):  # the same colours as the split/merge drawing
        assert head_colour(h).name() in cell.title.text()
        assert f"head {h + 1}" in cell.title.text()


def test_random_session_heads_change_the_grid(qtbot):
    model, panel = make(qtbot, random_session(6, 8, seed=1))
    assert combo_options(panel) == [1, 2, 4, 8]
    for h in (2, 4, 8, 1):
        choose_heads(model, panel, h)
        assert model.settings.heads == h
        assert_grid_shows(model, panel)
        assert panel.heads_combo.currentData() == h
    choose_heads(model, panel, 2)
    assert "1/√4" in panel.titles()[0]  # d_h = 4: each head scales by 1/√d_h
    assert panel.heatmaps[0].levels() == (0.0, 1.0)


def test_model_side_changes_follow_and_cells_are_reused(qtbot):
    model, panel = make(qtbot, random_session(6, 8, seed=1))
    model.set_param("heads", 4)
    model.flush()
    assert panel.heads_combo.currentData() == 4
    first = panel.heatmaps
    model.set_cell("Q", 0, 0, 3.0)
    model.flush()
    assert panel.heatmaps == first  # same H: the heatmaps are reused
    assert_grid_shows(model, panel)
    model.undo_stack.undo()  # back to 4 heads' previous numbers
    model.flush()
    assert_grid_shows(model, panel)
    model.set_param("heads", 2)
    model.flush()
    assert len(panel.heatmaps) == 2
    assert_grid_shows(model, panel)


def test_toggle_shows_scores_on_shared_symmetric_levels(qtbot):
    model, panel = make(qtbot, random_session(6, 8, seed=1))
    choose_heads(model, panel, 4)
    qtbot.mouseClick(panel.scores_button, Qt.MouseButton.LeftButton)
    assert panel.mode == "scores"
    assert_grid_shows(model, panel, "scores")
    lo, hi = panel.heatmaps[0].levels()
    assert lo == -hi and hi >= np.abs(model.results.heads.scores).max()
    assert all(hm.levels() == (lo, hi) for hm in panel.heatmaps)  # one scale for every head
    choose_heads(model, panel, 8)  # still scores after H changes
    assert_grid_shows(model, panel, "scores")
    qtbot.mouseClick(panel.weights_button, Qt.MouseButton.LeftButton)
    assert panel.mode == "weights"
    assert_grid_shows(model, panel, "weights")


def test_clicking_a_heads_heatmap_selects_that_head(qtbot):
    model, panel = make(qtbot)
    choose_heads(model, panel, 3)
    assert model.settings.selected_head == 0
    assert panel.selected_cells() == [0]
    laid_out(qtbot, panel)
    hm = panel.heatmaps[2]
    assert hm.cell_at(hm.cell_center(3, 1)) == (3, 1)
    qtbot.mouseClick(hm.viewport(), Qt.MouseButton.LeftButton, pos=hm.cell_center(3, 1).toPoint())
    model.flush()
    assert model.settings.selected_head == 2
    assert model.settings.selected_row == 3  # the clicked query row, as in the other heatmaps
    assert panel.selected_cells() == [2]
    # the title (outside the cells) selects its head too
    qtbot.mouseClick(panel.cells[1].title, Qt.MouseButton.LeftButton)
    model.flush()
    assert model.settings.selected_head == 1
    assert panel.selected_cells() == [1]


def test_selection_from_elsewhere_moves_the_outline(qtbot):
    model, panel = make(qtbot, random_session(6, 8, seed=1))
    choose_heads(model, panel, 4)
    model.set_selection(head=3, row=5)
    model.flush()
    assert panel.selected_cells() == [3]
    assert all(hm._outline_item.row == 5 for hm in panel.heatmaps)


def test_hidden_weights_blank_the_grid_and_say_so(qtbot):
    model, panel = make(qtbot)
    choose_heads(model, panel, 3)
    model.set_revealed(1)
    model.flush()
    assert all(hm.is_hidden() for hm in panel.heatmaps)
    assert panel.note.isVisible() and "hidden" in panel.note.text()
    assert not panel.colorbar_view.isVisible()
    # scores are stage ①, already revealed
    qtbot.mouseClick(panel.scores_button, Qt.MouseButton.LeftButton)
    assert not any(hm.is_hidden() for hm in panel.heatmaps)
    qtbot.mouseClick(panel.weights_button, Qt.MouseButton.LeftButton)
    assert all(hm.is_hidden() for hm in panel.heatmaps)
    model.set_revealed(3)
    model.flush()
    assert not any(hm.is_hidden() for hm in panel.heatmaps)
    assert not panel.note.isVisible()


def test_more_than_sixteen_heads_show_the_first_sixteen(qtbot):
    model, panel = make(qtbot, random_session(4, 20, seed=3))
    choose_heads(model, panel, 20)
    assert len(panel.heatmaps) == MAX_SHOWN
    for h, hm in enumerate(panel.heatmaps):
        assert_same_numbers(hm.image_array(), model.results.heads.weights[h])
    assert "showing 16 of 20" in panel.note.text()
    assert panel.grid_columns(MAX_SHOWN) == 4


def test_causal_mask_marks_masked_cells_in_every_head(qtbot):
    model, panel = make(qtbot)
    choose_heads(model, panel, 3)
    model.set_param("causal", True)
    model.flush()
    for hm in panel.heatmaps:
        np.testing.assert_array_equal(hm.masked_array(), np.triu(np.ones((4, 4), bool), 1))


@pytest.mark.parametrize("session, heads, size, tight", [
    (demo_session, 3, (800, 500), False),
    (demo_session, 3, (420, 320), True),  # 激光点 would take too much of a small head
    (lambda: random_session(16, 8, seed=1), 4, (800, 500), True),  # many tokens
])
def test_token_labels_on_the_outer_heads_only_when_tight(qtbot, session, heads, size, tight):
    model, panel = make(qtbot, session(), size=size)
    choose_heads(model, panel, heads)
    laid_out(qtbot, panel)
    assert panel.labels_on_outer_only() is tight
    cols = panel.grid_columns(heads)
    for h, hm in enumerate(panel.heatmaps):
        left = [t for _, t in hm.ticks("left") if t]
        top = [t for _, t in hm.ticks("top") if t]
        assert bool(left) is (h % cols == 0 or not tight)
        assert bool(top) is (h < cols or not tight)


def test_hovering_tells_the_heads_value(qtbot):
    model, panel = make(qtbot)
    choose_heads(model, panel, 3)
    text = panel.heatmaps[1].tooltip_provider(0, 1)
    assert text.startswith("head 2: weight[猫 → 追] = ")
    assert f"{model.results.heads.weights[1, 0, 1]:.3f}"[:4] in text
    model.set_revealed(1)
    model.flush()
    assert "hidden" in panel.heatmaps[1].tooltip_provider(0, 1)


def _left_strip(heatmap, dpr):
    """The pixel columns of the heatmap's left axis, without its tick marks."""
    strip = heatmap.mapFromScene(heatmap.plot.getAxis("left").sceneBoundingRect()).boundingRect()
    return int(strip.left() * dpr), int(strip.right() * dpr) - 6


def _left_labels_ink(heatmap, rgb, dpr):
    """For each row labelled on the left axis: whether text is drawn in the axis strip at that row's height."""
    x0, x1 = _left_strip(heatmap, dpr)
    ink = {}
    for row, text in heatmap.ticks("left"):
        if not text:
            continue  # an inner head when the labels are on the outer heads only
        y = heatmap.cell_center(row, 0).y()
        band = rgb[int((y - 4) * dpr):int((y + 4) * dpr), x0:x1]
        ink[text] = bool((band.min(axis=2) < 110).any())
    return ink


def _ink_rows(heatmap, rgb, dpr):
    """The pixel rows of the left axis strip with text on them."""
    x0, x1 = _left_strip(heatmap, dpr)
    return set(np.nonzero((rgb[:, x0:x1].min(axis=2) < 110).any(axis=1))[0].tolist())


def test_labels_sit_beside_their_rows_after_a_resize(qtbot):
    """The axes are cached as pixels: after a resize they are drawn anew, not the old picture with the newly
    exposed strip painted over (labels were left beside other rows until the next redraw)."""
    from PySide6.QtWidgets import QApplication
    from explorer.core.presets import grouped_query_session
    from explorer.widgets.plot_cache import axes_as_vectors
    from tests.gui.conftest import grab_rgb

    model, panel = make(qtbot, grouped_query_session(), size=(500, 400))
    for size in [(900, 800), (700, 500), (1100, 900), (520, 420)]:
        panel.resize(*size)
        QApplication.processEvents()
        shown = [grab_rgb(h) for h in panel.heatmaps]
        ink = [_left_labels_ink(heatmap, rgb, dpr) for heatmap, (rgb, dpr) in zip(panel.heatmaps, shown)]
        assert len(ink[0]) >= 3 and all(all(found.values()) for found in ink), (size, ink)
        with axes_as_vectors(panel):  # painted without any cache: where the labels should be
            fresh = [grab_rgb(h)[0] for h in panel.heatmaps]
        for heatmap, (rgb, dpr), want in zip(panel.heatmaps, shown, fresh):
            got, expected = _ink_rows(heatmap, rgb, dpr), _ink_rows(heatmap, want, dpr)
            # the same text rows, give or take one (text drawn into a cache may be shaded a little differently)
            assert all({r - 1, r, r + 1} & expected for r in got), size
            assert all({r - 1, r, r + 1} & got for r in expected), size


def test_the_caption_is_one_line_that_opens_onto_the_whole_explanation(qtbot):
    """A low dock gives its height to the heads: the caption is one line (H, d_h, scale, K/V heads) at the
    default dock's width; its explanation opens under it."""
    from explorer.core.presets import grouped_query_session
    model, panel = make(qtbot, session=grouped_query_session(), size=(560, 300))  # 8 heads of d_h = 2, 2 K/V
    summary, details = panel.caption.summary, panel.caption
    qtbot.waitUntil(lambda: summary.height() > 0)
    assert not details.body.isVisible()
    assert summary.text() == "<b>Heads</b>: H = 8 × d_h = 2, scale 1/√2 = 0.7071, 2 K/V heads"
    line = summary.fontMetrics().lineSpacing()
    assert summary.height() < 2 * line  # one line
    assert "4 query heads to each" in details.text() and "Click a head" in details.text()
    qtbot.mouseClick(summary, Qt.MouseButton.LeftButton)
    assert details.body.isVisible()
