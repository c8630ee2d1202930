"""The Model view in its default dock, at 1024 × 640 and 1600 × 1000: the heads' thumbnails keep a readable
size (beside the next-token table only where both fit, else the table goes under them), and opening a head
scrolls the dock just far enough that the whole of what the model says next is in view."""
import pytest
from PySide6.QtCore import QPoint, QRect

from explorer.model.flow_back import READY
from explorer.panels.model_view.panel import SIDE_CELL
from tests.gui.conftest import open_window
from tests.gui.test_window_small import DEFAULT, SMALL, show_dock

INDUCTION = (1, 0)  # layer 2 head 1 of the shipped model


@pytest.fixture(params=[SMALL, DEFAULT], ids=["1024x640", "1600x1000"])
def sized_window(request, qtbot, home):
    window = open_window(qtbot, size=request.param)
    yield window
    window.model.undo_stack.setClean()


def in_view(widget, scroll):
    """Whether the whole of ``widget`` is inside the scroll area's viewport."""
    viewport = scroll.viewport()
    return viewport.rect().contains(QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size()))


def test_the_thumbnails_keep_a_readable_size(sized_window, qtbot):
    dock = show_dock(sized_window, "model_view")
    panel = dock.widget().widget()
    qtbot.waitUntil(lambda: sized_window.model.checkpoints.latest is not None, timeout=20_000)
    qtbot.wait(50)
    # 28 px (the grid's least) was what they shrank to beside the table in the 1600 × 1000 dock
    assert panel.grid.cell_rect(0, 0).width() >= SIDE_CELL == 44


def test_opening_a_head_shows_the_whole_next_token_table(sized_window, qtbot):
    model = sized_window.model
    dock = show_dock(sized_window, "model_view")
    scroll = dock.widget()
    panel = scroll.widget()
    qtbot.waitUntil(lambda: model.checkpoints.latest is not None, timeout=20_000)
    assert panel.open_head(*INDUCTION)
    model.flow_back.finish()
    qtbot.waitUntil(lambda: model.flow_back.state == READY and not model.flow_back.busy, timeout=20_000)
    table = panel.next_tokens
    qtbot.waitUntil(lambda: table.numbers.isVisible() and in_view(table, scroll), timeout=5000)
    assert table.numbers.text().count("<tr>") == 5  # the five likeliest next tokens, each a row
    assert panel.grid.cell_rect(0, 0).width() >= SIDE_CELL
