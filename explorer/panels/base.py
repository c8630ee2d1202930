"""What every panel shares: subscribe to the model, and redraw only while visible."""
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from explorer.model import DECODE, LESSON, SELECTION, SETTINGS, STRUCTURE, VALUES

ALL = STRUCTURE | VALUES | SETTINGS | SELECTION | LESSON | DECODE


class Panel(QWidget):
    """A view of the model. Subclasses implement ``render(flags)``; hidden panels catch up when shown."""

    # Panels that draw the results wait while they are being recomputed; the editor and the controls
    # show the state itself and must follow every edit at once (a typed cell must land on its token).
    reads_results = True
    # Panels that draw only the selected head's ① or ② may draw it before the other heads are made
    # (``model.shown_results``, announced with ``shown_ready``).
    draws_shown_head = False
    rendered = Signal()  # after a render from the results (the window uncovers a panel that has drawn)

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model = model
        self.drawn_load = None  # ``model.loads`` when it last drew the results: which session it shows
        self._stale = ALL  # draw everything the first time it is shown
        self._on_screen = True  # False while its dock is a tab behind another one
        model.changed.connect(self._on_changed)
        if not self.reads_results:
            model.state_changed.connect(self._on_changed)
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
            self._render_stale()

    def showEvent(self, event):
        super().showEvent(event)
        self._render_stale()

    def _render_stale(self):
        if self.waiting():
            return  # the model's state moved ahead of its results; the recompute will call us
        flags, self._stale = self._stale, 0
        if flags:
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
