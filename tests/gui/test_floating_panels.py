"""A panel opened floating (explorer/floating_panels.py): all of it readable where the screen allows, growing
with its content, and placed where it hides least of the panel the person works in, the stages, the window."""
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import (QApplication, QDockWidget, QFrame, QGridLayout, QLabel, QMainWindow, QScrollArea,
                               QWidget)

from explorer.dock_layout import open_panel
from explorer.floating_panels import placed


def settle():
    for _ in range(4):
        QApplication.processEvents()


def test_a_screen_wider_than_the_window_takes_the_panel_beside_it():
    # a 1024 × 640 window at the top left of a 2000 × 1000 screen; the editor is its top-left 358 × 320
    room, window = QRect(0, 0, 2000, 1000), QRect(0, 0, 1024, 640)
    rect = placed(QSize(700, 600), room, window, QPoint(308, 48), [QRect(0, 0, 358, 320)], [QRect(358, 0, 666, 320)])
    assert rect == QRect(1024, 48, 700, 600)  # just right of the window, at the preferred height: covers nothing


def test_a_maximised_window_keeps_the_working_panel_uncovered_then_the_stages():
    # 1600 × 1000 filled by the window: the editor (working) is the left 640 × 500, ① ② the right's top 960 × 560
    room = window = QRect(0, 0, 1600, 1000)
    editor, stages = QRect(0, 0, 640, 500), [QRect(640, 0, 960, 560)]
    rect = placed(QSize(800, 700), room, window, QPoint(784, 48), [editor], stages)
    # no place misses ① ②; the least of them is covered at the screen's bottom right of the editor: the
    # panel's top at 1000 − 700 = 300, over 560 − 300 = 260 rows of them (16 px higher it would cover 276)
    assert rect == QRect(784, 300, 800, 700)
    assert not rect.intersects(editor)
    too_big = placed(QSize(2000, 1200), room, window, QPoint(0, 0))
    assert too_big == room  # never larger than the screen


def test_a_panel_floated_over_another_leaves_its_title_bar_uncovered():
    # 1024 × 640 filled by the window; a panel floats at its right, 760 × 640 with a 28 px title bar. Another as
    # large goes just below that title bar (28 + 4 px gap), as far left as preferred, 32 px shorter to stay on screen
    room = window = QRect(0, 0, 1024, 640)
    rect = placed(QSize(760, 640), room, window, QPoint(264, 0), titles=[QRect(264, 0, 760, 28)])
    assert rect == QRect(264, 32, 760, 608)
    # a title bar at the screen's bottom too (a short panel there): the new one ends 4 px above it
    rect = placed(QSize(760, 640), room, window, QPoint(264, 0), titles=[QRect(264, 0, 760, 28), QRect(0, 450, 780, 28)])
    assert rect == QRect(264, 32, 760, 450 - 4 - 32)


class Arranged(QWidget):
    """A panel that arranges itself by its width, as RoPE does: two columns of 300 × 300 tiles from 600 px on,
    else one column (600 tall)."""

    def __init__(self):
        super().__init__()
        self.tiles = [QFrame(self), QFrame(self)]
        for tile in self.tiles:
            tile.setMinimumSize(300, 300)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(0)
        self.resizeEvent(None)

    def resizeEvent(self, event):
        wide = self.width() >= 600
        for i, tile in enumerate(self.tiles):
            self.grid.addWidget(tile, 0 if wide else i, i if wide else 0)


def a_window_with(panel, screen_height):
    window = QMainWindow()
    dock = QDockWidget("panel", window)
    dock.setObjectName("panel")
    scroll = QScrollArea(dock)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.NoFrame)
    scroll.setWidget(panel)
    dock.setWidget(scroll)
    window.addDockWidget(Qt.RightDockWidgetArea, dock)
    window.setCentralWidget(QLabel("the work"))
    window.docks, window.floated_once = {"panel": dock}, set()
    window.resize(780, 500)
    window.resizeDocks([dock], [150], Qt.Horizontal)  # its docked place too narrow: it opens floating
    return window, dock


def test_a_panel_opened_floating_is_given_the_width_at_which_it_shows_whole(qtbot):
    window, dock = a_window_with(Arranged(), 800)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    open_panel(window, dock, (400, 250))
    settle()
    scroll = dock.widget()
    chrome = dock.height() - scroll.height()
    # one column needs 600 px, the screen has 800: 400 wide (its readable width), 600 tall, nothing scrolled
    assert dock.isFloating() and scroll.width() == 400 and scroll.height() == 600 and chrome >= 0
    assert scroll.verticalScrollBar().maximum() == 0


def test_a_floating_panel_grows_with_its_content_and_goes_wider_when_that_makes_it_short_enough(qtbot):
    window, dock = a_window_with(Arranged(), 800)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    panel = dock.widget().widget()
    panel.tiles[1].hide()  # one tile: 300 × 300
    open_panel(window, dock, (300, 300))
    settle()
    assert (dock.widget().width(), dock.widget().height()) == (300, 300)
    for tile in panel.tiles:  # taller tiles: one column would need 2 × 450 = 900 > 800, two columns 450
        tile.setMinimumSize(300, 450)
    panel.tiles[1].show()
    for _ in range(3):
        settle()
        qtbot.wait(10)
    scroll = dock.widget()
    # two columns fit from 600 px on: the first 40 px step from 300 at or past it is 300 + 8 × 40 = 620
    assert (scroll.width(), scroll.height()) == (620, 450)
    assert scroll.verticalScrollBar().maximum() == 0
    assert window.screen().availableGeometry().contains(dock.geometry())


def test_the_block_opened_in_direct_mode_floats_only_as_tall_as_its_sentence_then_grows(qtbot, home):
    """Q, K, V edited directly, the Transformer block is one sentence and a button: opened from the View menu it
    floated 780 × 600 and mostly empty (its readable size is the drawn block's). It takes its sentence's height, and
    grows when the person switches to projected mode and the block is drawn."""
    from explorer.main_window import SPECS
    from explorer.dock_layout import open_panel
    from tests.gui.conftest import open_window

    window = open_window(qtbot, persist_layout=False, recovery=False)
    dock, readable = window.docks["block"], SPECS["block"].readable
    open_panel(window, dock, readable)
    panel = window.panels["block"]
    qtbot.waitUntil(lambda: dock.isFloating())
    assert panel.chain.isHidden() and dock.height() < readable[1] / 2
    assert not dock.widget().verticalScrollBar().isVisible()  # the sentence and the button whole
    panel.make_ready.click()  # Switch to projected mode
    window.model.flush()
    qtbot.waitUntil(lambda: not panel.chain.isHidden() and dock.height() > readable[1] / 2, timeout=5000)
