"""Autosave and crash recovery: a recovery copy written atomically every few seconds after edits.

Each running window owns one recovery file, guarded by a QLockFile so two instances never write
the same file; a file whose lock nobody holds was left by a crash and is offered at the next start.
"""
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QTimer
from PySide6.QtWidgets import QMessageBox

from explorer import documents
from explorer.core.errors import ExplorerError
from explorer.core.session import load_session, save_session
from explorer.core.session_words import size_text
from explorer.i18n import translate
from explorer.settings_store import data_dir
from explorer.weak import WeakAttribute

AUTOSAVE_MS = 1500
SAVE_SHARE = 0.1  # a large session autosaves less often: writing takes at most this share of the time


def recovery_dir():
    folder = data_dir() / "recovery"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def describe_orphan(path):
    """' of demo.json' when the recovery copy remembers its file, else ''; never raises. A copy too
    large to read at once (it is read off the GUI thread when restored) is described by its size."""
    try:
        size = path.stat().st_size
        if size > documents.BACKGROUND_BYTES:
            return f" ({size_text(size)})"
        original = (load_session(path).layout or {}).get("file")
    except (ExplorerError, OSError):
        return ""
    return f" of {Path(original).name}" if original else ""


def _timed_save(session, path):
    """Save, and say how long it took (seconds), on the writer thread."""
    started = time.monotonic()
    save_session(session, path)
    return time.monotonic() - started


class Recovery(QObject):
    """Writes the window's session to its own recovery file while there are unsaved edits."""

    window = WeakAttribute()  # the window owns this: no reference back to it (freed at once with it)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        stem = f"session-{os.getpid()}-{int(time.time() * 1000)}"
        for attempt in range(100):  # a name another window holds (same process, same millisecond): the next
            name = stem if attempt == 0 else f"{stem}-{attempt}"
            self.path = recovery_dir() / f"{name}.json"
            self._lock = QLockFile(str(recovery_dir() / f"{name}.lock"))
            self._lock.setStaleLockTime(0)
            self._locked = self._lock.tryLock(0)
            if self._locked:
                break
        self._pending = False
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autosave")
        self._saving = None  # the write in progress (a Future of _timed_save)
        self._replaces = None  # a restored recovery copy, removed once this window's own is written
        self._timer = QTimer(self)
        self._timer.setInterval(AUTOSAVE_MS)
        self._timer.timeout.connect(self._tick)
        self._timer.start()
        window.model.undo_stack.indexChanged.connect(self._mark)
        window.model.changed.connect(self._mark)  # a drag updates its one undo step in place
        window.model.undo_stack.cleanChanged.connect(self._on_clean)

    def _mark(self, *args):
        self._pending = True

    def _on_clean(self, clean):
        if clean:
            self._pending = False
            self._collect(wait=True)  # a write still running would bring the file back
            self._remove_file()

    def _tick(self):
        self.autosave(wait=False)

    def autosave(self, wait=True):
        """Write the recovery copy if anything changed since the last one (atomic, so never half a file).

        The session is taken on this thread; turning it into JSON and writing it happen on a writer
        thread (a 4096 × 768 session is ~200 MB of text), so editing never waits for the disk.
        """
        if not self._collect(wait) or not self._pending or not self._locked:
            return
        self._pending = False
        if self.window.model.undo_stack.isClean():
            self._remove_file()
            return
        layout = self.window.layout_state()
        if self.window.documents.path is not None:
            layout["file"] = str(self.window.documents.path)  # so a restore saves back to it
        session = self.window.model.to_session(layout=layout)
        self._saving = self._writer.submit(_timed_save, session, self.path)
        if wait:
            self._collect(wait=True)

    def _collect(self, wait=False):
        """Finish with the previous write: report its error, and space writes by their cost. False
        while it is still running (the next tick tries again)."""
        if self._saving is None:
            return True
        future, self._saving = self._saving, None
        if not wait and not future.done():
            self._saving = future
            return False
        try:
            took_s = future.result()
        except (ExplorerError, OSError, MemoryError) as exc:
            self.window.statusBar().showMessage(translate("Recovery", "Autosave failed: {why}").format(
                why=exc or translate("Recovery", "not enough memory")), 10000)
        else:
            self._timer.setInterval(max(AUTOSAVE_MS, int(took_s * 1000 / SAVE_SHARE)))
            if self._replaces is not None:
                self._replaces.unlink(missing_ok=True)
                self._replaces = None
        return True

    def discard(self):
        """A clean exit: remove this window's recovery file and its lock."""
        self._timer.stop()
        self._collect(wait=True)  # a write still running would bring the file back
        self._writer.shutdown(wait=True)
        self._remove_file()
        if self._locked:
            self._lock.unlock()
            self._locked = False

    def _remove_file(self):
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            self.window.statusBar().showMessage(translate("Recovery", "Could not remove the recovery file {path}: {why}")
                                                .format(path=self.path, why=exc), 10000)

    # ----- after a crash -------------------------------------------------------------------------
    @staticmethod
    def orphans():
        """Recovery files left by instances that are no longer running, newest first."""
        found = []
        for path in recovery_dir().glob("session-*.json"):
            lock = QLockFile(str(path.with_suffix(".lock")))
            lock.setStaleLockTime(0)
            if lock.tryLock(0):  # nobody holds it: its writer is gone
                lock.unlock()
                found.append(path)
        return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)

    def offer(self):
        """At start-up: offer to restore the newest orphaned recovery file; True if one was restored
        (or, large, is being read to be restored: off the GUI thread, as File ▸ Open reads it)."""
        for path in self.orphans():
            answer = QMessageBox.question(
                self.window, "Restore unsaved work?",
                f"Attention Explorer did not close cleanly last time. Restore the unsaved session"
                f"{describe_orphan(path)} from "
                f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(path.stat().st_mtime))}?",
                QMessageBox.Yes | QMessageBox.No, QMessageBox.Yes)
            if answer != QMessageBox.Yes:
                path.unlink(missing_ok=True)
                continue
            later = []  # set once the read went to the background: a failure then offers the next one

            def unreadable(why, path=path):
                self._keep_unreadable(path, why)
                if later:
                    self.offer()

            if not self.window.documents.read(path, lambda session, path=path: self._restore(path, session),
                                              unreadable):
                continue
            later.append(True)
            return True
        return False

    def _restore(self, path, session):
        """The recovery copy ``path`` was read (validated by load_session): it becomes the session; a
        large one is computed in the background, as File ▸ Open does."""
        self.window.model.load(session, validated=True)
        self.window.model.undo_stack.resetClean()  # restored edits are not saved anywhere yet
        original = (session.layout or {}).get("file")
        self.window.documents.path = Path(original) if original else None
        self.window.update_title()
        # The copy goes once this window's own has been written (a large one on the writer thread,
        # the GUI not waiting for it): never a moment with neither on disk.
        self._replaces = path
        self._pending = True
        try:
            large = path.stat().st_size > documents.BACKGROUND_BYTES
        except OSError:
            large = False
        self.autosave(wait=not large)
        self.window.say_when_ready(translate("Recovery", "Restored the unsaved session from the last run."))

    def _keep_unreadable(self, path, why):
        """Never delete unsaved work we could not read (a newer version may read it): keep it aside,
        out of the pattern offered at start-up, and say where."""
        kept = path.with_name(f"unreadable-{path.name}")
        try:
            path.replace(kept)
        except OSError:
            kept = path
        QMessageBox.warning(self.window, "Could not restore", f"{why}\n\nThe file is kept as {kept}.")
