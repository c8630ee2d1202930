"""The heatmaps' image item colours cells exactly as pyqtgraph's ImageItem does — into a 32-bit image up to
RGB_UP_TO cells (issue 18: Qt scales an indexed image on a slow path), an indexed one above — with its
colour table made once per lookup table."""
import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage

import explorer.widgets.lean_image as lean_image
from explorer.widgets.lean_image import RGB_UP_TO, LeanImageItem
from explorer.widgets.palette import colour_map


def pixels(qimage):
    """(rows, cols, 4) uint8 of an image in pyqtgraph's or ours, as Qt draws it (alpha included)."""
    image = qimage.convertToFormat(QImage.Format.Format_ARGB32)
    a = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)
    return a[:, :image.width()].copy()


def both(image, levels, lut):
    """The same image and levels rendered by pyqtgraph's ImageItem (the reference) and by ours."""
    out = []
    for cls in (pg.ImageItem, LeanImageItem):
        item = cls(axisOrder="row-major")
        item.setLookupTable(lut)
        item.setImage(image, autoLevels=False, levels=levels)
        item.render()
        out.append(item)
    return out


LUT = colour_map("diverging").getLookupTable(nPts=256, alpha=False)


@pytest.mark.parametrize("shape, levels", [
    ((4, 4), (-2.0, 2.0)),
    ((7, 64), (-1.0, 1.0)),
    ((500, 300), (-0.5, 3.0)),  # more cells than one band: coloured in several steps
    ((3, 5), (1.0, 1.0)),  # equal levels: pyqtgraph scales by 1
])
def test_cells_have_pyqtgraphs_colours(qapp, shape, levels):
    rng = np.random.default_rng(sum(shape))
    image = rng.normal(0.0, 1.5, shape)  # values beyond the levels on both sides
    image.flat[:3] = [levels[0], levels[1], (levels[0] + levels[1]) / 2]
    reference, ours = both(image, levels, LUT)
    assert ours.qimage.format() == QImage.Format.Format_RGB32  # drawn on Qt's fast path
    np.testing.assert_array_equal(pixels(ours.qimage), pixels(reference.qimage))


def test_a_large_image_stays_indexed_with_pyqtgraphs_colours(qapp):
    rows, cols = 601, 503  # more cells than RGB_UP_TO; lines of a width that is no multiple of 4
    assert rows * cols > RGB_UP_TO
    image = np.random.default_rng(1).normal(0.0, 1.0, (rows, cols))
    reference, ours = both(image, (-2.0, 2.0), LUT)
    assert ours.qimage.format() == QImage.Format.Format_Indexed8
    np.testing.assert_array_equal(pixels(ours.qimage), pixels(reference.qimage))
    ours.setImage(image[::2, ::2], autoLevels=False, levels=(-1.0, 1.0))  # smaller again: 32 bits
    ours.render()
    reference.setImage(image[::2, ::2], autoLevels=False, levels=(-1.0, 1.0))
    reference.render()
    assert ours.qimage.format() == QImage.Format.Format_RGB32
    np.testing.assert_array_equal(pixels(ours.qimage), pixels(reference.qimage))


def test_a_strided_view_and_an_integer_lut_size_below_256(qapp):
    image = np.linspace(-1, 1, 40 * 30).reshape(40, 30)[::3, ::2]  # what a large matrix hands over
    lut = colour_map("sequential").getLookupTable(nPts=100, alpha=False)
    reference, ours = both(image, (-1.0, 1.0), lut)
    np.testing.assert_array_equal(pixels(ours.qimage), pixels(reference.qimage))


def test_images_it_does_not_handle_are_pyqtgraphs(qapp):
    image = np.array([[0.0, np.nan], [1.0, 0.5]])  # NaN is transparent in pyqtgraph
    reference, ours = both(image, (0.0, 1.0), LUT)
    np.testing.assert_array_equal(pixels(ours.qimage), pixels(reference.qimage))
    assert pixels(ours.qimage)[0, 1, 3] == 0


def test_the_colour_table_is_made_once_per_lookup_table(qapp, monkeypatch):
    made = []
    real = lean_image._table
    monkeypatch.setattr(lean_image, "_table", lambda lut: (made.append(1), real(lut))[1])
    item = LeanImageItem(axisOrder="row-major")
    item.setLookupTable(LUT)
    for k in range(5):
        item.setImage(np.full((4, 4), 0.1 * k), autoLevels=False, levels=(-1.0, 1.0))
        item.render()
    assert len(made) == 1
    item.setLookupTable(colour_map("sequential").getLookupTable(nPts=256, alpha=False))
    item.render()
    assert len(made) == 2
