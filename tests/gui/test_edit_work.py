"""The work one Q-cell edit does at L = 4 (issue 18, second pass): counted, never timed.

An edit of another row than the Readout's colours each heatmap's image once, sets no axis ticks,
moves no outline, shares out no editor width, announces once and makes one undo step; what the
heatmaps keep from one matrix to the next (ticks, label texts) still follows every change of labels,
notes and flags; the editor widens its columns when a number needs it.
"""
import numpy as np

from explorer.widgets.heatmap import Heatmap
from tests.gui.test_edit_paints import HEATMAPS, edit, ready, settle
from tests.gui.test_edit_repaints import counting
from tests.gui.test_heatmap import make

SIDES = ("left", "top", "right", "bottom")


def test_an_edit_of_another_row_colours_each_heatmap_once_and_sets_nothing_else(qtbot, window, monkeypatch):
    ready(qtbot, window)
    model = window.model
    other = (model.settings.selected_row + 1) % len(model.tokens)
    edit(window, other, 0)  # the first edit may still settle sizes
    settle(window)
    heatmaps = {name: window.panels[name].heatmap for name in HEATMAPS}
    renders = {name: counting(monkeypatch, h.image_item, "render") for name, h in heatmaps.items()}
    ticks = {(name, side): counting(monkeypatch, h.plot.getAxis(side), "setTicks")
             for name, h in heatmaps.items() for side in SIDES}
    outlines = {name: counting(monkeypatch, h._outline_item, "update") for name, h in heatmaps.items()}
    shares = counting(monkeypatch, window.panels["editor"], "_share_width")
    changed, history = [], []
    model.changed.connect(changed.append)
    model.history_moved.connect(history.append)
    steps = model.undo_stack.count()
    edits = 4
    for k in range(edits):
        edit(window, other, k % 2)
    assert {name: len(calls) for name, calls in renders.items()} == dict.fromkeys(HEATMAPS, edits)
    assert not any(ticks.values()), {key: len(calls) for key, calls in ticks.items() if calls}
    assert not any(outlines.values()), {name: len(calls) for name, calls in outlines.items()}
    assert shares == []
    assert len(changed) == edits and len(history) == edits
    assert model.undo_stack.count() == steps + edits
    # and what they show is the model's latest numbers, coloured by the colour map at the levels shown
    r, head = model.results, model.settings.selected_head
    np.testing.assert_array_equal(heatmaps["scores"].image_array(), r.heads.scores[head])
    np.testing.assert_array_equal(heatmaps["weights"].image_array(), r.heads.weights[head])
    np.testing.assert_array_equal(heatmaps["output"].image_array(), r.heads.output)
    h = heatmaps["weights"]
    lo, hi = h.levels()
    pixels = h.image_item.qimage
    for (i, j) in ((other, 0), (other, 1)):
        index = min(255, max(0, int(np.floor((r.heads.weights[head][i, j] - lo) * 256 / (hi - lo)))))
        colour = pixels.pixelColor(j, i)
        assert (colour.red(), colour.green(), colour.blue()) == tuple(int(c) for c in h.image_item.lut[index])


def test_ticks_follow_new_labels_notes_and_flags_and_no_more(qtbot, monkeypatch):
    h = make(qtbot)
    values = np.arange(9.0).reshape(3, 3) / 10
    rows, cols = ("a", "b", "c"), ("x", "y", "z")
    h.set_matrix(values, row_labels=rows, col_labels=cols, levels=(0.0, 1.0), row_notes=["n0", "n1", "n2"])
    left, right = counting(monkeypatch, h.plot.getAxis("left"), "setTicks"), counting(
        monkeypatch, h.plot.getAxis("right"), "setTicks")
    h.set_matrix(values + 0.01, row_labels=rows, col_labels=cols, levels=(0.0, 1.0), row_notes=["n0", "n1", "n2"])
    h.set_matrix(values, row_labels=tuple("abc"), col_labels=list(cols), levels=(0.0, 1.0),  # equal, not the same
                 row_notes=["n0", "n1", "n2"])
    assert left == [] and right == []
    labels = ["a", "b", "c"]
    h.set_matrix(values, row_labels=labels, col_labels=cols, levels=(0.0, 1.0), row_notes=["n0", "n1", "n2"])
    labels[1] = "B"  # the same list, changed in place
    h.set_matrix(values, row_labels=labels, col_labels=cols, levels=(0.0, 1.0), row_notes=["n0", "n1", "n2"])
    assert h.ticks("left") == [(0, "a"), (1, "B"), (2, "c")]
    h.set_matrix(values, row_labels=labels, col_labels=cols, levels=(0.0, 1.0), row_notes=["n0", "N1", "n2"])
    assert h.ticks("right") == [(0, "n0"), (1, "N1"), (2, "n2")]
    h.set_matrix(values, row_labels=labels, col_labels=cols, levels=(0.0, 1.0), row_notes=["n0", "N1", "n2"],
                 flagged_rows=[False, False, True])
    assert h.ticks("left")[2] == (2, "⚠ c")
    h.set_matrix(values, row_labels=labels, col_labels=("x", "Y", "z"), levels=(0.0, 1.0), row_notes=None,
                 flagged_rows=[False, False, True])
    assert h.ticks("top") == [(0, "x"), (1, "Y"), (2, "z")] and h.ticks("right") == [(0, ""), (1, ""), (2, "")]


def test_a_resize_still_thins_the_labels(qtbot):
    """Ticks kept between matrices are still re-made when the heatmap's size changes."""
    h = make(qtbot, size=(520, 460))
    n = 40
    values = np.zeros((n, n))
    labels = tuple(f"token{i}" for i in range(n))
    h.set_matrix(values, row_labels=labels, col_labels=labels, levels=(0.0, 1.0))
    qtbot.wait(10)
    wide = len(h.ticks("top"))
    h.resize(260, 460)
    qtbot.waitUntil(lambda: len(h.ticks("top")) < wide)
    h.set_matrix(values + 0.5, row_labels=labels, col_labels=labels, levels=(0.0, 1.0))
    assert len(h.ticks("top")) < wide


def test_the_editor_shares_out_its_width_when_a_number_needs_more(qtbot, window, monkeypatch):
    ready(qtbot, window)
    editor = window.panels["editor"]
    view = editor.views["Q"]
    shares = counting(monkeypatch, editor, "_share_width")
    table = editor.tables["Q"]
    assert table.setData(table.index(1, 0), "0.5")  # as short as what is there
    window.model.flush()
    assert shares == []
    before = view.column_fit.width
    assert table.setData(table.index(1, 0), "-12345.678")
    window.model.flush()
    assert view.column_fit.width > before and len(shares) == 1
    line, names = editor._lines[0]
    assert line.stretch(names.index("Q")) == view.column_fit.needed_width()


def test_one_typed_value_is_refused_as_a_block_of_it_is(window):
    model = window.model
    for bad in (np.inf, -np.inf, np.nan, 1e7):
        one, block = model.set_cell("Q", 1, 0, bad), model.set_block("Q", 1, 0, np.array([[bad, 0.0]]))
        assert not one and not block and one.reason == block.reason
    steps = model.undo_stack.count()
    assert model.set_cell("Q", 1, 0, float(model.matrix("Q")[1, 0]))  # the value it has: no step
    assert model.undo_stack.count() == steps


def test_a_heatmap_colours_its_text_as_it_colours_its_cells(qtbot):
    """White or dark numbers chosen from the colour each cell is drawn in (a table per colour map)."""
    from explorer.widgets.cell_text import contrast_is_white
    from explorer.widgets.heatmap_overlays import MASK_FILL

    h = Heatmap(cmap="diverging")
    qtbot.addWidget(h)
    values = np.linspace(-1, 1, 16).reshape(4, 4)
    masked = np.zeros((4, 4), bool)
    masked[0, 3] = True
    h.set_matrix(values, row_labels=list("abcd"), col_labels=list("abcd"), levels=(-1.0, 1.0), masked=masked)
    index = np.clip(np.floor((values + 1.0) * 128.0), 0, 255).astype(int)
    expected = contrast_is_white(h.image_item.lut[index])
    expected[0, 3] = contrast_is_white(np.array([[MASK_FILL.red(), MASK_FILL.green(), MASK_FILL.blue()]], np.uint8))[0]
    np.testing.assert_array_equal(h._text_item._white, expected)
