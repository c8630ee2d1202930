"""A session's dock layout opened in a window of another size keeps where the docks are and takes this
window's default shares for their sizes (a layout saved at 1600 × 1000 crushed ① Scores to ~180 px of a
1024 × 640 window); at the size it was saved at, the person's own dock sizes come back."""
from PySide6.QtCore import Qt

from tests.gui.conftest import open_window


def widths(window, *names):
    return [window.docks[name].width() for name in names]


def test_a_layout_from_a_larger_window_fits_a_small_one(qtbot, home):
    big = open_window(qtbot, size=(1600, 1000))
    big.resizeDocks([big.docks["scores"], big.docks["weights"]], [300, 600], Qt.Horizontal)  # the person's own
    big.docks["lines"].raise_()
    qtbot.wait(20)
    layout = big.layout_state()
    assert layout["size"] == "1600x1000"

    small = open_window(qtbot, size=(1024, 640))
    small.apply_layout(layout, geometry=False)
    qtbot.wait(20)
    scores, weights = widths(small, "scores", "weights")
    # the default shares: ① and ② half each of the right column (by hand: within a few pixels of each other)
    assert abs(scores - weights) <= 0.1 * (scores + weights), (scores, weights)
    assert scores >= 0.2 * small.width()
    # where the docks are is kept: the lines in front of their tab group
    assert not small.docks["lines"].visibleRegion().isEmpty()
    assert small.docks["readout"].visibleRegion().isEmpty()


def test_at_its_own_size_a_layout_keeps_the_persons_dock_sizes(qtbot, home):
    first = open_window(qtbot, size=(1600, 1000))
    first.resizeDocks([first.docks["scores"], first.docks["weights"]], [300, 600], Qt.Horizontal)
    qtbot.wait(20)
    layout, kept = first.layout_state(), widths(first, "scores", "weights")
    assert kept[1] > 1.5 * kept[0]

    again = open_window(qtbot, size=(1600, 1000))
    again.apply_layout(layout, geometry=False)
    qtbot.wait(20)
    assert widths(again, "scores", "weights") == kept


def test_a_layout_without_a_size_is_put_back_as_saved(qtbot, home):
    """Sessions of earlier versions say no size: their docks come back as saved."""
    first = open_window(qtbot, size=(1600, 1000))
    first.resizeDocks([first.docks["scores"], first.docks["weights"]], [300, 600], Qt.Horizontal)
    qtbot.wait(20)
    layout = {k: v for k, v in first.layout_state().items() if k != "size"}
    kept = widths(first, "scores", "weights")
    again = open_window(qtbot, size=(1600, 1000))
    again.apply_layout(layout, geometry=False)
    qtbot.wait(20)
    assert widths(again, "scores", "weights") == kept
