"""Where the docks start: the default arrangement, and its heights fitted to the window it opens in; and
where a large panel opens when its place in the default arrangement is too small to read it."""
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QTabBar

from explorer.floating_panels import GrowWithContent, fit_floating, floating_others, screen_room

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


FLOAT_SHARE = (0.94, 0.9)  # of the window's width and height: the most a panel opened floating covers


def open_panel(window, dock, readable=None):
    """Bring ``dock`` to the front. A panel with a ``readable`` size (width, height) whose docked place is
    smaller (the tab row under ③ at 1600 × 1000 gives ~576 × 334) opens floating instead, at the size that
    shows all of it where the screen allows and where it hides least of what the person works in
    (floating_panels), the tab it would have covered left in front; once per layout, so a panel the person
    docks again stays where they put it (View ▸ Reset layout starts again)."""
    dock.show()
    name = dock.objectName()
    if readable is None or dock.isFloating() or name in window.floated_once:
        dock.raise_()
        return
    front = front_tab(window, dock)
    dock.raise_()
    panels = getattr(window, "panels", None)
    if panels is not None and panels.is_built(name):  # (built as its dock came to the front)
        readable = panels[name].readable_size(readable)
    if dock.width() >= readable[0] and dock.height() >= readable[1]:
        return
    window.floated_once.add(name)
    others = floating_others(window, dock)
    dock.setFloating(True)
    dock.setGeometry(floating_rect(window, readable, [d.geometry().topLeft() for d in others]))
    dock.layout().activate()
    fit_floating(window, dock, readable, dock.geometry().topLeft(), others)  # (on top: none of their titles covered)
    dock.raise_()
    panel = dock.widget().widget() if dock.widget() is not None else None
    if panel is not None:
        GrowWithContent(window, dock).watch(panel)
    if front is not None:
        front.raise_()


def front_tab(window, dock):
    """The dock in front of ``dock``'s group of tabs (None if it is not a tab): read from the group's tab
    bar, which knows it before the window is first shown too (``--model`` opens the Model view then)."""
    group = {d.windowTitle(): d for d in window.tabifiedDockWidgets(dock)}
    if not group:
        return None
    group[dock.windowTitle()] = dock
    for bar in window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
        if {bar.tabText(i) for i in range(bar.count())} == set(group):
            return group.get(bar.tabText(bar.currentIndex()))
    return None


CASCADE_PX = 36  # the first guess for a panel floated over another steps this far down and left


def floating_rect(window, readable, taken=()):
    """Where a panel opened floating goes first, before its panel can say what it needs (and the place
    floating_panels prefers on a tie): at its readable size (at most FLOAT_SHARE of the window) near the
    window's top right, inside the screen, stepped past the top-left corners in ``taken``."""
    area = QRect(window.mapToGlobal(window.rect().topLeft()), window.size())
    width = min(readable[0], round(area.width() * FLOAT_SHARE[0]))
    height = min(readable[1], round(area.height() * FLOAT_SHARE[1]))
    top = area.top() + window.menuBar().height() + 24
    rect = QRect(area.right() - width - 16, top, width, height)
    return cascaded(rect, screen_room(window), taken)


def cascaded(rect, room, taken=()):
    """``rect`` kept in ``room`` and stepped down and left while its title bar would lie over most of the title
    bar of a panel floating already (their top-left corners in ``taken``), so one never hides another whole (up where the screen has no room below)."""
    rect = QRect(rect)
    rect.moveLeft(max(room.left(), min(rect.left(), room.right() - rect.width())))
    rect.moveTop(max(room.top(), min(rect.top(), room.bottom() - rect.height())))
    seen = {rect.topLeft().toTuple()}
    while any(abs(rect.left() - p.x()) < rect.width() // 2 and abs(rect.top() - p.y()) < CASCADE_PX for p in taken):
        steps = (rect.translated(-CASCADE_PX, CASCADE_PX), rect.translated(0, CASCADE_PX),
                 rect.translated(-CASCADE_PX, -CASCADE_PX), rect.translated(0, -CASCADE_PX), rect.translated(-CASCADE_PX, 0))
        step = next((step for step in steps if room.contains(step) and step.topLeft().toTuple() not in seen), None)
        if step is None:
            break  # no room left to step into (or only back): it stays where it is
        rect = step
        seen.add(rect.topLeft().toTuple())
    return rect
