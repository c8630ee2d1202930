"""Where the docks start: the default arrangement, and its heights fitted to the window it opens in."""
from PySide6.QtCore import Qt

L, R = Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea
TABBED_ROW_SHARE = 340 / 900  # of the right column's height: ③ and the tabbed panels, at 1600 × 1000
TABBED_ROW_MIN = 300  # px: a low window still gives them this much, up to half the column


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
    d["controls"].raise_()
    d["readout"].raise_()
    window.resizeDocks([d["editor"], d["scores"]], [640, 960], Qt.Horizontal)
    window.resizeDocks([d["editor"], d["controls"]], [450, 450], Qt.Vertical)
    window.resizeDocks([d["scores"], d["output"]], [560, 340], Qt.Vertical)
    window.resizeDocks([d["scores"], d["weights"]], [480, 480], Qt.Horizontal)
    window.resizeDocks([d["output"], d["readout"]], [380, 580], Qt.Horizontal)


def fit_default_sizes(window):
    """The right column's two rows for this window's height: at 1600 × 1000 ① and ② get 560 of its 900 px;
    in a low window (1024 × 640) the row of ③ and the tabbed panels (Readout … Model) would keep ~190 px,
    too little for any of them, so the two rows come closer to sharing the height."""
    d = window.docks
    column = window.height() - window.menuBar().sizeHint().height() - window.statusBar().sizeHint().height()
    low = min(max(round(column * TABBED_ROW_SHARE), TABBED_ROW_MIN), column // 2)
    window.resizeDocks([d["scores"], d["output"]], [column - low, low], Qt.Vertical)
