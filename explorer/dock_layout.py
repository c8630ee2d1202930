"""Where the docks start: the default arrangement, and its heights fitted to the window it opens in."""
from PySide6.QtCore import Qt

L, R = Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea
TABBED_ROW_SHARE = 340 / 900  # of the right column's height: ③ and the tabbed panels, at 1600 × 1000
TABBED_ROW_MIN = 300  # px: a low window still gives them this much, up to half the column
EDITOR_SHARE = 640 / 1600   # of the window's width: the left column (editor, controls)
RIGHT_MIN = 666             # px: ① and ② keep ~333 each in a narrow window, their numbers readable
OUTPUT_SHARE = 380 / 960    # of the right column's width: ③, beside the tabbed panels


def arrange_default(window):
    """Every dock where it starts: editor over the controls (with the lessons) on the left; ① and ② over ③
    and the tabbed panels on the right."""
    d = window.docks
    for dock in d.values():
        dock.setFloating(False)
        dock.show()
    window.addDockWidget(L, d["editor"])
    window.splitDockWidget(d["editor"], d["controls"], Qt.Vertical)
    window.tabifyDockWidget(d["controls"], d["lesson"])
    window.tabifyDockWidget(d["lesson"], d["sqrt_d"])
    window.tabifyDockWidget(d["sqrt_d"], d["block"])
    window.addDockWidget(R, d["scores"])
    window.splitDockWidget(d["scores"], d["output"], Qt.Vertical)
    window.splitDockWidget(d["scores"], d["weights"], Qt.Horizontal)
    window.splitDockWidget(d["output"], d["readout"], Qt.Horizontal)
    window.tabifyDockWidget(d["readout"], d["lines"])
    window.tabifyDockWidget(d["lines"], d["heads"])
    window.tabifyDockWidget(d["heads"], d["split_merge"])
    window.tabifyDockWidget(d["split_merge"], d["positions"])
    window.tabifyDockWidget(d["positions"], d["rope"])
    window.tabifyDockWidget(d["rope"], d["generation"])
    window.tabifyDockWidget(d["generation"], d["model_view"])
    window.tabifyDockWidget(d["model_view"], d["efficient"])
    window.tabifyDockWidget(d["efficient"], d["flash"])
    window.tabifyDockWidget(d["flash"], d["qk_space"])
    window.tabifyDockWidget(d["qk_space"], d["sensitivity"])
    window.tabifyDockWidget(d["sensitivity"], d["ab_diff"])
    d["controls"].raise_()
    d["readout"].raise_()
    fit_default_sizes(window, 1600, 900)


def fit_default_sizes(window, width=None, column=None):
    """The default shares of this window's width and height (or of ``width`` × ``column``): the left column
    40 % (less in a narrow window, where the right keeps RIGHT_MIN, up to two thirds), ① and ② half each; at
    1600 × 1000 ① and ② get 560 of the right column's 900 px, and in a low window (1024 × 640) the row of ③ and the tabbed panels (Readout … Model) would keep ~190 px,
    too little for any of them, so the two rows come closer to sharing the height. Shares, not pixels: a
    layout saved at one size and put back at another (View ▸ Reset layout) fits the window it is in."""
    d = window.docks
    if width is None:
        width = window.width()
        column = window.height() - window.menuBar().sizeHint().height() - window.statusBar().sizeHint().height()
    right = min(max(width - round(width * EDITOR_SHARE), RIGHT_MIN), width // 2 + width // 6)
    left = width - right
    output = round(right * OUTPUT_SHARE)
    low = min(max(round(column * TABBED_ROW_SHARE), TABBED_ROW_MIN), column // 2)
    window.resizeDocks([d["editor"], d["scores"]], [left, right], Qt.Horizontal)
    window.resizeDocks([d["editor"], d["controls"]], [column // 2, column - column // 2], Qt.Vertical)
    window.resizeDocks([d["scores"], d["weights"]], [right // 2, right - right // 2], Qt.Horizontal)
    window.resizeDocks([d["output"], d["readout"]], [output, right - output], Qt.Horizontal)
    window.resizeDocks([d["scores"], d["output"]], [column - low, low], Qt.Vertical)
