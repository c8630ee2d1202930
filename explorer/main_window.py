"""The main window: every panel a dock built from one table, the menus, the title and layout."""
import explorer.blas_at_start  # noqa: F401  (first: before anything loads NumPy)
from explorer.gc_pause import paused_collection

with paused_collection():  # the libraries and the explorer load without collections between them
    # NumPy before Qt, as pyqtgraph does: PySide6 reads the source of every module loaded after it (its
    # __feature__ check, ~0.1 ms a module), and NumPy loads ~150 (issue 18: ~15 ms of every start-up)
    import numpy  # noqa: F401
    import importlib
    from collections.abc import Mapping
    from dataclasses import dataclass

    from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer
    from PySide6.QtWidgets import QApplication, QDockWidget, QFrame, QMainWindow, QScrollArea, QTabBar

    from explorer.dock_layout import arrange_default, fit_default_sizes, open_panel
    from explorer.documents import Documents
    from explorer.loading_covers import LoadingCovers
    from explorer.i18n import translate
    from explorer.menus import WindowMenus, dock_title
    from explorer.model import AttentionModel
    from explorer.recovery import Recovery
    from explorer.settings_store import qsettings
    from explorer.style import style_dock, style_status_bar
    from explorer.view_menu import readable_tabs
    from explorer.weak import weakly

L, R = Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea


@dataclass(frozen=True)
class DockSpec:
    name: str  # the QDockWidget's objectName: saveState/restoreState key on it
    title: str
    panel: str  # "module.Class" under explorer.panels, imported when the panel is first built
    area: Qt.DockWidgetArea
    shortcut: str
    # False for the docks that show the state itself or nothing of the model's (the editor, the
    # controls, the √d lesson's own random q and k): never covered while a session's results are
    # computed. Said here, not read from the panel class, so deciding costs no import.
    reads_results: bool = True
    # (width, height) a large panel needs to be read: where its docked place is smaller, the View menu and
    # the shortcut open it floating at this size (dock_layout.open_panel)
    readable: tuple | None = None

    def panel_class(self):
        """The panel's class; its module is imported on first use, so panels never shown cost nothing."""
        module, _, name = self.panel.rpartition(".")
        return getattr(importlib.import_module(f"explorer.panels.{module}"), name)


DOCKS = (
    DockSpec("editor", "Matrix editor — Q, K, V", "editor.EditorPanel", L, "Ctrl+1", reads_results=False),
    DockSpec("controls", "Controls", "controls.ControlsPanel", L, "Ctrl+2", reads_results=False),
    DockSpec("lesson", "Lesson 实验引导", "lesson.LessonPanel", L, "Ctrl+3"),
    DockSpec("scores", "① Scores  S = QKᵀ·scale", "scores.ScoresPanel", R, "Ctrl+4"),
    DockSpec("weights", "② Weights  A = softmax(S)", "weights.WeightsPanel", R, "Ctrl+5"),
    DockSpec("output", "③ Output  O = A·V", "output.OutputPanel", R, "Ctrl+6"),
    DockSpec("readout", "Readout", "readout.ReadoutPanel", R, "Ctrl+7"),
    DockSpec("lines", "Attention lines", "lines.AttentionLinesPanel", R, "Ctrl+8"),
    DockSpec("heads", "Heads", "heads.HeadsPanel", R, "Ctrl+9"),
    DockSpec("split_merge", "Split and merge", "split_merge.SplitMergePanel", R, "Ctrl+0"),
    DockSpec("positions", "Positions", "positions.PositionsPanel", R, "Ctrl+Shift+1"),
    DockSpec("sqrt_d", "The √d lesson", "sqrt_d.SqrtDPanel", L, "Ctrl+Shift+2", reads_results=False,
             readable=(600, 440)),
    DockSpec("rope", "RoPE", "rope.RopePanel", R, "Ctrl+Shift+3", readable=(760, 660)),
    DockSpec("generation", "Generation · KV cache", "generation.GenerationPanel", R, "Ctrl+Shift+4",
             readable=(820, 780)),
    DockSpec("model_view", "Model · real heads", "model_view.ModelViewPanel", R, "Ctrl+Shift+5",
             reads_results=False, readable=(860, 600)),
    DockSpec("block", "Transformer block", "block.BlockPanel", L, "Ctrl+Shift+6", readable=(780, 600)),
    DockSpec("efficient", "Efficient attention", "efficient.EfficientPanel", R, "Ctrl+Shift+7", readable=(900, 640)),
    DockSpec("flash", "FlashAttention", "flash.FlashAttentionPanel", R, "Ctrl+Shift+8", readable=(760, 720)),
    DockSpec("qk_space", "Query–key space", "qk_space.QKSpacePanel", R, "Ctrl+Shift+9", readable=(720, 600)),
    DockSpec("sensitivity", "Sensitivity · nudge a cell", "sensitivity.SensitivityPanel", R, "Ctrl+Shift+0",
             readable=(720, 560)),
    DockSpec("ab_diff", "A/B diff", "ab_diff.ABDiffPanel", R, "Ctrl+Shift+D", readable=(720, 560)),
)
SPECS = {spec.name: spec for spec in DOCKS}


class Panels(Mapping):
    """``window.panels``: name → panel for every dock, built on first access if its dock was never shown.

    ``values()``/``items()`` build every panel; ``built()`` gives only those that exist already.
    """

    def __init__(self, build):
        self._build = build  # build(name) creates the panel and calls _store before showing it
        self._built = {}

    def _store(self, name, panel):
        self._built[name] = panel

    def __getitem__(self, name):
        if name not in self._built:
            if name not in SPECS:
                raise KeyError(name)
            self._build(name)
        return self._built[name]

    def __contains__(self, name):
        return name in SPECS  # without building it

    def __iter__(self):
        return iter(SPECS)

    def __len__(self):
        return len(SPECS)

    def is_built(self, name):
        return name in self._built

    def built(self):
        """The panels that exist now, name → panel, in dock order (nothing is built)."""
        return {name: self._built[name] for name in SPECS if name in self._built}

    def __repr__(self):
        return f"Panels(built={list(self.built())}, lazy={[n for n in SPECS if n not in self._built]})"


class MainWindow(QMainWindow):
    """The explorer: ``window.model`` is the one shared model every dock renders."""

    def __init__(self, session=None, path=None, *, persist_layout=True, recovery=True):
        super().__init__()
        self.setObjectName("mainWindow")
        self.setDockOptions(QMainWindow.AnimatedDocks | QMainWindow.AllowNestedDocks | QMainWindow.AllowTabbedDocks)
        self.setDockNestingEnabled(True)
        # A large first session (the SESSION argument) is computed on the worker, as File ▸ Open does:
        # the window shows at once, covered where results go, and fills in when they arrive.
        self.model = AttentionModel(session, parent=self, wait=False)
        self.covers = LoadingCovers(self, [spec.name for spec in DOCKS if spec.reads_results])
        self.panels, self.docks = Panels(weakly(self._build_panel)), {}  # (no cycle: the window is freed at once)
        self._dock_on_screen = {}  # name → the last visibilityChanged of its dock (none before it is shown)
        self._restoring = False  # restoreState shows and hides docks in passing: build only what stays shown
        self._painted = False  # a panel built after the window's first paint is laid out at once
        self._tab_bars_check_due = False  # a check of the tab bars is waiting for the next turn
        for spec in DOCKS:
            self._add_dock(spec)
        arrange_default(self)
        self._default_state = self.saveState()
        self._layout_given = False  # a saved or a session's layout was applied: keep its sizes as they are
        # the docks have the default shares of the window's size, and keep them when it is resized, until the person
        # drags a separator or a layout is put in place (shrunk from 1600 × 1000, ③ kept 222 px where a window
        # started at 1024 × 640 gives it 293, and printed 8 px numbers)
        self._default_shares = True
        self.floated_once = set()  # large panels opened floating in this layout (dock_layout.open_panel)
        self.documents = Documents(self, path)
        self.menus = WindowMenus(self, DOCKS)  # fills self.actions
        style_status_bar(self.statusBar())
        self.model.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        for signal in (self.model.state_changed, self.model.shown_ready, self.model.changed, self.model.message):
            signal.connect(self.covers.follow)
        self.model.undo_stack.cleanChanged.connect(self.update_title)
        self.model.history_moved.connect(self.update_title)  # opening a model's head (or undoing it) renames it
        self.model.history_moved.connect(self._clear_stale_refusal)
        self.update_title()
        self._welcome = self._welcome_text()
        self.say_when_ready(self._welcome, 15000)
        self.resize(1600, 1000)
        self.persist_layout = persist_layout  # off for --screenshot: never touch the user's saved layout
        if persist_layout:
            self.restore_layout()
            self._fit_screen()
        self.panels["editor"].views["Q"].setFocus()  # typing starts in Q, not in a toolbar box
        self.recovery = Recovery(self) if recovery else None

    # ----- a session whose results are computed in the background (explorer/loading_covers.py) -----
    def say_when_ready(self, text, timeout=10000):
        """Show ``text`` in the status bar (with "computing…" while a large session's results come)."""
        self.covers.say_when_ready(text, timeout)

    def uncover_now(self):
        """Uncover (and draw) every view whose results have arrived: before a picture is taken."""
        self.covers.uncover_now()

    # ----- docks ---------------------------------------------------------------------------------
    def _add_dock(self, spec):
        """The dock and its (still empty) scroll area; the panel is built when the dock is first shown."""
        dock = QDockWidget(dock_title(spec), self)
        dock.setObjectName(spec.name)  # (its title style comes when it is first on screen: _dock_visibility)
        # A squeezed dock scrolls instead of forcing the whole window to grow (small screens).
        scroll = QScrollArea(dock)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        dock.setWidget(scroll)
        dock.visibilityChanged.connect(self._on_dock_visibility)  # bound methods: no reference cycle
        dock.dockLocationChanged.connect(self._docks_moved)  # a new group of tabs may have a new tab bar
        dock.topLevelChanged.connect(self._on_dock_floated)
        self.docks[spec.name] = dock

    def _build_panel(self, name):
        """Create the panel of dock ``name`` inside its scroll area (importing its module now)."""
        dock = self.docks[name]
        panel = SPECS[name].panel_class()(self.model, dock)
        panel.setObjectName(f"{name}Panel")
        self.panels._store(name, panel)
        if name == "lesson":
            panel.showPanel.connect(lambda other: self.docks[other].raise_())
        if name == "editor":
            panel.viewsAdded.connect(self.covers.views_added)
        if name == "ab_diff":
            panel.compareFileWanted.connect(lambda: self.documents.compare_with_file())
        panel.rendered.connect(lambda name=name: self.covers.panel_rendered(name))
        scroll = dock.widget()
        scroll.setWidget(panel)
        if scroll.isVisible():
            panel.show()  # a widget added to a scroll area already on screen stays hidden otherwise
            if self._painted:  # laid out now, before the paint its showing asks for (not painted unlaid out first)
                QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        on = self._dock_on_screen.get(name)
        if self.covers.is_up(name):
            panel.set_on_screen(False)  # built while its dock is covered: drawn when uncovered
        elif on is not None:
            panel.set_on_screen(on)

    def _on_dock_visibility(self, on):
        dock = self.sender()
        if dock is not None:
            self._dock_visibility(dock.objectName(), on)

    def _on_dock_floated(self, floating):
        dock = self.sender()
        if dock is not None and floating and dock.isVisible():
            self._dock_visibility(dock.objectName(), True)

    def _dock_visibility(self, name, on):
        """``visibilityChanged`` of a dock: build its panel the first time it shows, else tell the panel."""
        dock = self.docks[name]
        if on:
            style_dock(dock)
        # Qt calls a floating dock hidden when it lies above or left of the window (where a tab
        # behind others keeps its geometry); a floating dock that is shown is meant to be seen.
        on = bool(on) or (dock.isFloating() and dock.isVisible())
        self._dock_on_screen[name] = on
        if self.panels.is_built(name):
            if not self.covers.is_up(name):
                self.panels[name].set_on_screen(on)
            elif self.covers.may_uncover(name):  # its session's results came while it was away: draw, then uncover
                self.covers.uncover(name)
            # (while the results are computed, ``uncover`` applies it at the dock's turn)
        elif on and not self._restoring:
            self._build_panel(name)

    def paintEvent(self, event):
        super().paintEvent(event)
        self._painted = True

    def _build_waiting_panels(self):
        """Build the panels whose docks are on screen but not built (restoreState shows docks in passing)."""
        for name, on in list(self._dock_on_screen.items()):
            if on and not self.panels.is_built(name):
                self._build_panel(name)

    def _restore_state(self, state):
        """``restoreState`` that builds only the panels whose docks end up on screen."""
        self._restoring = True
        try:
            ok = self.restoreState(state)
        finally:
            self._restoring = False
        self._build_waiting_panels()
        return ok

    def waiting_panels(self):
        """Docks on screen whose panels are not built yet (none once the window is shown)."""
        return [name for name, on in self._dock_on_screen.items() if on and not self.panels.is_built(name)]

    def build_shown_panels(self):
        """Make sure every dock that is on screen has its real panel (its signal may not have come yet)."""
        for name, dock in self.docks.items():
            shown = dock.isVisible() and (dock.isFloating() or not dock.visibleRegion().isEmpty())
            if shown and not self.panels.is_built(name):
                self._build_panel(name)

    def _fit_screen(self):
        """Never start larger than the screen (a small laptop gets 95 % of it)."""
        screen = self.screen()
        if screen is None:
            return
        room = screen.availableGeometry()
        if self.width() > room.width() or self.height() > room.height():
            self.resize(min(self.width(), int(room.width() * 0.95)), min(self.height(), int(room.height() * 0.95)))

    def reset_layout(self):
        """Put every dock back where it starts."""
        for dock in self.docks.values():
            dock.setFloating(False)
        self.floated_once.clear()
        self._restore_state(self._default_state)
        fit_default_sizes(self)
        self._default_shares = True
        self._hide_stale_tab_bars()
        focus = QApplication.focusWidget()
        if focus is None or not focus.isVisible():  # it was in a dock now closed: the keys went nowhere
            q = self.panels["editor"].views["Q"]
            (q if q.isVisible() else self.panels["editor"]).setFocus()

    def setVisible(self, visible):
        # The default shares of this window's size before it shows, not in its showEvent: the docks on screen
        # build their panels as they show, before the window's showEvent, and a refit there resized them all
        # again by a pixel (every heatmap and plot laid out twice at start-up)
        if visible and not self._layout_given and not self.isVisible():
            self._layout_given = True  # once: the person's own resizing of the docks is theirs
            fit_default_sizes(self)
        super().setVisible(visible)

    def event(self, event):
        if event.type() == QEvent.Type.MouseButtonPress:  # on the window itself: a separator between docks
            self._default_shares = False
        return super().event(event)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self._default_shares and self.isVisible():
            fit_default_sizes(self)

    def showEvent(self, event):
        super().showEvent(event)
        self._docks_moved()

    def _hide_stale_tab_bars(self):
        """Work around Qt leaving the tab bar of an earlier layout pass visible (seen with Qt 6.11 when
        more than one group of docks is tabified before the window is shown): a tab bar that does
        not sit against the dock of its current tab is a leftover, so hide it."""
        self.layout().activate()
        for bar in self.findChildren(QTabBar, options=Qt.FindDirectChildrenOnly):
            readable_tabs(bar)
            if not bar.isVisible() or bar.count() == 0:
                continue
            dock = next((d for d in self.docks.values() if d.windowTitle() == bar.tabText(bar.currentIndex())), None)
            if dock is None or not dock.isVisible():
                continue
            g, b = dock.geometry(), bar.geometry()
            touching = abs(b.top() - g.bottom() - 1) <= 4 or abs(g.top() - b.bottom() - 1) <= 4
            if not (touching and abs(b.left() - g.left()) <= 4):
                bar.hide()

    def _docks_moved(self, *args):
        """After Qt has laid the docks out (and made its tab bars): once for all the docks that moved
        in this turn (each of the 15 docks reports its place when the window is built)."""
        if not self._tab_bars_check_due:
            self._tab_bars_check_due = True
            QTimer.singleShot(0, self, self._check_tab_bars)

    def _check_tab_bars(self):
        self._tab_bars_check_due = False
        self._hide_stale_tab_bars()

    def layout_state(self):
        """The dock layout and geometry as strings, for QSettings and session files (and the window's size
        it was made at, "1600x1000")."""
        return {"state": bytes(self.saveState().toBase64()).decode("ascii"),
                "geometry": bytes(self.saveGeometry().toBase64()).decode("ascii"),
                "size": f"{self.width()}x{self.height()}"}

    def apply_layout(self, layout, geometry=True):
        """Put the docks where ``layout`` has them. Without its ``geometry`` (a session's layout, opened in
        this window), a layout made at another size keeps where the docks are but takes this window's
        default shares for their sizes: pixels saved at 1600 × 1000 crushed ① to 180 px at 1024 × 640."""
        if not layout:
            return
        if geometry and layout.get("geometry"):
            self.restoreGeometry(QByteArray.fromBase64(layout["geometry"].encode("ascii")))
        if layout.get("state"):
            self._restore_state(QByteArray.fromBase64(layout["state"].encode("ascii")))
            self._layout_given = True
            self._default_shares = False  # the layout's own places and sizes
            if not geometry and self._made_at_another_size(layout.get("size")):
                fit_default_sizes(self)

    def _made_at_another_size(self, size):
        """Whether a layout's "size" ("1600x1000") differs from this window's by over a tenth either way."""
        try:
            w, h = (int(x) for x in str(size).lower().split("x"))
        except ValueError:  # none said (a session of an earlier version): as it was
            return False
        return abs(w - self.width()) > 0.1 * self.width() or abs(h - self.height()) > 0.1 * self.height()

    def restore_layout(self):
        settings = qsettings()
        layout = {k: settings.value(f"window/{k}", "") for k in ("state", "geometry")}
        self.apply_layout({k: v for k, v in layout.items() if isinstance(v, str)})

    def save_layout(self):
        settings = qsettings()
        for key, value in self.layout_state().items():
            settings.setValue(f"window/{key}", value)
        settings.sync()

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "menus"):  # View ▸ Language (i18n.py)
            self.retranslate()

    def retranslate(self):
        """The menus' and the docks' texts in the interface's language (the panels translate their own), and the
        welcome in the status bar while it is still there."""
        self.menus.retranslate()
        for spec in DOCKS:
            self.docks[spec.name].setWindowTitle(dock_title(spec))
        welcome, self._welcome = self._welcome, self._welcome_text()
        if self.statusBar().currentMessage() == welcome:
            self.statusBar().showMessage(self._welcome, 10000)

    @staticmethod
    def _welcome_text():
        return translate("Window", "Edit any number in Q, K or V — every stage recomputes live. "
                                   "Hover a cell to see how it was made.")

    # ----- menus (explorer/menus.py) -------------------------------------------------------------
    def open_model(self, folder=None, choose=False):
        """Show the Model view; open ``folder`` there (a checkpoint), or with ``choose`` offer its list of models."""
        open_panel(self, self.docks["model_view"], SPECS["model_view"].readable)
        panel = self.panels["model_view"]
        if folder:
            panel.open_model(str(folder))
        elif choose:
            panel.offer_models()
        return panel

    def _clear_stale_refusal(self, *args):
        """An edit accepted (or undone) after a refusal: the refusal no longer describes what is on screen."""
        bar = self.statusBar()
        if self.model.refusal is not None and bar.currentMessage() == self.model.refusal:
            bar.clearMessage()

    # ----- title and closing ---------------------------------------------------------------------
    def update_title(self, *args):
        """The file's name (or the session's), and the real model's head the session is, if it is one."""
        name = self.documents.display_name()
        head = self.model.state.model_head
        if head is not None and self.documents.path is not None:  # (without a file the name is the head's)
            name = f"{name} · {head.describe()}"
        self.setWindowTitle(f"{name}[*] — Attention Explorer")
        self.setWindowModified(not self.model.undo_stack.isClean())

    def closeEvent(self, event):
        if not self.documents.maybe_save():
            event.ignore()
            return
        if self.persist_layout:
            self.save_layout()
        if self.recovery is not None:
            self.recovery.discard()
        self.documents.opener.cancel()  # a session still being read is not wanted any more
        self.model.shutdown()
        event.accept()
