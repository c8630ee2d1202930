"""While a large session loads, the worker makes its shown head's ① and ② and then waits until the window has
drawn both (their docks out from under the covers) before it makes the other heads: the drawing has the
cores to itself (issue 18). During a drag it goes on after the turn that drew them, as before. Observed
as an order of events, never timed (the worker's own time limit is raised so it cannot decide)."""
from dataclasses import replace

import pytest

from explorer.core import recompute as rc
from explorer.core.presets import random_session
from explorer.core.session import save_session
from explorer.model import coordinator
from explorer.model import worker as worker_module
from explorer.panels.base import Panel
from tests.gui.conftest import SMALL_ENOUGH


@pytest.fixture
def events(monkeypatch):
    """("head", h) when the worker begins a head other than the first; ("drawn", panel) when a panel
    that reads the results renders them."""
    monkeypatch.setattr(worker_module, "SEEN_WAIT_S", 30.0)
    monkeypatch.setattr(coordinator, "BACKGROUND_COST", SMALL_ENOUGH)
    seen = []
    real_head, real_render = rc.compute_head, Panel._render_stale

    def compute_head(inputs, bufs, h, *args, **kwargs):
        seen.append(("head", h))
        return real_head(inputs, bufs, h, *args, **kwargs)

    def render_stale(panel):
        stale = panel._stale and not panel.waiting()
        real_render(panel)
        if stale and panel.reads_results:
            seen.append(("drawn", type(panel).__name__))

    monkeypatch.setattr(rc, "compute_head", compute_head)
    monkeypatch.setattr(Panel, "_render_stale", render_stale)
    return seen


def test_a_loading_sessions_other_heads_wait_until_its_scores_and_weights_are_drawn(qtbot, window, background,
                                                                                     events, tmp_path):
    s = random_session(48, 16, seed=3)
    path = tmp_path / "big.aesz"
    save_session(replace(s, settings=replace(s.settings, heads=4, selected_head=1)), path)
    loads = window.model.loads
    assert window.documents.open(path, ask=False)
    qtbot.waitUntil(lambda: window.model.loads == loads + 1, timeout=20_000)
    qtbot.waitUntil(lambda: not window.model.computing and not window.model.loading, timeout=20_000)
    first_other = events.index(next(e for e in events if e[0] == "head"))
    drawn_before = {name for kind, name in events[:first_other] if kind == "drawn"}
    assert {"ScoresPanel", "WeightsPanel"} <= drawn_before
    assert sorted(h for kind, h in events if kind == "head") == [0, 2, 3]
