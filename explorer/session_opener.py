"""Opening a large session file without freezing the window (issue 18).

A binary session (``.aesz``) is read on a thread: file reads and NumPy's checks let go of the GIL,
and the rest comes in steps of a few milliseconds. A JSON session cannot be: ``json.loads`` holds
the GIL for the whole parse (~1.3 s of the ~2.5 s a 4096 × 512 session takes), whatever thread runs
it. So another process reads it (``explorer.core.session_convert``: every check of the format) and
hands it back in the binary form, which the thread then reads. If no such process can be started
the thread reads the JSON itself (slower for the window, never wrong).

The newest request wins: a result of an older one is dropped, and its process is stopped.

As soon as the file's description gives the session's shape (before its matrices are read; from the
other process for JSON), a large session's result buffers are made and its shown head's memory is
touched on a thread (``core.spare_buffers``): ``spare(request)`` hands them on with the session.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from explorer.core.errors import SessionError
from explorer.core.session import ZIP_SIGNATURE, load_session
from explorer.core.session_convert import FAILED, read_outline, read_refusal
from explorer.core.spare_buffers import outline_shape, spare_for
from explorer.i18n import shown_error, translate

_ROOT = str(Path(__file__).resolve().parents[1])  # where ``explorer`` is importable from


def _is_binary(path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == ZIP_SIGNATURE


class SessionOpener(QObject):
    """Reads session files on a thread; ``finished(request, path, session, error)`` on the GUI thread."""

    finished = Signal(int, object, object, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.request = 0
        self._process = None
        self._lock = threading.Lock()
        self._spare = None  # (request, SpareBuffers) made for the request's session while it is read
        self._keep = None  # the (H, Lq, Lk) of results the window will reuse: no spare for those

    def open(self, path, keep=None) -> int:
        """Start reading ``path``; returns the request number ``finished`` will carry. ``keep``: the
        shape (H, Lq, Lk) of the window's current results (a session of that shape reuses them)."""
        self.cancel()
        self.request += 1
        self._keep = keep
        threading.Thread(target=self._read, args=(self.request, path), daemon=True,
                         name="session-opener").start()
        return self.request

    def cancel(self):
        """Forget the request in progress (its result is dropped) and stop its process."""
        self.request += 1
        with self._lock:
            process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
        self.spare(None)

    def spare(self, request):
        """The SpareBuffers made for ``request``'s session (once; the caller takes them over), or None;
        any made for another request are released."""
        with self._lock:
            made, self._spare = self._spare, None
        if made is not None and made[0] == request:
            return made[1]
        if made is not None:
            made[1].release()
        return None

    def _prepare(self, request, shape):
        """The read found the session's shape: make its result buffers ready meanwhile (if large)."""
        if request != self.request:
            return
        try:
            made = spare_for(shape, self._keep)
        except Exception:  # noqa: BLE001 — a bug here must never stop the file from opening
            return
        if made is None:
            return
        with self._lock:
            old, self._spare = self._spare, (request, made)
        if old is not None:
            old[1].release()
        if request != self.request:  # overtaken meanwhile
            self.spare(None)

    def busy(self) -> bool:
        return self._process is not None

    def _read(self, request, path):
        session, error = None, ""
        try:
            session = (load_session(path, on_outline=lambda *outline: self._prepare(request, outline_shape(*outline)))
                       if _is_binary(path) else self._read_json(request, path))
        except SessionError as exc:
            error = shown_error(exc)
        except OSError:
            try:  # say what load_session says about a file that cannot be opened
                session = load_session(path)
            except SessionError as exc:
                error = shown_error(exc)
        except Exception as exc:  # a bug: still a message, never a crash of the thread
            error = translate("Documents", "{name}: could not be read ({kind}: {detail})").format(
                name=Path(path).name, kind=type(exc).__name__, detail=str(exc)[:200])
        if request == self.request:
            self.finished.emit(request, path, session, error)

    def _read_json(self, request, path):
        fd, converted = tempfile.mkstemp(suffix=".aesz", prefix="attention-explorer-open-")
        os.close(fd)
        try:
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH", "")) if p)
            # its errors go to a file: a pipe left unread while its outline is awaited could fill up
            with tempfile.TemporaryFile() as errors:
                try:
                    process = subprocess.Popen(
                        [sys.executable, "-m", "explorer.core.session_convert", os.fspath(path), converted],
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors, env=env)
                except OSError:
                    return load_session(path)  # no process to be had: read it here
                with self._lock:
                    self._process = process
                with process.stdout:
                    for line in process.stdout:  # its outline, when parsed; the end when it exits (or is killed)
                        self._prepare(request, read_outline(line.decode("ascii", "replace")))
                process.wait()
                errors.seek(0)
                err = errors.read()
            with self._lock:
                if self._process is process:
                    self._process = None
            if request != self.request:
                return None  # overtaken: nobody wants it
            if process.returncode == FAILED:
                lines = err.decode("utf-8", "replace").strip().splitlines()
                raise SessionError(read_refusal(lines[-1]) if lines else f"{Path(path).name}: could not be read")
            if process.returncode != 0:
                return load_session(path)  # the process failed (not the file): read it here
            return load_session(converted)
        finally:
            try:
                os.unlink(converted)
            except OSError:
                pass
