"""A panel opened floating: how large (all of it readable where the screen allows) and where (beside the
window where the screen has room, else over what the person is not working in).

A polished desktop tool opens a tool window at the size its content asks for, never larger than the screen,
and puts it where it hides the least of what the person is using: first the panel with the keyboard focus
(the one being worked in; the editor when none has it, as edits are made there), then the three stages
① ② ③ that every edit is watched in, then the window at all (a screen larger than the window has room
beside it). A panel whose content grows later (RoPE shows its plots once d_h is even) grows with it, in
the screen, until the person resizes it themselves.
"""
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, QTimer
from PySide6.QtWidgets import QApplication, QDockWidget

STAGES = ("scores", "weights", "output")
MARGIN = 16  # px kept between a floating panel placed at the window's edge and that edge


def covered(rect: QRect, others) -> int:
    """How many pixels of ``others`` (rects) ``rect`` covers."""
    total = 0
    for other in others:
        both = rect.intersected(other)
        if not both.isEmpty():
            total += both.width() * both.height()
    return total


def placed(size: QSize, room: QRect, window: QRect, preferred: QPoint, working=(), watched=()) -> QRect:
    """Where a floating panel of ``size`` goes in ``room`` (the screen's available area): the place among
    the window's corners, the screen's and beside the window that covers the least of ``working`` (rects),
    then of ``watched``, then of ``window``; ``preferred`` wins a tie."""
    w, h = min(size.width(), room.width()), min(size.height(), room.height())
    xs = (preferred.x(), window.right() + 1 - w - MARGIN, window.left() + MARGIN, window.right() + 1,
          window.left() - w, room.left(), room.right() + 1 - w)
    ys = (preferred.y(), window.bottom() + 1 - h - MARGIN, window.bottom() + 1, window.top() - h, room.top(),
          room.bottom() + 1 - h)
    best, best_cost = None, None
    for y in ys:
        for x in xs:
            rect = QRect(max(room.left(), min(x, room.right() + 1 - w)), max(room.top(), min(y, room.bottom() + 1 - h)),
                         w, h)
            cost = (covered(rect, working), covered(rect, watched), covered(rect, [window]))
            if best_cost is None or cost < best_cost:
                best, best_cost = rect, cost
    return best


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


def fit_floating(window, dock, least, preferred: QPoint, taken=()):
    """Size and place the floating ``dock`` (see the module's docstring); ``taken``: other floating panels."""
    room = screen_room(window)
    size = needed_size(dock, QSize(*least), room)
    working = [on_screen(d) for d in (working_dock(window),) if d is not None and shown_docked(d)]
    watched = [on_screen(window.docks[n]) for n in STAGES if n in window.docks and shown_docked(window.docks[n])]
    rect = placed(size, room, window.frameGeometry(), preferred, working, [*watched, *taken])
    dock.setGeometry(rect)
    return rect


class GrowWithContent(QObject):
    """Grows a floating dock the app sized when its panel comes to need more room (re-laid out), and places
    it again as it was placed, until the person resizes or docks it."""

    def __init__(self, window, dock):
        super().__init__(dock)
        self._window, self._dock, self._size = window, dock, dock.size()
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
        if needed_size(dock, dock.size(), room).boundedTo(room.size()) != dock.size():
            others = [d.frameGeometry() for d in self._window.docks.values()
                      if d is not dock and d.isFloating() and d.isVisible()]
            fit_floating(self._window, dock, (dock.width(), dock.height()), dock.geometry().topLeft(), others)
            self._size = dock.size()
