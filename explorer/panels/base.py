"""What every panel shares: subscribe to the model, redraw only while visible, keep out of a drag's way,
and say its texts again when the language changes."""
import time

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

from explorer.i18n import translate
from explorer.model import DECODE, LESSON, SELECTION, SETTINGS, STRUCTURE, VALUES

ALL = STRUCTURE | VALUES | SETTINGS | SELECTION | LESSON | DECODE
PACE_S = 0.06  # while a drag goes on, a panel it is not watched in draws at most this often
# Posted below the window's paint request (an UpdateRequest, posted at LowEventPriority): what a paced
# panel draws comes after the dragged value's pixels are on screen.
_AFTER_PAINT = QEvent.Type(QEvent.registerEventType())
_AFTER_PAINT_PRIORITY = Qt.EventPriority.LowEventPriority.value - 1


class Panel(QWidget):
    """A view of the model. Subclasses implement ``render(flags)``; hidden panels catch up when shown."""

    # Panels that draw the results wait while they are being recomputed; the editor and the controls
    # show the state itself and must follow every edit at once (a typed cell must land on its token).
    reads_results = True
    # Panels that draw only the selected head's ① or ② may draw it before the other heads are made
    # (``model.shown_results``, announced with ``shown_ready``).
    draws_shown_head = False
    rendered = Signal()  # after a render from the results (the window uncovers a panel that has drawn)
    # True for panels whose views keep a readable minimum: the dock shows them whole down to it, then scrolls
    snug = False
    # The panels a drag is watched in (①②③, the editor, the controls) draw every value at once. The
    # others draw at most every PACE_S while a slider or a scrub is held, after the watched ones are
    # painted, and once more after the last value: at L = 1024 the Readout alone took ~10 ms a value.
    follows_drags = False

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model = model
        self.drawn_load = None  # ``model.loads`` when it last drew the results: which session it shows
        self._stale = ALL  # draw everything the first time it is shown
        self._on_screen = True  # False while its dock is a tab behind another one
        self._paced = False  # a draw is waiting for the paint (or for PACE_S since the last one)
        self._drawn_at = float("-inf")
        self._kept = []  # (setter, context, English): texts set once, set again when the language changes
        model.changed.connect(self._on_changed)
        # the state moved ahead of its results (a large recompute on the worker)
        model.state_changed.connect(self._on_changed if not self.reads_results else self._on_state_ahead)
        if self.draws_shown_head:
            model.shown_ready.connect(self._on_changed)

    def set_on_screen(self, on):
        """Told by the dock (``visibilityChanged``): a panel behind another tab waits, then catches up."""
        self._on_screen = bool(on)
        if on:
            self._render_stale()

    def _on_changed(self, flags):
        self._stale |= flags
        if self._on_screen and self.isVisible():
            if self.follows_drags or not (self.model.dragging or self._paced):
                self._render_stale()
            elif not self._paced:
                self._paced = True
                self._after_paint()

    def _after_paint(self):
        QCoreApplication.postEvent(self, QEvent(_AFTER_PAINT), _AFTER_PAINT_PRIORITY)

    def event(self, event):
        if event.type() != _AFTER_PAINT:
            return super().event(event)
        wait = self._drawn_at + PACE_S - time.perf_counter()
        if wait > 0:
            QTimer.singleShot(int(1000 * wait) + 1, self, self._after_paint)
        else:
            self._paced = False
            if self._on_screen and self.isVisible():
                self._render_stale()
        return True

    def _on_state_ahead(self, flags):
        if self._on_screen and self.isVisible():
            self.render_heading()

    def render_heading(self):
        """What the panel can say from the state alone (a formula line with the new settings): set at once
        while the results of a large session are recomputed, so no heading names the old heads for ~0.6 s.
        Panels whose headings read the settings override it; the results follow with ``render``."""

    def keep_text(self, setter, context, text):
        """``setter(text)`` in the interface's language, now and after every change of language (View ▸
        Language): for texts set once when the panel is built; those ``render`` sets follow by themselves.
        ``setter`` must not hold the panel (a lambda takes its widget as a default argument): the panel keeps it,
        and a cycle would keep a closed panel for the collector."""
        self._kept.append((setter, context, text))
        setter(translate(context, text))

    def kept_label(self, context, text):
        """A QLabel showing ``text`` in the interface's language (``keep_text``)."""
        label = QLabel(self)
        self.keep_text(label.setText, context, text)
        return label

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "_kept"):
            self.language_changed()

    def language_changed(self):
        """The kept texts again, then everything drawn again (now if visible, else when next shown)."""
        for setter, context, text in self._kept:
            setter(translate(context, text))
        self._on_changed(ALL)

    def readable_size(self, size):
        """The (width, height) this panel needs to be read, given its dock's (``DockSpec.readable``): where the
        View menu opens it floating when its docked place is smaller. The same, unless a panel shows less now."""
        return size

    def heightForWidth(self, width):
        """With ``snug``, as tall as the panel must be rather than as its wrapped texts would like: the
        dock's scroll area asks this, so the panel's views share the dock instead of scrolling out of it."""
        layout = self.layout()
        if self.snug and layout is not None:
            return layout.minimumHeightForWidth(width)
        return super().heightForWidth(width)

    def showEvent(self, event):
        super().showEvent(event)
        self._render_stale()

    def _render_stale(self):
        if self.waiting():
            self.render_heading()
            return  # the model's state moved ahead of its results; the recompute will call us
        flags, self._stale = self._stale, 0
        if flags:
            self._drawn_at = time.perf_counter()
            self.render(flags)
            if self.reads_results:
                self.drawn_load = self.model.loads
                self.rendered.emit()

    def waiting(self):
        """True while what this panel draws cannot be read (the results are not the state's, or being
        rewritten): it draws when they come."""
        if not self.reads_results:
            return False
        if self.draws_shown_head:
            return self.model.shown_results() is None
        return self.model.pending

    def refresh(self):
        """Redraw everything now, visible or not (used before screenshots and in tests); a panel that
        draws the results waits while they are not the state's (``pending``), as it does for a change."""
        self._stale = ALL
        self._render_stale()

    def render(self, flags):
        raise NotImplementedError
