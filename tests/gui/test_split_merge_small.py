"""Split and merge in its dock at the smallest window (1024 × 640: ~398 × 262) and the default one: the blocks
keep names a person can read — written at 9 px or more, never the whole drawing scaled down to 5–6 px
under coloured blocks — and each name sits under its own block, apart from the others."""
import numpy as np
import pytest

from explorer.core.presets import demo_session, grouped_query_session, random_session
from tests.gui.panel_helpers import show_dock
from tests.gui.test_model_view_layout import sized_window  # noqa: F401  (a fixture: 1024 × 640 and 1600 × 1000)

READABLE_PX = 9  # the least text size the app writes anywhere (a 9 px label is read at arm's length)
INK = 110  # a pixel darker than this in every channel is text (the names are near-black on white)
NAMES = {"Q": "Q", "Q heads": "Q per head", "head outputs": "head outputs", "concat": "concat"}


@pytest.mark.parametrize("session, heads", [(demo_session(), None), (random_session(64, 8, seed=1), 4),
                                            (grouped_query_session(), None)], ids=["demo", "L64-4heads", "grouped"])
def test_the_docked_drawing_keeps_readable_names(qtbot, ui, sized_window, session, heads):  # noqa: F811
    model = sized_window.model
    model.set_session(session)
    if heads is not None:
        model.set_param("heads", heads)
    panel = show_dock(qtbot, sized_window, "split_merge")
    model.flush()
    qtbot.wait(30)
    canvas = panel.canvas
    assert canvas.width() <= 600 and canvas.height() <= 330  # (the docked size under test)
    size, detail = canvas.text_px()
    assert canvas.zoom == 1.0 and size >= READABLE_PX, (canvas.zoom, size, detail)
    rgb, dpr = ui.grab_rgb(canvas)
    ink = (rgb < INK).all(axis=2)
    area = canvas.rect()
    placed = []
    for label, name in NAMES.items():
        stage = canvas.stage(label)
        assert stage.title == name  # (English here: translated in 中文)
        under, body = canvas.under_rect(label), canvas.body_rect(label)
        assert area.contains(under.toRect()) and area.contains(body.toRect()), (label, under, body)
        assert under.top() >= body.bottom() - 1  # the name is written under its own block
        top, bottom = int(under.top() * dpr), int(under.bottom() * dpr)
        left, right = int(under.left() * dpr), int(under.right() * dpr)
        rows = np.flatnonzero(ink[top:bottom, left:right].any(axis=1))
        assert rows.size, (label, "no name written")
        # the first line (the name, bold) is as tall as a 9 px font's letters: 6 px of ink at the least
        first_line = rows[rows <= rows[0] + size * dpr]
        assert first_line[-1] - first_line[0] + 1 >= 6 * dpr, (label, first_line)
        placed.append((label, under))
    for i, (a, ra) in enumerate(placed):
        for b, rb in placed[i + 1:]:
            assert not ra.intersects(rb), (a, b)
    sized_window.model.undo_stack.setClean()
