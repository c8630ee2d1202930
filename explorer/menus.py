"""The window's menus: File, Edit, View and Help, their actions in ``window.actions``; every text is
translatable (context "Menu") and set again when the language changes (``retranslate``)."""
from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMessageBox

from explorer import __version__
from explorer.i18n import LANGUAGES, current_language, remember_language, set_language, translate
from explorer.view_menu import panel_action
from explorer.weak import WeakAttribute, weakly


def dock_title(spec):
    """A dock's title in the interface's language (the DockSpec's English title is the source text)."""
    return translate("Docks", spec.title)


class WindowMenus:
    """Builds the menu bar of ``window``; every action is kept in ``window.actions`` by key."""

    window = WeakAttribute()  # the window owns this: no reference back to it (freed at once with it)

    def __init__(self, window, docks):
        self.window, self.docks = window, docks  # docks: the DockSpecs, in the View menu's order
        self.actions = window.actions = {}
        self._texts = []  # what sets each text: run again on a change of language
        self._build()

    def _say(self, apply):
        """Run ``apply`` (it sets a text) now and whenever the language changes."""
        self._texts.append(apply)
        apply()

    def retranslate(self):
        for apply in self._texts:
            apply()

    def _menu(self, parent, text):
        menu = parent.addMenu("")
        self._say(lambda: menu.setTitle(translate("Menu", text)))
        return menu

    def _action(self, key, text, slot, shortcut=None, tip=None, menu=None, context="Menu", suffix="", **values):
        """An action whose ``text`` (translated in ``context``, then ``suffix``) and ``tip`` (sources marked for
        translation) take ``values``' {names}."""
        act = QAction(self.window)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))

        def say():
            said = translate(context, text)
            act.setText((said.format(**values) if values else said) + suffix)
            if tip:
                said = translate("Menu", tip).format(**values) if values else translate("Menu", tip)
                act.setStatusTip(said)
                act.setToolTip(said)
        self._say(say)
        act.triggered.connect(lambda checked=False: slot())  # never pass `checked` on as an argument
        self.actions[key] = act
        if menu is not None:
            menu.addAction(act)
        return act

    def _build(self):
        w = self.window
        doc, bar = w.documents, w.menuBar()
        file = self._menu(bar, QT_TRANSLATE_NOOP("Menu", "&File"))
        self._action("new", QT_TRANSLATE_NOOP("Menu", "&New (chapter demo)"), doc.new_session, QKeySequence.New,
                     QT_TRANSLATE_NOOP("Menu", "Start again from the chapter's demo 猫 追 红色 激光点"), file)
        presets = self._menu(file, QT_TRANSLATE_NOOP("Menu", "New from &preset"))
        for key, text in doc.PRESET_TITLES.items():
            self._action(f"preset_{key}", text, lambda checked=False, k=key: doc.new_session(k), menu=presets,
                         context="Presets")
        self._action("open", QT_TRANSLATE_NOOP("Menu", "&Open…"), doc.open_dialog, QKeySequence.Open,
                     QT_TRANSLATE_NOOP("Menu", "Open a saved session (.json)"), file)
        self._action("open_model", QT_TRANSLATE_NOOP("Menu", "Open &model…"), lambda: w.open_model(choose=True),
                     "Ctrl+Shift+M",
                     QT_TRANSLATE_NOOP("Menu", "See every head of a real model (the tiny one that ships with the "
                                       "explorer, one in your Hugging Face cache, or a folder) and open any head as "
                                       "the session"), file)
        w.recent_menu = self._menu(file, QT_TRANSLATE_NOOP("Menu", "Open &Recent"))
        w.recent_menu.aboutToShow.connect(doc.fill_recent_menu)
        self._action("save", QT_TRANSLATE_NOOP("Menu", "&Save"), doc.save, QKeySequence.Save,
                     QT_TRANSLATE_NOOP("Menu", "Save the session"), file)
        self._action("save_as", QT_TRANSLATE_NOOP("Menu", "Save &As…"), doc.save_as, QKeySequence.SaveAs,
                     QT_TRANSLATE_NOOP("Menu", "Save the session under a new name"), file)
        file.addSeparator()
        imp = self._menu(file, QT_TRANSLATE_NOOP("Menu", "&Import matrix"))
        for name in ("Q", "K", "V"):
            self._action(f"import_{name}", QT_TRANSLATE_NOOP("Menu", "into {name}…"),
                         lambda checked=False, n=name: doc.import_matrix(n),
                         tip=QT_TRANSLATE_NOOP("Menu", "Replace {name} with a matrix from a .npy, .npz or .csv file"),
                         menu=imp, name=name)
        self._action("import_qkv", QT_TRANSLATE_NOOP("Menu", "Q, K and V from one .npz…"), doc.import_qkv,
                     tip=QT_TRANSLATE_NOOP("Menu", "Replace Q, K and V (and the number of tokens) from an .npz with "
                                           "members Q, K, V"), menu=imp)
        export = self._menu(file, QT_TRANSLATE_NOOP("Menu", "&Export"))
        self._action("export_window", QT_TRANSLATE_NOOP("Menu", "Window as PNG…"), doc.export_window,
                     tip=QT_TRANSLATE_NOOP("Menu", "Save a picture of the whole window"), menu=export)
        figures = self._menu(export, QT_TRANSLATE_NOOP("Menu", "Panel as PNG/SVG"))
        for spec in self.docks:
            self._action(f"export_panel_{spec.name}", spec.title,
                         lambda checked=False, n=spec.name: doc.export_panel(n), menu=figures, context="Docks",
                         suffix="…")
        matrices = self._menu(export, QT_TRANSLATE_NOOP("Menu", "Matrix as CSV/NPY"))
        for name in doc.EXPORTABLE:
            self._action(f"export_matrix_{name}", name, lambda checked=False, n=name: doc.export_matrix(n),
                         menu=matrices, context="Matrices", suffix="…")
        export.addSeparator()
        self._action("export_script", QT_TRANSLATE_NOOP("Menu", "Session as Python script…"), doc.export_script,
                     tip=QT_TRANSLATE_NOOP("Menu", "Write the session as a NumPy script that recomputes ① S, ② A, "
                                           "③ O of every head, prints them and saves them: the chapter's code with "
                                           "your numbers"), menu=export)
        file.addSeparator()
        self._action("quit", QT_TRANSLATE_NOOP("Menu", "&Quit"), w.close, QKeySequence.Quit,
                     QT_TRANSLATE_NOOP("Menu", "Leave Attention Explorer"), file)

        edit = self._menu(bar, QT_TRANSLATE_NOOP("Menu", "&Edit"))
        stack = w.model.undo_stack
        undo = self._history_action("undo", QT_TRANSLATE_NOOP("Menu", "&Undo"), stack.undo, stack.canUndo,
                                    stack.canUndoChanged, stack.undoText, stack.undoTextChanged,
                                    QT_TRANSLATE_NOOP("Menu", "Undone: {step}"))
        undo.setShortcut(QKeySequence.Undo)
        redo = self._history_action("redo", QT_TRANSLATE_NOOP("Menu", "&Redo"), stack.redo, stack.canRedo,
                                    stack.canRedoChanged, stack.redoText, stack.redoTextChanged,
                                    QT_TRANSLATE_NOOP("Menu", "Redone: {step}"))
        keys = QKeySequence.keyBindings(QKeySequence.Redo)
        for extra in (QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")):
            if extra not in keys:  # a key bound twice is an "ambiguous shortcut" and does nothing
                keys.append(extra)
        redo.setShortcuts(keys)
        edit.addAction(undo)
        edit.addAction(redo)
        edit.addSeparator()
        editor = w.panels["editor"]
        self._action("copy", QT_TRANSLATE_NOOP("Menu", "&Copy"), editor.copy, QKeySequence.Copy,
                     QT_TRANSLATE_NOOP("Menu", "Copy the selected cells as tab-separated text"), edit)
        self._action("paste", QT_TRANSLATE_NOOP("Menu", "&Paste"), editor.paste, QKeySequence.Paste,
                     QT_TRANSLATE_NOOP("Menu", "Paste tab-separated numbers at the cell"), edit)
        edit.addSeparator()
        for key in ("add_token", "remove_token", "add_query", "remove_query", "add_dim_qk", "remove_dim_qk",
                    "add_dim_v", "remove_dim_v", "add_dim_x", "remove_dim_x", "cross", "randomize", "reset"):
            edit.addAction(editor.actions[key])  # (the editor translates its own actions and shows those of its mode)
        self._action("shuffle", QT_TRANSLATE_NOOP("Menu", "S&huffle tokens"),
                     lambda: self.shuffle(w.panels["positions"].seed.value()), "Ctrl+Shift+U",
                     QT_TRANSLATE_NOOP("Menu", "Reorder the tokens and check whether the outputs reorder the same "
                                       "way"), edit)

        edit.addSeparator()
        self._action("mark_a", QT_TRANSLATE_NOOP("Menu", "Mark as &A for comparison"), self.mark_a, "Ctrl+Shift+A",
                     QT_TRANSLATE_NOOP("Menu", "Keep the state now as A: edit on, and the A/B diff shows B − A for "
                                       "S, A and O"), edit)
        self._action("compare_file", QT_TRANSLATE_NOOP("Menu", "Compare with saved session…"),
                     lambda: doc.compare_with_file(),
                     tip=QT_TRANSLATE_NOOP("Menu", "Take A from a saved session of the same shape (only read)"),
                     menu=edit)
        self._action("clear_a", QT_TRANSLATE_NOOP("Menu", "Clear A"), self.clear_a,
                     tip=QT_TRANSLATE_NOOP("Menu", "Forget the state kept as A"), menu=edit)
        self.actions["clear_a"].setEnabled(False)  # no A at start; the comparison is made on first use
        edit.aboutToShow.connect(weakly(self._can_clear_a))

        view = self._menu(bar, QT_TRANSLATE_NOOP("Menu", "&View"))
        for spec in self.docks:  # choosing a panel brings it to the front; one in front already hides
            toggle = panel_action(w, w.docks[spec.name], spec.shortcut, "", spec.readable)
            self._say(lambda toggle=toggle, spec=spec: (
                toggle.setText(dock_title(spec)),
                toggle.setStatusTip(translate("Menu", "Bring the {title} panel to the front, or hide it when it is "
                                                      "in front").format(title=dock_title(spec)))))
            view.addAction(toggle)
            self.actions[f"view_{spec.name}"] = toggle
        view.addSeparator()
        self._action("reset_layout", QT_TRANSLATE_NOOP("Menu", "Reset &layout"), w.reset_layout, None,
                     QT_TRANSLATE_NOOP("Menu", "Put every panel back where it started"), view)
        self._language_menu(view)

        help_menu = self._menu(bar, QT_TRANSLATE_NOOP("Menu", "&Help"))
        self._action("about", QT_TRANSLATE_NOOP("Menu", "&About Attention Explorer"), self.about, None, None,
                     help_menu)

    def _history_action(self, key, prefix, do, can, can_changed, text, text_changed, done_text):
        """Edit ▸ Undo or Redo: "&Undo" and what it undoes (as QUndoStack's own action shows it), enabled
        while there is something to undo; its prefix follows the language. The status bar then says what was
        undone (``done_text``), in place of whatever it said about the step (a message of the edit undone)."""
        act = QAction(self.window)
        act.setEnabled(can())
        can_changed.connect(act.setEnabled)
        what = [text()]  # what it would undo now, as the stack last said (never asked of a stack being deleted)

        def trigger(checked=False):
            step = what[0]
            do()
            window = self.window
            if step and window is not None:
                window.statusBar().showMessage(translate("Menu", done_text).format(step=step), 5000)
        act.triggered.connect(trigger)

        def say(new=None):
            if new is not None:
                what[0] = new
            act.setText(" ".join(t for t in (translate("Menu", prefix), what[0]) if t))
        text_changed.connect(say)
        self._say(say)
        self.actions[key] = act
        return act

    def _language_menu(self, view):
        """View ▸ Language: English or 中文, each named in its own language; the choice is remembered."""
        menu = self._menu(view, QT_TRANSLATE_NOOP("Menu", "Lan&guage"))
        group = QActionGroup(self.window)
        for language, name in LANGUAGES.items():
            act = QAction(name, self.window)
            act.setCheckable(True)
            act.setChecked(language == current_language())
            act.triggered.connect(lambda checked=False, lang=language: self.choose_language(lang))
            group.addAction(act)
            menu.addAction(act)
            self.actions[f"language_{language}"] = act
        actions = self.actions  # (what _say keeps holds no reference back to the menus)
        self._say(lambda: actions[f"language_{current_language()}"].setChecked(True))

    def choose_language(self, language):
        """View ▸ Language: switch the whole interface now and start in it next time."""
        if set_language(language):
            remember_language(language)
        else:
            self.window.statusBar().showMessage(translate("Menu", "The {language} translation could not be loaded")
                                                .format(language=LANGUAGES[language]), 10000)
        self.actions[f"language_{current_language()}"].setChecked(True)

    def shuffle(self, seed):
        """Shuffle, show the check where it is explained, and say the verdict in the status bar."""
        w = self.window
        if not w.model.shuffle_tokens(seed):
            return  # refused (the status bar says why)
        w.docks["positions"].show()
        w.docks["positions"].raise_()
        check = w.model.shuffle_result()
        if check is None:
            return  # the shuffled session could not be computed (the status bar says why)
        if w.model.cross:  # the menu moves the keys (with their values): the same output, not a permuted one
            moved = translate("Menu", "keys")
            verdict = translate("Menu", "the same ✓") if check.equivariant else translate("Menu", "not the same ✗")
        else:
            moved = translate("Menu", "tokens")
            verdict = (translate("Menu", "equivariant ✓") if check.equivariant
                       else translate("Menu", "not equivariant ✗"))
        w.statusBar().showMessage(translate("Menu", "Shuffled the {moved}: the outputs are {verdict} (max difference "
                                                    "{difference})").format(
            moved=moved, verdict=verdict, difference=f"{check.max_difference:.2g}"), 10000)

    def _can_clear_a(self):
        """Edit ▸ Clear A only while there is an A (as the A/B diff's own button): said when the Edit menu
        opens and after its own A items (the comparison is not made, nor watched, before it is first used)."""
        self.actions["clear_a"].setEnabled(self.window.model.comparison.marked is not None)

    def clear_a(self):
        self.window.model.comparison.clear()
        self._can_clear_a()

    def mark_a(self):
        """Edit ▸ Mark as A: keep the state now and show the A/B diff (or say why it cannot be kept)."""
        w = self.window
        done = w.model.comparison.mark()
        self._can_clear_a()
        if not done:
            w.statusBar().showMessage(done.reason, 10000)
            return
        w.docks["ab_diff"].show()
        w.docks["ab_diff"].raise_()
        w.statusBar().showMessage(translate("Menu", "Marked the state now as A: edit on, and the A/B diff shows B − A"),
                                  10000)

    def about(self):
        QMessageBox.about(self.window, translate("Menu", "About Attention Explorer"),
                          f"<h3>Attention Explorer {__version__}</h3><p>"
                          + translate("Menu", "Attention is three matrix multiplications "
                                                "(Attention 就是三次矩阵乘):")
                          + "<br>① S = QKᵀ/√d &nbsp; ② A = softmax(S) &nbsp; ③ O = A·V.</p><p>"
                          + translate("Menu", "Edit any number and watch every stage recompute.") + "</p>")
