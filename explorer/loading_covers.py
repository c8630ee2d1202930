"""While a large session's results are computed on the worker: an opaque message over every view of
results, so no number of the previous session shows, lifted dock by dock once the results come —
the selected head's scores and weights first, as soon as the worker has made them (a partial result)."""
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel

from explorer.core.plural import count
from explorer.i18n import in_language, translate
from explorer.weak import WeakAttribute

# After a session computed in the background, covers come off one dock on screen per timer tick: a
# timer (not a 0-ms call, which Qt 6 posts as an event and runs in the same pass) lets input in between.
UNCOVER_STEP_MS = 1


class WaitingCover(QLabel):
    """An opaque message over a view of the results while a newly opened session's are computed,
    so no number of the previous session shows through. The view under it is disabled meanwhile:
    no click, key (Tab, Space), wheel or focus reaches it."""

    def __init__(self, target):
        super().__init__(target)
        self.setObjectName("waitingCover")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setMargin(12)
        self.setAutoFillBackground(True)
        palette = self.palette()  # disabled with its view, but the message reads as usual, not greyed
        for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Window):
            palette.setColor(QPalette.ColorGroup.Disabled, role,
                             palette.color(QPalette.ColorGroup.Active, role))
        self.setPalette(palette)
        self.hide()
        target.installEventFilter(self)

    def cover(self, text):
        if self.text() != text:
            self.setText(text)
        self.setGeometry(self.parentWidget().rect())
        self.raise_()
        self.show()
        self.parentWidget().setEnabled(False)

    def uncover(self):
        self.hide()
        self.parentWidget().setEnabled(True)

    def eventFilter(self, watched, event):
        # not isVisible(): a cover made before the window is first shown must follow the view's
        # first real size too (it was made at the view's unlaid-out 100 × 30 and would stay so)
        if event.type() == QEvent.Type.Resize and not self.isHidden():
            self.setGeometry(watched.rect())
        return False


class LoadingCovers:
    """The window's covers: made at the first large load, one per dock of results (``result_docks``;
    the docks that show the state itself are never covered) and per read-only X·Wᵀ table."""

    window = WeakAttribute()  # the window owns this: no reference back to it (freed at once with it)

    def __init__(self, window, result_docks):
        self.window = window
        self.result_docks = list(result_docks)
        self.covers = {}  # dock name (or editor.<table>) → its WaitingCover
        self.active = False  # True while a loaded session's results are computed
        self._after_loading = None  # (status text, timeout, messages it may replace) once the results come

    @property
    def model(self):
        return self.window.model

    def say_when_ready(self, text, timeout=10000):
        """Show ``text`` in the status bar. While a large session's results are being computed, say
        that too, and show ``text`` alone once they are on screen."""
        if self.model.loading:
            waiting = f"{text} — {self._computing_text()}"
            # ``text`` replaces the status bar's message when the results come only if it is still
            # this one (or says why they failed): never a newer message (an edit's, an import's)
            self._after_loading = (text, timeout, {waiting})
            self.window.statusBar().showMessage(waiting)  # until the results come
        else:
            self._after_loading = None
            self.window.statusBar().showMessage(text, timeout)
        self.follow()

    def _computing_text(self):
        tokens, heads = len(self.model.tokens), self.model.settings.heads
        return translate("Window", "computing attention for {tokens} × {heads}…").format(
            tokens=count(tokens, 'token'), heads=count(heads, 'head'), n_tokens=tokens, n_heads=heads)

    def follow(self, *args):
        """While a loaded session has no results yet, cover every view of results (the panels hold
        the previous session's drawing) and hold their panels; when the results come, uncover."""
        if self.model.loading:
            if self.model.computing:
                text = self._computing_text()
                text = f"{text[0].upper()}{text[1:]}"
            else:  # its recompute failed: an edit or another session tries again
                shown, why = self.window.statusBar().currentMessage(), self.model.failure
                text = translate("Window", "Could not compute attention for this session: {why}. Change it (fewer "
                                           "heads or tokens) to try again.").format(
                    why=in_language(why) if why else translate("Window", "unknown error"))
                if self._after_loading is not None and why and shown.endswith(why):
                    self._after_loading[2].add(shown)  # why it failed: replaced once results come
            views = [(key, target) for key, target in self._result_views() if not self._drawn_early(key)]
            self._keep_focus_out_of([target for _, target in views])
            for key, target in views:
                cover = self.covers.get(key)
                if cover is None or cover.parentWidget() is not target:
                    cover = self.covers[key] = WaitingCover(target)
                cover.cover(text)
                if key in self.window.docks and self.window.panels.is_built(key):
                    self.window.panels[key].set_on_screen(False)  # drawn when its cover comes off
            self.active = True
            if any(self.early(key) for key, _ in views):  # the shown head's ① and ② came: those docks first
                QTimer.singleShot(UNCOVER_STEP_MS, self.window, self.uncover_next)
            self._when_shown_head_drawn()
            return
        if self.active:
            self.active = False
            if self.model.flushing:
                self.uncover_now()  # the numbers are wanted now (an export, a test): all at once
            else:
                QTimer.singleShot(UNCOVER_STEP_MS, self.window, self.uncover_next)  # after this turn
        if self._after_loading is not None:
            text, timeout, replaceable = self._after_loading
            self._after_loading = None
            if self.window.statusBar().currentMessage() in replaceable | {""}:
                self.window.statusBar().showMessage(text, timeout)

    def _keep_focus_out_of(self, targets):
        """Before views are covered (and disabled): keyboard focus inside one goes to the editor,
        where typing starts, rather than wherever Qt would move it (or nowhere)."""
        focus = self.window.focusWidget()
        if focus is None or not any(t is focus or t.isAncestorOf(focus) for t in targets):
            return
        editor = self.window.panels["editor"]
        view = editor.views.get(self.model.editable()[0])
        if view is not None and view.isVisible():
            view.setFocus()
        else:
            focus.clearFocus()

    def _when_shown_head_drawn(self):
        """Once no dock of the shown head's ① and ② on screen waits under its cover, tell the model after
        this turn's paint (its worker waits meanwhile, so the drawing has the cores to itself)."""
        early = [key for key in self.covers if self.early(key)]  # none before the shown head has come
        if self.active and early and not any(self.is_up(key) and self.seen(key) for key in early):
            QTimer.singleShot(0, self.window, self.model.shown_drawn)

    def early(self, key):
        """Whether dock ``key`` may come out from under its cover before the session's results are all
        made: its panel draws only the selected head's ① or ②, and they have come."""
        panel = self.window.panels.built().get(key) if key in self.window.docks else None
        return panel is not None and panel.draws_shown_head and not panel.waiting()

    def may_uncover(self, key):
        """Whether dock ``key``'s cover may come off now (its panel drawing first)."""
        return not self.active or self.early(key)

    def _drawn_early(self, key):
        """Dock ``key`` came out early and shows this session: it stays uncovered."""
        return (self.early(key) and not self.is_up(key)
                and self.window.panels[key].drawn_load == self.model.loads)

    def is_up(self, key):
        """True while the cover of dock (or view) ``key`` is up: its panel waits for ``_uncover``."""
        cover = self.covers.get(key)
        return cover is not None and not cover.isHidden()

    def uncover(self, key):
        """Let the dock's panel draw, and lift the cover unless the panel still shows another session:
        one that could not draw yet (not on screen, or a newer change pending) keeps it until it has."""
        panel = self.window.panels.built().get(key) if key in self.window.docks else None
        cover = self.covers[key]
        if panel is not None:
            view = cover.parentWidget()
            view.setEnabled(True)  # it draws enabled: colours taken from a disabled palette stay grey
            panel.set_on_screen(self.window._dock_on_screen.get(key, True))  # renders if on screen
            if self._shows_another_session(panel):
                view.setEnabled(False)
                return
        cover.uncover()

    def _shows_another_session(self, panel):
        return panel.reads_results and panel.drawn_load not in (None, self.model.loads)

    def panel_rendered(self, key):
        """A panel drew the results: if it kept its cover after the session's results came, lift it (as
        ``uncover`` does: the panel is told whether its dock is on screen, so it follows later results)."""
        if self.may_uncover(key) and self.is_up(key) and not self._shows_another_session(self.window.panels[key]):
            self.uncover(key)

    def views_added(self):
        """A panel made new views of results (the editor's X·Wᵀ tables, the first time it shows a
        projected session): while a session's results are computed, cover them too."""
        if self.model.loading:
            self.follow()

    def uncover_next(self):
        """Uncover one dock on screen per timer tick (its panel renders, then paints the new results:
        ~20–80 ms at L = 4096) rather than the whole window in one block; the docks not on screen
        all at once (nothing to draw: those still showing another session keep their covers until
        they are shown and have drawn)."""
        waiting = [key for key, cover in self.covers.items() if not cover.isHidden() and self.may_uncover(key)]
        on_screen = [key for key in waiting if self.seen(key)]
        for key in waiting:
            if key not in on_screen:
                self.uncover(key)
        for key in on_screen:
            self.uncover(key)
            if self.covers[key].isHidden():  # it drew: the next one at the next tick
                QTimer.singleShot(UNCOVER_STEP_MS, self.window, self.uncover_next)
                self._when_shown_head_drawn()
                return
        # the rest could not draw yet (a newer change is pending): each lifts when its panel draws

    def seen(self, key):
        """Whether the view under cover ``key`` is on screen (a dock behind another tab is not)."""
        if key in self.window.docks:
            return self.window._dock_on_screen.get(key, False) and self.window.docks[key].isVisible()
        return self.covers[key].isVisible()

    def uncover_now(self):
        """Uncover (and draw) every view whose results have arrived: before a picture is taken."""
        if not self.active:
            for key, cover in self.covers.items():
                if not cover.isHidden():
                    self.uncover(key)

    def _result_views(self):
        """(key, widget) of every view of results: the docks but the editor and the controls, and
        the editor's read-only X·Wᵀ tables once it has them."""
        views = [(name, self.window.docks[name].widget()) for name in self.result_docks]
        editor = self.window.panels.built().get("editor")
        views += [(f"editor.{name}", view) for name, view in getattr(editor, "views", {}).items()
                  if name.startswith("derived")]
        return views
