"""A panel opened floating: how large (all of it readable where the screen allows) and where (beside the
window where the screen has room, else over what the person is not working in).

A polished desktop tool opens a tool window at the size its content asks for, never larger than the screen,
and puts it where it hides the least of what the person is using: first the panel with the keyboard focus
(the one being worked in; the editor when none has it, as edits are made there), then the three stages
① ② ③ that every edit is watched in, then the window at all (a screen larger than the window has room
beside it). It goes on top of the panels floating already and covers none of their title bars (it is
placed just below one, and made shorter where the screen ends), so many opened in turn cascade down the
screen and each can still be moved, docked or closed. A panel whose content grows later (RoPE shows its
plots once d_h is even) grows with it, in the screen, and comes to the top, until the person resizes it
themselves.
"""
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, QTimer
from PySide6.QtWidgets import QApplication, QDockWidget

STAGES = ("scores", "weights", "output")
MARGIN = 16  # px kept between a floating panel placed at the window's edge and that edge
TITLE_GAP = 4  # px left below another floating panel's title bar when one is placed just under it
SHORTEST = 120  # px: a panel is made no shorter than this (a title bar and a few lines) to keep others' title bars uncovered
MIN_TITLE = 20  # px: a title bar is at least this tall (before its dock is laid out)


def covered(rect: QRect, others) -> int:
    """How many pixels of ``others`` (rects) ``rect`` covers."""
    total = 0
    for other in others:
        both = rect.intersected(other)
        if not both.isEmpty():
            total += both.width() * both.height()
    return total


def placed(size: QSize, room: QRect, window: QRect, preferred: QPoint, working=(), watched=(), titles=()) -> QRect:
    """Where a floating panel of ``size`` goes in ``room`` (the screen's available area): the place among
    the window's corners, the screen's, beside the window and just below the ``titles`` (the title bars of
    panels floating already, which it goes on top of) that covers the least of those title bars — every
    panel stays reachable —, then of ``working`` (rects), then loses the least height (a panel may end just
    above a title bar, or at the screen's bottom, to SHORTEST at the least), then covers the least of
    ``watched``, then of ``window``; ``preferred`` wins a tie."""
    w, h = min(size.width(), room.width()), min(size.height(), room.height())
    xs = (preferred.x(), window.right() + 1 - w - MARGIN, window.left() + MARGIN, window.right() + 1,
          window.left() - w, room.left(), room.right() + 1 - w)
    ys = (preferred.y(), window.bottom() + 1 - h - MARGIN, window.bottom() + 1, window.top() - h, room.top(),
          room.bottom() + 1 - h)

    def inside(x, y, height):
        return QRect(max(room.left(), min(x, room.right() + 1 - w)), max(room.top(), min(y, room.bottom() + 1 - height)),
                     w, height)

    rects = [inside(x, y, h) for y in ys for x in xs]
    if titles:  # tops just below a title bar; heights ending just above the next one down (or the screen's end)
        tops = sorted({inside(0, y, h).top() for y in ys} | {t.bottom() + 1 + TITLE_GAP for t in titles})
        lefts = [preferred.x(), *sorted({*xs, *(t.left() + d for t in titles for d in (0, t.height(), -t.height()))}
                                        - {preferred.x()})]  # (the preferred first: it wins a tie)
        for y in tops:
            for x in lefts:
                rect = inside(x, y, 1)
                limit = room.bottom() + 1 - y
                for t in titles:
                    if t.top() > y and t.left() <= rect.right() and t.right() >= rect.left():
                        limit = min(limit, t.top() - TITLE_GAP - y)
                if min(h, limit) >= min(SHORTEST, h):
                    rects.append(QRect(rect.left(), y, w, min(h, limit)))
    best, best_cost = None, None
    for rect in rects:
        cost = (covered(rect, titles), covered(rect, working), h - rect.height(), covered(rect, watched),
                covered(rect, [window]))
        if best_cost is None or cost < best_cost:
            best, best_cost = rect, cost
    return best


def title_bar(dock) -> QRect:
    """A floating dock's title bar on the screen: its frame's top, down to where its panel begins."""
    frame = dock.frameGeometry()
    content = dock.widget()
    top = dock.mapToGlobal(QPoint(0, content.y() if content is not None else 0)).y()
    return QRect(frame.left(), frame.top(), frame.width(), max(top - frame.top(), MIN_TITLE))


def on_screen(dock) -> QRect:
    """A docked panel's rectangle on the screen."""
    return QRect(dock.mapToGlobal(QPoint(0, 0)), dock.size())


def working_dock(window):
    """The dock the person works in: the one holding the keyboard focus, else the editor."""
    widget = QApplication.focusWidget()
    while widget is not None and not (isinstance(widget, QDockWidget) and widget in window.docks.values()):
        widget = widget.parentWidget()
    return widget if widget is not None and not widget.isFloating() else window.docks.get("editor")


def shown_docked(dock) -> bool:
    return dock.isVisible() and not dock.isFloating() and not dock.visibleRegion().isEmpty()


WIDTH_STEP = 40  # px: a panel too tall for the screen is tried this much wider at a time


def panel_height(panel, width: int) -> int:
    """The height below which ``panel``, laid out ``width`` wide, scrolls in its dock. Laid out at that width
    first: a panel may arrange itself by its width (RoPE stacks its plots below 760 px)."""
    panel.resize(width, max(panel.height(), 1))
    layout = panel.layout()
    if layout is not None:
        layout.activate()
    return panel.heightForWidth(width) if panel.hasHeightForWidth() else panel.minimumSizeHint().height()


def needed_size(dock, least: QSize, room: QRect) -> QSize:
    """The dock's size at which its panel shows whole (at least ``least``), or the nearest the screen allows:
    the narrowest width, in WIDTH_STEPs, at which the panel's height fits the screen."""
    scroll = dock.widget()
    panel = scroll.widget() if scroll is not None else None
    if panel is None:
        return least
    chrome = QSize(dock.width() - scroll.width(), dock.height() - scroll.height())
    width = least.width() - chrome.width()
    widest, tallest = room.width() - chrome.width(), room.height() - chrome.height()
    before = panel.size()
    scroll.setWidgetResizable(False)  # (else the scroll area puts every trial size back at once)
    height = panel_height(panel, width)
    if panel.minimumSizeHint().width() > width:  # (its least width as arranged for this width)
        width = panel.minimumSizeHint().width()
        height = panel_height(panel, width)
    tried = width
    while height > tallest and tried + WIDTH_STEP <= widest:
        tried += WIDTH_STEP
        taller = panel_height(panel, tried)
        if taller < height:
            width, height = tried, taller
    if height > tallest:  # it will scroll: room for the scroll bar beside the content
        width += scroll.verticalScrollBar().sizeHint().width()
    panel.resize(before)
    scroll.setWidgetResizable(True)
    return QSize(width + chrome.width(), max(height + chrome.height(), least.height()))


def screen_room(window) -> QRect:
    """The screen's area a floating panel may take (the window's own where no screen is known)."""
    screen = window.screen()
    return screen.availableGeometry() if screen is not None else QRect(window.mapToGlobal(QPoint(0, 0)), window.size())


def floating_others(window, dock):
    """The other panels floating on screen."""
    return [d for d in window.docks.values() if d is not dock and d.isFloating() and d.isVisible()]


def fit_floating(window, dock, least, preferred: QPoint, others=()):
    """Size and place the floating ``dock`` on top of the ``others`` floating already (see the module's
    docstring): it covers none of their title bars where the screen allows."""
    room = screen_room(window)
    frame, inner = dock.frameGeometry(), dock.geometry()  # placed by its frame: all of it in the screen
    left, top = inner.left() - frame.left(), inner.top() - frame.top()
    right, bottom = frame.right() - inner.right(), frame.bottom() - inner.bottom()
    size = needed_size(dock, QSize(*least), room) + QSize(left + right, top + bottom)
    working = [on_screen(d) for d in (working_dock(window),) if d is not None and shown_docked(d)]
    watched = [on_screen(window.docks[n]) for n in STAGES if n in window.docks and shown_docked(window.docks[n])]
    rect = placed(size, room, window.frameGeometry(), preferred - QPoint(left, top), working,
                  [*watched, *(d.frameGeometry() for d in others)], [title_bar(d) for d in others])
    dock.setGeometry(rect.adjusted(left, top, -right, -bottom))
    return dock.geometry()


class GrowWithContent(QObject):
    """Grows a floating dock the app sized when its panel comes to need more room (re-laid out), and places
    it again as it was placed, until the person resizes or docks it."""

    def __init__(self, window, dock):
        super().__init__(dock)
        self._window, self._dock, self._size = window, dock, dock.size()
        self._needed = None  # the size its content asked for when it was last placed
        self._pending = False

    def watch(self, panel):
        panel.installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.LayoutRequest and not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self._grow)  # (not called once the dock is gone)
        return False

    def _grow(self):
        self._pending = False
        dock = self._dock
        if not dock.isFloating() or dock.size() != self._size:  # docked again, or sized by the person
            dock.widget().widget().removeEventFilter(self)
            self.deleteLater()
            return
        room = screen_room(self._window)
        needed = needed_size(dock, dock.size(), room).boundedTo(room.size())
        # placed again only when its content asks for another size than it did: placing may have made it shorter
        # (the others' title bars kept in view), and an edit that asks for the same must not place it again
        if needed != dock.size() and needed != self._needed:
            self._needed = needed
            fit_floating(self._window, dock, (dock.width(), dock.height()), dock.geometry().topLeft(),
                         floating_others(self._window, dock))
            self._size = dock.size()
