"""A resize colours the heatmap's pixels again only when it re-samples the matrix (offscreen, pytest-qt)."""
import numpy as np

from tests.gui.test_heatmap import make


def count_renders(monkeypatch, h):
    calls = []
    render = h.image_item.render
    monkeypatch.setattr(h.image_item, "render", lambda *a, **k: (calls.append(1), render(*a, **k))[1])
    return calls


def test_a_resize_that_keeps_the_sampling_keeps_the_pixels(qtbot, monkeypatch):
    h = make(qtbot, size=(520, 460))
    values = np.array([[0.0, 1.0], [1.0, 0.0]])
    h.set_matrix(values, row_labels=["a", "b"], col_labels=["c", "d"], levels=(0.0, 1.0))
    before = h.image_item.qimage.copy()
    calls = count_renders(monkeypatch, h)
    width = h.plot.getViewBox().width()
    h.resize(640, 560)
    qtbot.waitUntil(lambda: h.plot.getViewBox().width() != width)
    h.grab()
    assert h._stride == (1, 1) and calls == []  # cell for cell before and after: nothing to colour again
    assert h.image_item.qimage == before


def test_a_resize_that_resamples_colours_the_new_samples_at_once(qtbot, monkeypatch):
    h = make(qtbot, size=(400, 360))
    n = 3000
    values = np.zeros((n, n))
    values[::40, ::40] = 1.0
    labels = [f"t{i}" for i in range(n)]
    h.set_matrix(values, row_labels=labels, col_labels=labels, levels=(0.0, 1.0), finite=True)
    stride = h._stride
    calls = count_renders(monkeypatch, h)
    h.resize(800, 700)
    qtbot.waitUntil(lambda: h._stride[0] < stride[0])
    assert calls and h.image_item.qimage is not None  # coloured now, not at a later paint
    fy, fx = h._stride
    np.testing.assert_array_equal(h.image_item.image, values[::fy, ::fx])
