"""Issue 14, "What a new user met in the first hour": what a first look at the window showed wrong."""
from tests.gui.test_open_large_in_background import HEATMAPS, big_session, covers, start_window, wait_until_shown


def test_a_large_session_given_at_start_is_covered_edge_to_edge_and_shows_no_lesson_controls(qtbot, home, gate,
                                                                                           tmp_path):
    """Covers made before the window is first shown follow their views to their real size, and
    what only a lesson shows (the Reveal buttons, "stays hidden until ③") stays out of sight."""
    window = start_window(qtbot, big_session(seed=5), tmp_path / "big.json")
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.panels.is_built("readout"), timeout=5_000)
    assert covers(window)
    for name in (*HEATMAPS, "readout"):  # the docks on screen in the default layout
        cover = window.covers.covers[name]
        assert cover.isVisible() and cover.geometry() == window.docks[name].widget().rect()
        assert cover.width() > 300 and cover.height() > 200
    for name in HEATMAPS:
        assert not window.panels[name].reveal_button.isVisible()
    assert not window.panels["readout"].hidden_label.isVisible()
    gate.open()
    wait_until_shown(qtbot, window)
    for name in HEATMAPS:
        assert not window.panels[name].reveal_button.isVisible()
    assert not window.panels["readout"].hidden_label.isVisible()
