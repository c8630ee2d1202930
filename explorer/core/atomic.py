"""Write a file all-or-nothing: a temporary file in the same folder, fsync, then ``os.replace``.

Readers never see a half-written target: either the old file or the complete new one. On any
failure the temporary is removed and the error (an ``OSError`` or whatever the write raised)
propagates; callers turn it into their own error type (``SessionError``, ``MatrixFileError``).

A writer killed mid-save (SIGKILL, power) leaves its temporary behind. Its name,
``.<name>.<host>-<pid>.<random>.tmp``, says which process wrote it, so the next save or load of the
same target (:func:`remove_stale_temporaries`) removes the ones whose writer is gone, and never one
that a running process may still be writing.
"""
from __future__ import annotations

import os
import re
import socket
import stat
import tempfile
import time

__all__ = ["atomic_write_bytes", "atomic_write_text", "file_name", "remove_stale_temporaries",
           "STALE_AGE_S"]

# A temporary untouched for this long is stale whoever wrote it: a save writes its file in one go,
# and this covers a reused process id and writers on other hosts sharing the folder.
STALE_AGE_S = 24 * 3600
_TEMP_REST = re.compile(r"(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]{1,10})\.[a-z0-9_]{1,32}\.tmp")


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


def _host_tag() -> str:
    """8 hex digits naming this host in temporary names (a process id means nothing elsewhere)."""
    try:
        host = socket.gethostname()
    except OSError:
        host = ""
    import hashlib  # here: only a write needs it, and it is ~2 ms of start-up

    return hashlib.blake2s(host.encode("utf-8", "surrogateescape"), digest_size=4).hexdigest()


def _temp_prefix(path: str) -> str:
    """The start of every temporary name of ``path`` (a real path): ``.<name>.``."""
    return "." + os.path.basename(path)[:60] + "."


def _process_is_running(pid: int) -> bool:
    """Whether process ``pid`` exists (on POSIX; elsewhere assume it does: never remove)."""
    if os.name != "posix":  # os.kill(pid, 0) would terminate the process on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError, OSError):
        return True  # someone else's process, or an id we cannot ask about: keep its file
    return True


def remove_stale_temporaries(path) -> list[str]:
    """Remove the temporaries of ``path`` left by writers that are gone; returns the names removed.

    A temporary is stale when the process that wrote it (same host, id in its name) no longer runs,
    or when it has not been touched for STALE_AGE_S. Our own process's are kept (another thread may
    be saving). Only regular files whose whole name has the temporary's form are considered, and
    any error leaves the file where it is: this never raises.
    """
    try:
        real = os.path.realpath(os.fspath(path))
        directory = os.path.dirname(real) or "."
        prefix = _temp_prefix(real)
        with os.scandir(directory) as entries:
            candidates = [(entry.name, entry.path) for entry in entries
                          if entry.name.startswith(prefix) and entry.name.endswith(".tmp")]
    except (OSError, TypeError, ValueError):
        return []
    removed = []
    host, me, now = _host_tag(), os.getpid(), time.time()
    for name, full in candidates:
        match = _TEMP_REST.fullmatch(name[len(prefix):])
        if not match:
            continue
        try:
            info = os.lstat(full)
            if not stat.S_ISREG(info.st_mode):
                continue
            pid = int(match["pid"])
            if now - info.st_mtime > STALE_AGE_S:  # last written a day ago
                stale = True
            elif match["host"] != host or pid == me:
                stale = False
            else:
                stale = not _process_is_running(pid)
            if stale:
                os.unlink(full)
                removed.append(name)
        except OSError:
            continue
    return removed


def atomic_write_bytes(path, data) -> None:
    """Replace ``path`` with ``data`` atomically; a symlink's target is replaced, not the link.

    ``data`` is bytes, or an iterable of bytes written one after the other (a large file is never
    one string in memory, and a writer thread lets go of the GIL between pieces); an exception
    from it leaves ``path`` as it was. Afterwards the temporaries that killed saves of the same
    target left behind are removed.
    """
    path = os.path.realpath(os.fspath(path))
    directory = os.path.dirname(path) or "."
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o666 & ~_current_umask()
    # the writer's host and process id are in the name (read at each save: fork changes the id)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp",
                               prefix=f"{_temp_prefix(path)}{_host_tag()}-{os.getpid()}.")
    try:
        try:
            f = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            raise
        with f:
            if isinstance(data, (bytes, bytearray, memoryview)):
                f.write(data)
            else:
                for piece in data:
                    f.write(piece)
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
    remove_stale_temporaries(path)


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> None:
    """Encode ``text`` (strictly) and write it with :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode(encoding))
