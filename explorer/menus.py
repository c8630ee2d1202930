"""The window's menus: File, Edit, View and Help, their actions in ``window.actions``."""
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox

from explorer import __version__
from explorer.view_menu import panel_action


class WindowMenus:
    """Builds the menu bar of ``window``; every action is kept in ``window.actions`` by key."""

    def __init__(self, window, docks):
        self.window, self.docks = window, docks  # docks: the DockSpecs, in the View menu's order
        self.actions = window.actions = {}
        self._build()

    def _action(self, key, text, slot, shortcut=None, tip=None, menu=None):
        act = QAction(text, self.window)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if tip:
            act.setStatusTip(tip)
            act.setToolTip(tip)
        act.triggered.connect(lambda checked=False: slot())  # never pass `checked` on as an argument
        self.actions[key] = act
        if menu is not None:
            menu.addAction(act)
        return act

    def _build(self):
        w = self.window
        doc, bar = w.documents, w.menuBar()
        file = bar.addMenu("&File")
        self._action("new", "&New (chapter demo)", doc.new_session, QKeySequence.New,
                     "Start again from the chapter's demo 猫 追 红色 激光点", file)
        presets = file.addMenu("New from &preset")
        for key, text in doc.PRESET_TITLES.items():
            self._action(f"preset_{key}", text, lambda checked=False, k=key: doc.new_session(k), menu=presets)
        self._action("open", "&Open…", doc.open_dialog, QKeySequence.Open, "Open a saved session (.json)", file)
        self._action("open_model", "Open &model…", lambda: w.open_model(choose=True), "Ctrl+Shift+M",
                     "See every head of a real model (the tiny one that ships with the explorer, one in your "
                     "Hugging Face cache, or a folder) and open any head as the session", file)
        w.recent_menu = file.addMenu("Open &Recent")
        w.recent_menu.aboutToShow.connect(doc.fill_recent_menu)
        self._action("save", "&Save", doc.save, QKeySequence.Save, "Save the session", file)
        self._action("save_as", "Save &As…", doc.save_as, QKeySequence.SaveAs, "Save the session under a new name", file)
        file.addSeparator()
        imp = file.addMenu("&Import matrix")
        for name in ("Q", "K", "V"):
            self._action(f"import_{name}", f"into {name}…", lambda checked=False, n=name: doc.import_matrix(n),
                         tip=f"Replace {name} with a matrix from a .npy, .npz or .csv file", menu=imp)
        self._action("import_qkv", "Q, K and V from one .npz…", doc.import_qkv,
                     tip="Replace Q, K and V (and the number of tokens) from an .npz with members Q, K, V", menu=imp)
        export = file.addMenu("&Export")
        self._action("export_window", "Window as PNG…", doc.export_window, tip="Save a picture of the whole window",
                     menu=export)
        figures = export.addMenu("Panel as PNG/SVG")
        for spec in self.docks:
            self._action(f"export_panel_{spec.name}", f"{spec.title}…",
                         lambda checked=False, n=spec.name: doc.export_panel(n), menu=figures)
        matrices = export.addMenu("Matrix as CSV/NPY")
        for name in doc.EXPORTABLE:
            self._action(f"export_matrix_{name}", f"{name}…", lambda checked=False, n=name: doc.export_matrix(n),
                         menu=matrices)
        export.addSeparator()
        self._action("export_script", "Session as Python script…", doc.export_script,
                     tip="Write the session as a NumPy script that recomputes ① S, ② A, ③ O of every head, prints them "
                         "and saves them: the chapter's code with your numbers", menu=export)
        file.addSeparator()
        self._action("quit", "&Quit", w.close, QKeySequence.Quit, "Leave Attention Explorer", file)

        edit = bar.addMenu("&Edit")
        undo = w.model.undo_stack.createUndoAction(w, "&Undo")
        undo.setShortcut(QKeySequence.Undo)
        redo = w.model.undo_stack.createRedoAction(w, "&Redo")
        keys = QKeySequence.keyBindings(QKeySequence.Redo)
        for extra in (QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")):
            if extra not in keys:  # a key bound twice is an "ambiguous shortcut" and does nothing
                keys.append(extra)
        redo.setShortcuts(keys)
        edit.addAction(undo)
        edit.addAction(redo)
        self.actions["undo"], self.actions["redo"] = undo, redo
        edit.addSeparator()
        editor = w.panels["editor"]
        self._action("copy", "&Copy", editor.copy, QKeySequence.Copy, "Copy the selected cells as tab-separated text",
                     edit)
        self._action("paste", "&Paste", editor.paste, QKeySequence.Paste, "Paste tab-separated numbers at the cell",
                     edit)
        edit.addSeparator()
        for key in ("add_token", "remove_token", "add_query", "remove_query", "cross", "randomize", "reset"):
            edit.addAction(editor.actions[key])
        self._action("shuffle", "S&huffle tokens", lambda: self.shuffle(w.panels["positions"].seed.value()),
                     "Ctrl+Shift+U",
                     "Reorder the tokens and check whether the outputs reorder the same way", edit)

        view = bar.addMenu("&View")
        for spec in self.docks:  # choosing a panel brings it to the front; one in front already hides
            toggle = panel_action(w, w.docks[spec.name], spec.shortcut,
                                  f"Bring the {spec.title} panel to the front, or hide it when it is in front")
            view.addAction(toggle)
            self.actions[f"view_{spec.name}"] = toggle
        view.addSeparator()
        self._action("reset_layout", "Reset &layout", w.reset_layout, None, "Put every panel back where it started",
                     view)

        help_menu = bar.addMenu("&Help")
        self._action("about", "&About Attention Explorer", self.about, None, None, help_menu)

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
            moved, verdict = "keys", "the same ✓" if check.equivariant else "not the same ✗"
        else:
            moved, verdict = "tokens", "equivariant ✓" if check.equivariant else "not equivariant ✗"
        w.statusBar().showMessage(f"Shuffled the {moved}: the outputs are {verdict} "
                                f"(max difference {check.max_difference:.2g})", 10000)

    def about(self):
        QMessageBox.about(self.window, "About Attention Explorer",
                          f"<h3>Attention Explorer {__version__}</h3>"
                          "<p>Attention is three matrix multiplications (Attention 就是三次矩阵乘):<br>"
                          "① S = QKᵀ/√d &nbsp; ② A = softmax(S) &nbsp; ③ O = A·V.</p>"
                          "<p>Edit any number and watch every stage recompute.</p>")
