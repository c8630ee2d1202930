"""File work of the window: new, open, save, recent files, import and export — with clear messages."""
import os
import re
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QPoint, QRectF, QSize, QStandardPaths, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from explorer.core import presets
from explorer.i18n import in_language, shown_error, translate
from explorer.widgets.plot_cache import axes_as_vectors
from explorer.core.errors import ExplorerError
from explorer.core.file_names import file_stem
from explorer.core.session import MAX_FILE_BYTES, load_session, save_session
from explorer.session_opener import SessionOpener
from explorer.settings_store import qsettings
from explorer.weak import WeakAttribute

# the file dialogs' filters (translated where used: keep each "(*.suffix)" as it is)
SESSION_FILTER = QT_TRANSLATE_NOOP("Documents", "Attention Explorer sessions (*.json *.aesz);;Attention Explorer "
                                   "sessions, JSON (*.json);;Attention Explorer sessions, binary (*.aesz);;All files (*)")
SAVE_FILTER = QT_TRANSLATE_NOOP("Documents", "Attention Explorer session, JSON (*.json);;Attention Explorer session, "
                                "binary (*.aesz)")
SAVE_FILTER_LARGE = QT_TRANSLATE_NOOP("Documents", "Attention Explorer session, binary (*.aesz);;Attention Explorer "
                                      "session, JSON (*.json)")
MATRIX_FILTER = QT_TRANSLATE_NOOP("Documents", "Matrices (*.npy *.npz *.csv *.tsv *.txt);;All files (*)")
EXPORT_FILTER = QT_TRANSLATE_NOOP("Documents", "CSV (*.csv);;NumPy (*.npy)")
NPZ_FILTER = QT_TRANSLATE_NOOP("Documents", "NumPy archives (*.npz);;All files (*)")
PICTURE_FILTER = QT_TRANSLATE_NOOP("Documents", "PNG image (*.png);;SVG drawing (*.svg)")
SCRIPT_FILTER = QT_TRANSLATE_NOOP("Documents", "Python script (*.py)")
MAX_RECENT = 8
BUSY_BYTES = 4 * 2 ** 20  # a session file this large takes a noticeable while to read or write (~0.1 s)
BACKGROUND_BYTES = 4 * 2 ** 20  # a session file this large is read off the GUI thread (session_opener)
LARGE_CELLS = 2 ** 20  # a session with this many cells is offered the binary form first (JSON ≥ ~20 MB)

LAST_FOLDER = "files/last_folder"  # QSettings key: where the next file dialog starts

class Documents:
    """Owns the current file path; every action reports success or the error in the status bar/dialog."""

    window = WeakAttribute()  # the window owns this: no reference back to it (freed at once with it)

    # (the English titles are the source texts of their translations, context "Presets")
    PRESET_TITLES = {"demo": QT_TRANSLATE_NOOP("Presets", "Chapter demo: 猫 追 红色 激光点"),
                     "uniform": QT_TRANSLATE_NOOP("Presets", "Uniform: all-zero queries"),
                     "previous_token": QT_TRANSLATE_NOOP("Presets", "Previous-token head (causal)"),
                     "random": QT_TRANSLATE_NOOP("Presets", "Random L=6, d=4 (seed 0)"),
                     "multi_head": QT_TRANSLATE_NOOP("Presets", "Two heads, projected: previous token + content "
                                                     "(D = 8)"),
                     "translation": QT_TRANSLATE_NOOP("Presets", "Cross-attention: queries “The cat chases the red "
                                                      "laser dot”, keys “猫 追 红色 激光点”"),
                     "grouped_query": QT_TRANSLATE_NOOP("Presets", "Grouped K/V heads: 8 query heads share 2 K/V heads "
                                                        "(GQA)")}
    EXPORTABLE = ("Q", "K", "V", QT_TRANSLATE_NOOP("Matrices", "Scores"), QT_TRANSLATE_NOOP("Matrices", "Weights"),
                  QT_TRANSLATE_NOOP("Matrices", "Output"))

    def __init__(self, window, path=None):
        self.window = window
        self.path = Path(path) if path else None
        self.opener = SessionOpener(window)
        self.opener.finished.connect(self._opened)
        self._reading = None  # (request, done, failed) of the file being read in the background

    @property
    def model(self):
        return self.window.model

    def display_name(self):
        return self.path.name if self.path else (self.model.session_title or "Untitled")

    def status(self, text):
        self.window.statusBar().showMessage(text, 10000)

    def error(self, title, text):
        self.status(text)
        QMessageBox.warning(self.window, title, text)

    @contextmanager
    def busy(self, text):
        """A wait cursor and ``text`` in the status bar, painted at once: reading or writing a large
        session holds the GUI thread (JSON at ~50 MB/s), and the window must say so, not just freeze."""
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        bar = self.window.statusBar()
        bar.showMessage(text)
        bar.repaint()
        try:
            yield
        finally:
            QApplication.restoreOverrideCursor()

    # ----- sessions ------------------------------------------------------------------------------
    def new_session(self, preset="demo"):
        if not self.maybe_save():
            return False
        self.model.load(presets.PRESETS[preset]())
        self.path = None
        self.window.update_title()
        self.window.say_when_ready(translate("Documents", "New session: {title}").format(title=self.model.title))
        return True

    def open_dialog(self):
        if not self.maybe_save():
            return False
        path = self.ask_open_path(translate("Documents", "Open session"), SESSION_FILTER)
        return self.open(path, ask=False) if path else False

    def open(self, path, ask=True, remember=True):
        """Load ``path``; on any problem show why and leave the current session exactly as it was.
        ``remember``: list it among the recent files (not for the command line's SESSION)."""
        if ask and not self.maybe_save():
            return False
        return self.read(path, lambda session: self._show_opened(session, path, remember),
                         lambda why: self.error(translate("Documents", "Could not open the session"), why))

    def read(self, path, done, failed):
        """Read the session file ``path``, then ``done(session)`` (validated) or ``failed(reason)``.
        A file over BACKGROUND_BYTES is read off the GUI thread (a JSON one in another process) and
        ``done`` comes later, the window usable meanwhile; a smaller one now. File ▸ Open, the command
        line and crash recovery all read this way; the newest read wins (an older one is dropped).
        False when it failed at once."""
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0  # load_session says what is wrong with it
        self.opener.cancel()  # a file still being read is overtaken by this one
        self._reading = None
        if BACKGROUND_BYTES < size <= MAX_FILE_BYTES:  # (a larger one is refused at once, unread)
            self.window.statusBar().showMessage(translate("Documents", "Opening {name} ({size} MB)…").format(
                name=Path(path).name, size=f"{size / 2 ** 20:.0f}"))
            self._reading = (self.opener.open(path, keep=self.model.results_shape()), done, failed)
            return True
        reading = (self.busy(translate("Documents", "Opening {name} ({size} MB)…").format(
            name=Path(path).name, size=f"{size / 2 ** 20:.0f}")) if size > BUSY_BYTES
                   else nullcontext())
        try:
            with reading:
                session = load_session(path)
        except ExplorerError as exc:
            failed(shown_error(exc))
            return False
        done(session)
        return True

    @property
    def opening(self):
        """True while a session file is being read in the background."""
        return self._reading is not None

    def _opened(self, request, path, session, error):
        """A file read in the background: handed on, or why not (unless a newer read overtook it)."""
        if self._reading is None or request != self._reading[0]:
            return
        _, done, failed = self._reading
        self._reading = None
        spare = self.opener.spare(request)  # its result buffers, made ready while it was read
        if session is None:
            if spare is not None:
                spare.release()
            failed(error)
            return
        self.model.expect(spare)
        try:
            done(session)
        finally:
            self.model.expect(None)  # not loaded after all (or loaded without them): let them go

    def _show_opened(self, session, path, remember=True):
        # A large session's results come from the worker: the window stays responsive meanwhile (the
        # views of results are covered, the status bar says so); saving needs only the session.
        self.model.load(session, validated=True)  # load_session validated it
        self.window.apply_layout(session.layout, geometry=False)
        self.path = Path(path)
        if remember:
            self._remember(self.path)
        self.window.update_title()
        self.window.say_when_ready(translate("Documents", "Opened {path}").format(path=self.path))

    # ----- the A of an A/B diff, from a saved session (read-only) ----------------------------------
    def compare_with_file(self, path=None):
        """Take A of the A/B diff from a saved session: read (and checked) as File ▸ Open reads it, never
        written, never loaded; a session whose stages have another shape is refused, naming both shapes."""
        if path is None:
            path = self.ask_open_path(translate("Documents", "Compare with saved session"), SESSION_FILTER)
            if not path:
                return False
        title = translate("Documents", "Could not compare")

        def done(session):
            taken = self.model.comparison.compare_with(session, Path(path).name)
            if not taken:
                self.error(title, taken.reason)
                return
            self.window.docks["ab_diff"].show()
            self.window.docks["ab_diff"].raise_()
            self.status(translate("Documents", "A is {name}: the A/B diff shows the state now minus it").format(
                name=Path(path).name))
        return self.read(path, done, lambda why: self.error(title, why))

    def save(self):
        return self.save_to(self.path) if self.path else self.save_as()

    def save_as(self):
        large = self._cells() >= LARGE_CELLS  # offered the binary form first: it opens without a wait
        name = self.path.name if self.path else self._stem("session") + (".aesz" if large else ".json")
        path = self.ask_save_path(translate("Documents", "Save session as"), name,
                                  SAVE_FILTER_LARGE if large else SAVE_FILTER)
        return self.save_to(Path(path)) if path else False

    def _stem(self, fallback):
        """The file name a session not saved yet is offered under: what it is called, else ``fallback``."""
        return file_stem(self.model.session_title, fallback)

    def ask_save_path(self, title, suggestion, filters):
        """A save dialog; a name typed without a suffix gets the one of the file type chosen."""
        start = str(Path(self._folder()) / suggestion)
        filters = translate("Documents", filters)
        path, chosen = QFileDialog.getSaveFileName(self.window, title, start, filters)
        if not path:
            return None
        self._used_folder(path)
        if not Path(path).suffix:
            match = re.search(r"\*(\.\w+)", chosen or filters)
            if match:
                path += match.group(1)
        return path

    def save_to(self, path):
        self.window.panels["editor"].commit_edits()
        cells = self._cells()
        writing = self.busy(f"Saving {Path(path).name}…") if cells * 20 > BUSY_BYTES else nullcontext()
        try:
            with writing:
                save_session(self.model.to_session(layout=self.window.layout_state()), path)
        except ExplorerError as exc:
            self.error(translate("Documents", "Could not save the session"), shown_error(exc))
            return False
        self.path = Path(path)
        self.model.mark_saved()
        self._remember(self.path)
        self.window.update_title()
        self.status(translate("Documents", "Saved {path}").format(path=self.path))
        return True

    def _cells(self):
        """How many numbers the session's matrices hold (~20 bytes each in its file)."""
        return sum(self.model.matrix(name).size for name in self.model.editable())

    def maybe_save(self):
        """Ask before unsaved edits are lost; True when it is fine to go on."""
        self.window.panels["editor"].commit_edits()
        if self.model.is_saved():
            return True
        answer = QMessageBox.question(
            self.window, translate("Documents", "Unsaved changes"),
            translate("Documents", "Save the changes to {name} first?").format(name=self.display_name()),
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        if answer == QMessageBox.Save:
            return self.save()
        return answer == QMessageBox.Discard

    # ----- recent files --------------------------------------------------------------------------
    def recent_files(self):
        value = qsettings().value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [p for p in (value or []) if isinstance(p, str)]

    def _remember(self, path):
        self._used_folder(path)
        files = [str(Path(path).resolve())] + [p for p in self.recent_files() if p != str(Path(path).resolve())]
        settings = qsettings()
        settings.setValue("recent", files[:MAX_RECENT])
        settings.sync()

    def fill_recent_menu(self):
        menu = self.window.recent_menu
        menu.clear()
        files = self.recent_files()
        for p in files:
            act = menu.addAction(Path(p).name, lambda p=p: self.open(p))
            act.setStatusTip(p)
            act.setToolTip(p)
        if not files:
            menu.addAction(translate("Documents", "(no recent files)")).setEnabled(False)

    def _folder(self):
        """Where a file dialog starts: the last folder a file was opened from or saved to (kept across
        runs), else the session's folder, else the person's documents folder (not the folder the app was
        started in: a new user's first Save landed in the app's own source folder)."""
        last = qsettings().value(LAST_FOLDER, "")
        if isinstance(last, str) and last and os.path.isdir(last):
            return last
        if self.path:
            return str(self.path.parent)
        documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return documents if documents and os.path.isdir(documents) else str(Path.home())

    def _used_folder(self, path):
        settings = qsettings()
        settings.setValue(LAST_FOLDER, str(Path(path).resolve().parent))
        settings.sync()

    def ask_open_path(self, title, filters):
        """An open dialog starting in the last folder used; the chosen file's folder is remembered."""
        path, _ = QFileDialog.getOpenFileName(self.window, title, self._folder(), translate("Documents", filters))
        if path:
            self._used_folder(path)
        return path

    # ----- matrices ------------------------------------------------------------------------------
    def import_matrix(self, name, path=None):
        if path is None:
            path = self.ask_open_path(translate("Documents", "Import a matrix into {name}").format(name=name),
                                      MATRIX_FILTER)
            if not path:
                return False
        from explorer.core.matrix_io import load_matrix  # (the matrix files' module: not on the start-up path)

        try:
            array = load_matrix(path)
        except ExplorerError as exc:
            self.error(translate("Documents", "Could not import into {name}").format(name=name), shown_error(exc))
            return False
        done = self.model.replace_matrix(name, array, source=Path(path).name)
        if not done:
            self.error(translate("Documents", "Could not import into {name}").format(name=name), done.reason +
                       "\n\n" + translate("Documents", "To change the number of tokens or the widths of Q and K "
                                                       "together, import Q, K and V from one .npz (File ▸ Import "
                                                       "matrix ▸ Q, K and V from one .npz)."))
            return False
        self.status(translate("Documents", "Imported {file} into {name} ({rows}×{cols})").format(
            file=Path(path).name, name=name, rows=array.shape[0], cols=array.shape[1]))
        return True

    def import_qkv(self, path=None):
        """Q, K and V at once from one .npz with members Q, K, V — the way to change every shape."""
        if path is None:
            path = self.ask_open_path(translate("Documents", "Import Q, K and V from one .npz"), NPZ_FILTER)
            if not path:
                return False
        from explorer.core.matrix_io import load_matrix

        try:
            mats = {n: load_matrix(path, member=n) for n in ("Q", "K", "V")}
        except ExplorerError as exc:
            self.error(translate("Documents", "Could not import Q, K and V"), shown_error(exc))
            return False
        done = self.model.replace_inputs(mats)
        if not done:
            self.error(translate("Documents", "Could not import Q, K and V"), done.reason)
            return False
        self.status(translate("Documents", "Imported Q, K and V from {file}").format(file=Path(path).name))
        return True

    def results_for_export(self, what):
        """Bring the results up to date (``flush``); when they still are not the session's (their
        recompute failed: not enough memory), say in the status bar why ``what`` is not exported and
        return False — never the previous numbers under the new session's name."""
        self.model.flush()
        if self.model.up_to_date:
            return True
        why = self.model.failure or "it has not been computed"
        self.status(translate("Documents", "Did not export {what}: the attention of this session could not be "
                                           "computed ({why}). Change the session to try again.").format(
            what=what, why=in_language(why)))
        return False

    def matrix_for_export(self, name):
        """The matrix as the attention uses it (in projected mode Q, K, V are X·Wᵀ, before RoPE), or
        None when it needs results that could not be computed (the status bar says why)."""
        if name in ("Q", "K", "V") and not self.model.projected:
            return self.model.matrix(name)  # the session's own: no results needed
        if not self.results_for_export(name):
            return None
        r, h = self.model.results, self.model.settings.selected_head
        if name in ("Q", "K", "V"):
            return {"Q": r.q_in, "K": r.k_in, "V": r.v}[name]
        return {"Scores": r.heads.scores[h], "Weights": r.heads.weights[h], "Output": r.heads.output}[name]

    def export_matrix(self, name, path=None):
        if path is None:
            path = self.ask_save_path(translate("Documents", "Export {name}").format(name=translate("Matrices", name)),
                                      f"{name}.csv", EXPORT_FILTER)
            if not path:
                return False
        array = self.matrix_for_export(name)
        if array is None:
            return False
        from explorer.core.matrix_io import save_matrix

        try:
            save_matrix(np.asarray(array), path)
        except ExplorerError as exc:
            self.error(translate("Documents", "Could not export {name}").format(name=name), shown_error(exc))
            return False
        self.status(translate("Documents", "Exported {name} to {path}").format(name=name, path=path))
        return True

    # ----- the session as code (F20) ---------------------------------------------------------------
    def export_script(self, path=None):
        """The session as a runnable NumPy script that recomputes, prints and saves ① S, ② A, ③ O (its numbers
        in an .npz beside it when they are many); a setting it cannot reproduce is refused by name."""
        if path is None:
            suggestion = (self.path.stem if self.path else self._stem("attention")) + ".py"
            path = self.ask_save_path(translate("Documents", "Export the session as a Python script"), suggestion,
                                      SCRIPT_FILTER)
            if not path:
                return False
        self.window.panels["editor"].commit_edits()
        cells = self._cells()
        writing = self.busy(translate("Documents", "Exporting {file}…").format(file=Path(path).name)) if cells * 8 > BUSY_BYTES else nullcontext()
        try:
            with writing:
                from explorer.core.as_code import write_script  # (only for this menu item: not at start-up)

                written = write_script(self.model.to_session(), path)
        except ExplorerError as exc:
            self.error(translate("Documents", "Could not export the script"), shown_error(exc))
            return False
        beside = translate("Documents", ", its numbers in {file} beside it").format(
            file=written.matrices_name) if written.matrices_name else ""
        self.status(translate("Documents", "Exported the session as a Python script to {path}{beside} — run it with "
                                           "python3").format(path=path, beside=beside))
        return True

    # ----- figures -------------------------------------------------------------------------------
    def export_window(self, path=None):
        if path is None:
            path = self.ask_save_path(translate("Documents", "Export the window"), "window.png", PICTURE_FILTER)
            if not path:
                return False
        return self._write_image(self.window, path)

    def export_panel(self, name, path=None):
        if path is None:
            path = self.ask_save_path(translate("Documents", "Export the panel"), f"{name}.png", PICTURE_FILTER)
            if not path:
                return False
        dock = self.window.docks[name]
        if dock.visibleRegion().isEmpty():  # closed, or a tab behind another: bring it to the front, so
            dock.show()  # the picture is the panel laid out at its size, not a never-shown sliver
            dock.raise_()
            QApplication.processEvents()
        return self._write_image(self.window.panels[name], path)

    def _write_image(self, widget, path):
        if not self.results_for_export(Path(path).name):
            return False
        self.window.uncover_now()  # the results are here: no "Computing…" on the picture
        built = self.window.panels.built().values()  # a panel never built is on no picture
        for panel in ([widget] if widget in built else built):
            panel.refresh()  # a hidden panel has not drawn the latest numbers
        if str(path).lower().endswith(".svg"):
            with axes_as_vectors(widget):
                ok = write_svg(widget, path)
        else:
            ok = widget.grab().save(str(path), "PNG")
        if ok:
            self.status(translate("Documents", "Exported {path}").format(path=path))
        else:
            self.error(translate("Documents", "Could not export"), translate("Documents", "{path}: the picture could not be written (is the folder writable?)").format(path=path))
        return ok


def write_svg(widget, path):
    """Render ``widget`` into an SVG drawing (vector where Qt paints vectors)."""
    from PySide6.QtSvg import QSvgGenerator  # only for SVG export: not on the start-up path

    size = widget.size()
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(QSize(size.width(), size.height()))
    gen.setViewBox(QRectF(0, 0, size.width(), size.height()))
    gen.setTitle("Attention Explorer")
    painter = QPainter()
    if not painter.begin(gen):
        return False
    QWidget.render(widget, painter, QPoint())  # not widget.render: panels define their own render(flags)
    painter.end()
    return Path(path).exists()
