"""Panels are built when their dock first shows (or when code asks for them), not at start-up.

At start only the docks on screen get their panels (the Readout just after the first paint); a
dock behind another dock's tab, or closed, holds an empty scroll area until it is raised, shown or
``window.panels[name]`` is read — which always returns the real, built panel.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from explorer.app import take_screenshot
from explorer.main_window import DOCKS
from tests.gui.conftest import open_window

ROOT = Path(__file__).resolve().parents[2]
SHOWN = ("editor", "controls", "scores", "weights", "output", "readout")  # the default layout's front docks
BEHIND = ("lesson", "sqrt_d", "lines", "heads", "split_merge", "positions", "rope", "generation", "model_view",
          "block", "efficient", "flash", "qk_space", "sensitivity", "ab_diff")  # tabs behind those


def on_screen(window, name):
    dock = window.docks[name]
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def wait_built(qtbot, window, name):
    qtbot.waitUntil(lambda: window.panels.is_built(name), timeout=3000)
    return window.panels[name]


def test_only_the_docks_on_screen_are_built_at_start(qtbot, window):
    assert set(SHOWN) | set(BEHIND) == {spec.name for spec in DOCKS}
    assert set(window.panels.built()) == set(SHOWN)
    for name in BEHIND:
        assert not on_screen(window, name), name
        assert window.docks[name].widget().widget() is None, name  # the cheap placeholder: an empty scroll area
    for name in SHOWN:
        assert window.docks[name].widget().widget() is window.panels.built()[name], name


def test_every_panel_on_screen_is_built_before_the_window_first_paints(qtbot, home):
    """The window appears complete: no dock on screen is left blank for a later turn (issue 18: the
    Readout built after the first paint made the window lay out and paint twice)."""
    from explorer.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window, before_close_func=lambda w: w.model.undo_stack.setClean())
    window.resize(1600, 1000)
    window.show()  # (no event processed yet: nothing painted)
    assert set(window.panels.built()) == set(SHOWN) and not window.waiting_panels()
    for name in SHOWN:
        assert window.docks[name].widget().widget() is window.panels[name], name


def test_raising_a_tab_builds_its_panel_and_it_draws(qtbot, window):
    from explorer.panels.rope import RopePanel

    assert not window.panels.is_built("rope")
    window.docks["rope"].raise_()
    panel = wait_built(qtbot, window, "rope")
    assert isinstance(panel, RopePanel)
    assert panel.objectName() == "ropePanel"
    assert window.docks["rope"].widget().widget() is panel
    qtbot.waitUntil(lambda: on_screen(window, "rope") and panel.isVisible())
    assert panel._on_screen and not panel._stale  # drawn, and told it is in front
    window.docks["readout"].raise_()
    qtbot.waitUntil(lambda: not panel._on_screen)  # behind again: it waits, as before
    for name in ("lines", "heads", "split_merge", "positions"):
        assert not window.panels.is_built(name), name  # raising one tab builds only that one


def test_reading_window_panels_builds_on_access(qtbot, window):
    from explorer.panels.heads import HeadsPanel

    assert "heads" in window.panels and not window.panels.is_built("heads")  # `in` does not build
    assert list(window.panels) == [spec.name for spec in DOCKS] and len(window.panels) == len(DOCKS)
    assert not window.panels.is_built("heads")  # nor do iterating and len()
    panel = window.panels["heads"]
    assert isinstance(panel, HeadsPanel) and window.panels.is_built("heads")
    assert window.panels["heads"] is panel and window.panels.get("heads") is panel  # built once
    assert window.docks["heads"].widget().widget() is panel
    assert panel.heatmaps and not panel._stale  # it drew the model although its tab is behind
    assert not panel._on_screen  # and knows it is behind
    with pytest.raises(KeyError):
        window.panels["nope"]
    assert "nope" not in window.panels
    # a panel built behind its tab still follows the model once raised
    window.model.set_param("heads", 3)
    window.model.flush()
    assert len(panel.heatmaps) == 1  # behind its tab: not redrawn yet
    window.docks["heads"].raise_()
    qtbot.waitUntil(lambda: len(panel.heatmaps) == 3)


def test_values_and_items_build_every_panel(qtbot, window):
    panels = dict(window.panels.items())
    assert list(panels) == [spec.name for spec in DOCKS]
    assert set(window.panels.built()) == {spec.name for spec in DOCKS}
    for name, panel in panels.items():
        assert panel.objectName() == f"{name}Panel"
        assert window.docks[name].widget().widget() is panel


def test_a_closed_dock_is_built_when_the_view_menu_shows_it(qtbot, window):
    dock = window.docks["sqrt_d"]
    dock.close()
    QApplication.processEvents()
    assert not window.panels.is_built("sqrt_d") and not dock.isVisible()
    window.actions["view_sqrt_d"].trigger()  # back into its tab group, behind the front tab
    QApplication.processEvents()
    assert dock.isVisible()
    assert window.panels.is_built("sqrt_d") == on_screen(window, "sqrt_d")
    dock.raise_()
    panel = wait_built(qtbot, window, "sqrt_d")
    qtbot.waitUntil(lambda: on_screen(window, "sqrt_d") and panel.isVisible())
    # a floating dock is on screen as soon as the View menu shows it again
    window.docks["rope"].close()
    window.docks["rope"].setFloating(True)
    QApplication.processEvents()
    assert not window.panels.is_built("rope")
    window.actions["view_rope"].trigger()
    rope = wait_built(qtbot, window, "rope")
    qtbot.waitUntil(rope.isVisible)


def test_a_floating_dock_is_built_when_shown(qtbot, window):
    dock = window.docks["lines"]
    dock.setFloating(True)
    dock.show()
    panel = wait_built(qtbot, window, "lines")
    qtbot.waitUntil(panel.isVisible)


def test_reset_layout_builds_only_what_it_leaves_on_screen(qtbot, window):
    wait_built(qtbot, window, "readout")
    window.docks["heads"].raise_()
    wait_built(qtbot, window, "heads")
    window.reset_layout()  # restoreState shows and hides docks in passing
    QApplication.processEvents()
    assert set(window.panels.built()) == set(SHOWN) | {"heads"}
    assert on_screen(window, "readout") and not on_screen(window, "heads")
    assert window.panels["heads"]._on_screen is False


def test_a_saved_layout_with_another_tab_in_front(qtbot, home, ui):
    first = ui.open_window(qtbot)
    first.docks["rope"].raise_()
    first.docks["sqrt_d"].raise_()
    wait_built(qtbot, first, "rope")
    first.save_layout()  # what closing the window does
    second = ui.open_window(qtbot)  # restores the layout from the settings before it is shown
    rope = wait_built(qtbot, second, "rope")
    wait_built(qtbot, second, "sqrt_d")
    qtbot.waitUntil(lambda: on_screen(second, "rope") and rope.isVisible())
    assert not second.panels.is_built("readout") and not second.panels.is_built("controls")  # behind tabs now
    second.reset_layout()
    wait_built(qtbot, second, "readout")
    wait_built(qtbot, second, "controls")


def test_session_layout_applied_to_a_shown_window(qtbot, window):
    wait_built(qtbot, window, "readout")
    state = window.layout_state()
    window.docks["positions"].raise_()
    wait_built(qtbot, window, "positions")
    layout = window.layout_state()
    window.apply_layout(state, geometry=False)
    assert not window.panels.is_built("rope")
    window.apply_layout(layout, geometry=False)
    assert on_screen(window, "positions")
    assert not window.panels.is_built("rope")


def test_menu_actions_reach_panels_that_are_not_built(qtbot, window):
    window.actions["shuffle"].trigger()  # reads the Positions panel's seed and raises its dock
    assert window.panels.is_built("positions")
    qtbot.waitUntil(lambda: on_screen(window, "positions"))
    lesson = window.panels["lesson"]  # its wiring to the docks is made when it is built
    lesson.showPanel.emit("rope")
    rope = wait_built(qtbot, window, "rope")
    qtbot.waitUntil(lambda: on_screen(window, "rope") and rope.isVisible())


def test_exporting_a_panel_that_was_never_shown(qtbot, window, tmp_path):
    """Its tab comes to the front, so the picture is the panel laid out at its dock's size (it was
    a never-shown sliver of ~360 × 200 pixels), and it is drawn."""
    path = tmp_path / "split.png"
    assert window.documents.export_panel("split_merge", path)
    assert path.exists() and window.panels.is_built("split_merge")
    assert on_screen(window, "split_merge")
    picture, panel = QImage(str(path)), window.panels["split_merge"]
    assert (picture.width(), picture.height()) == (panel.width(), panel.height())
    assert panel.width() >= window.docks["split_merge"].width() - 20
    assert not window.panels.is_built("rope")
    assert window.documents.export_window(tmp_path / "window.png")
    assert not window.panels.is_built("rope")  # the window picture needs only what is on it


def test_screenshot_shows_real_panels_for_every_dock_on_screen(qtbot, home, tmp_path):
    from explorer.main_window import MainWindow

    window = MainWindow(persist_layout=False, recovery=False)
    qtbot.addWidget(window, before_close_func=lambda w: w.model.undo_stack.setClean())
    window.resize(1600, 1000)
    assert take_screenshot(QApplication.instance(), window, str(tmp_path / "shot.png")) == 0
    assert (tmp_path / "shot.png").exists()
    for spec in DOCKS:
        assert window.panels.is_built(spec.name) == on_screen(window, spec.name), spec.name



def test_a_screenshot_waits_for_the_readout_to_be_laid_out(qtbot, home, tmp_path):
    """At 1024 × 640 the Readout's header for 1024 keys ("… (1019 more, Σw = …)") wraps to three lines when it first
    draws; the picture was taken one layout pass early, the plane lying over the bars' axis and its labels."""
    from explorer.core.presets import random_session
    from explorer.main_window import MainWindow

    window = MainWindow(random_session(1024, 8, seed=3), persist_layout=False, recovery=False)
    qtbot.addWidget(window, before_close_func=lambda w: w.model.undo_stack.setClean())
    window.resize(1024, 640)
    seen, grab = [], window.grab

    def look(*args):
        readout = window.panels["readout"]
        seen.append((readout.bars.geometry(), readout.plane.geometry()))
        return grab(*args)

    window.grab = look
    assert take_screenshot(QApplication.instance(), window, str(tmp_path / "shot.png")) == 0
    (bars, plane), = seen
    assert not bars.intersects(plane)

# Not needed to show the window: imported where they are used (numpy.ma came with np.unique, ~30 ms;
# html with its table of entities, for escape, ~1.5 ms: explorer/widgets/html_escape.py; the session
# reader and writer, JSON and the matrix files' module: a start opens no file, ~6 ms).
IMPORTED_LATER = ("scipy", "matplotlib", "numpy.ma", "platformdirs", "difflib", "html", "json",
                  "explorer.core.session_read", "explorer.core.session_write", "explorer.core.matrix_io")
STARTUP = f"IMPORTED_LATER = {IMPORTED_LATER!r}\n" + textwrap.dedent('''
    import os, sys
    from explorer.main_window import MainWindow
    from PySide6.QtWidgets import QApplication
    loaded = list(sys.modules)  # in the order they were loaded
    app = QApplication([])
    window = MainWindow(persist_layout=False, recovery=False)
    window.resize(1600, 1000)
    window.show()
    for _ in range(5):
        app.processEvents()
    modules = sorted(m for m in sys.modules if m.startswith("explorer.panels.") or m in IMPORTED_LATER)
    import json
    print(json.dumps({"modules": modules, "built": list(window.panels.built()),
                      "numpy_before_qt": loaded.index("numpy") < loaded.index("PySide6")}), flush=True)
    window.close()
    os._exit(0)
''')


def test_modules_of_panels_behind_tabs_are_not_imported_at_start(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ATTENTION_EXPLORER_HOME=str(tmp_path / "home"))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", STARTUP], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=90)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(result["built"]) == set(SHOWN)
    modules = set(result["modules"])
    for name in BEHIND:
        spec = next(s for s in DOCKS if s.name == name)
        assert f"explorer.panels.{spec.panel.rpartition('.')[0]}" not in modules, name
    assert "explorer.panels.scores" in modules
    assert not modules & set(IMPORTED_LATER), modules & set(IMPORTED_LATER)
    # PySide6 reads the source of every module loaded after it: NumPy's ~150 come first, as in pyqtgraph
    assert result["numpy_before_qt"]


def test_dock_titles_are_styled_without_a_style_sheet(qtbot, window):
    app = QApplication.instance()
    assert app.styleSheet() == ""  # a style sheet would route every widget's painting through QStyleSheetStyle
    from explorer.style import DockTitleStyle
    for name in SHOWN:  # the docks on screen have their title band
        assert isinstance(window.docks[name].style(), DockTitleStyle), name
    for name in BEHIND:  # a dock behind a tab shows no title bar: styled when it first shows (see style_dock)
        assert not isinstance(window.docks[name].style(), DockTitleStyle), name
    for name in ("heads", "sqrt_d"):
        window.docks[name].raise_()
        qtbot.waitUntil(lambda name=name: on_screen(window, name), timeout=3000)
        assert isinstance(window.docks[name].style(), DockTitleStyle), name
    window.docks["rope"].setFloating(True)  # floated from behind a tab: its own window, with a title bar
    window.docks["rope"].show()
    qtbot.waitUntil(lambda: isinstance(window.docks["rope"].style(), DockTitleStyle), timeout=3000)
    table = window.panels["editor"].views["Q"]
    assert not isinstance(table.style(), DockTitleStyle)  # children keep the application's style
    assert window.statusBar().palette().color(window.statusBar().foregroundRole()).name() == "#333333"


def test_the_docks_behind_tabs_cost_no_python_style_calls_at_start(qtbot, home, monkeypatch):
    """Qt asks a dock's style for its title margin and frame hundreds of times while the window is built,
    into Python for a DockTitleStyle: 6 540 calls at start-up when all 15 docks had it (~17 ms of CPU).
    Only the six docks on screen have it now; the calls are counted, not timed."""
    from explorer.style import DockTitleStyle

    calls = {}
    base = DockTitleStyle.pixelMetric

    def counted(self, metric, option=None, widget=None):
        name = widget.objectName() if widget is not None else ""
        calls[name] = calls.get(name, 0) + 1
        return base(self, metric, option, widget)

    monkeypatch.setattr(DockTitleStyle, "pixelMetric", counted)
    # a new style object: PySide remembers which Python methods an existing one overrides
    monkeypatch.delattr(QApplication.instance(), "_dock_title_style", raising=False)
    window = open_window(qtbot)
    wait_built(qtbot, window, "readout")
    qtbot.wait(50)
    assert calls, "the docks on screen ask their title style"
    assert set(calls) <= set(SHOWN) | {""}, set(calls) - set(SHOWN)
    assert sum(calls.values()) < 6540 * len(SHOWN) / len(DOCKS)
