"""Write a file all-or-nothing: a temporary file in the same folder, fsync, then ``os.replace``.

Readers never see a half-written target: either the old file or the complete new one. On any
failure the temporary is removed and the error (an ``OSError`` or whatever the write raised)
propagates; callers turn it into their own error type (``SessionError``, ``MatrixFileError``).
"""
from __future__ import annotations

import os
import stat
import tempfile

__all__ = ["atomic_write_bytes", "atomic_write_text", "file_name"]


def file_name(path) -> str:
    """The base name of ``path`` for error messages ("demo.json: …"); never raises."""
    try:
        text = os.fsdecode(os.fspath(path))
    except Exception:
        return repr(path)
    return os.path.basename(text.rstrip("/\\")) or text


def _current_umask() -> int:
    """The process umask, read without changing it (Linux /proc); 0o022 when unknown."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _fsync_directory(directory: str) -> None:
    """Make the rename durable where the platform allows it (POSIX); ignore where it does not."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; a symlink's target is replaced, not the link."""
    path = os.path.realpath(os.fspath(path))
    directory = os.path.dirname(path) or "."
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o666 & ~_current_umask()
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path)[:60] + ".",
                               suffix=".tmp")
    try:
        try:
            f = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            raise
        with f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if hasattr(os, "chmod"):
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> None:
    """Encode ``text`` (strictly) and write it with :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode(encoding))
