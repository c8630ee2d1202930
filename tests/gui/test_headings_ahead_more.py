"""Beside ①②③ and Heads, the Attention lines and Split and merge headings follow a new head count at once
while a large session's results are recomputed on the worker (they named the old one for as long as the
recompute took); the Positions heading reads the positions setting."""
from explorer.panels.lines import AttentionLinesPanel
from explorer.panels.positions import PositionsPanel
from explorer.panels.split_merge import SplitMergePanel
from tests.gui.test_headings_ahead import captions, on_the_worker  # noqa: F401 (a fixture)

PANELS = (AttentionLinesPanel, SplitMergePanel, PositionsPanel)
PANEL_HEIGHT = 500


def seen_first(qtbot, model, panels, name, value):
    """(whether the results were still the old ones, the captions) when the new setting was first told."""
    seen = []
    model.state_changed.connect(lambda flags: seen.append((model.pending, captions(panels))))
    model.changed.connect(lambda flags: seen.append((model.pending, captions(panels))))
    model.set_param(name, value)
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    return seen[0]


def test_a_new_head_count_is_in_the_lines_and_split_headings_before_its_results(qtbot, on_the_worker):
    model, panels = on_the_worker
    assert "Head 1 of 1." in captions(panels)[0] and "H = 1 head of d_h = 8" in captions(panels)[1]
    pending, (lines, split, _) = seen_first(qtbot, model, panels, "heads", 4)
    assert pending  # the results are still the old ones …
    assert "Head 1 of 4." in lines  # … the headings are the new settings': 8 / 4 = 2 wide heads
    assert "H = 4 heads of d_h = 2" in split and "1/√2 = 0.7071" in split
    model.flush()
    qtbot.waitUntil(lambda: model.results.n_heads == 4)
    assert captions(panels)[:2] == [lines, split]  # the results bring the same headings


def test_the_positions_heading_names_alibi_as_soon_as_it_is_chosen(qtbot, on_the_worker):
    """(ALiBi's bias is recomputed at once, not on the worker: the heading, read from the setting now, is right
    from the first signal either way.)"""
    model, panels = on_the_worker
    assert "Sinusoidal positions" in captions(panels)[2]
    _, (*_, positions) = seen_first(qtbot, model, panels, "positions", "alibi")
    assert positions.startswith("<b>ALiBi</b>")
    model.flush()
    assert captions(panels)[2] == positions
