"""The binary session form (``.aesz``): the same session, its matrices as ``.npy`` members of a zip.

A 4096 × 512 session is ~130 MB of JSON, and parsing it (``json.loads`` holds the GIL, ~1.3 s) would
freeze the window whatever thread did it. The binary form is a zip of

* ``session.json`` — the session's JSON exactly as ``session_write`` makes it, except that each
  entry of ``matrices`` is the name of a member (``"Q": "Q.npy"``) instead of its rows;
* one ``.npy`` per matrix (float64, C order), stored uncompressed (floats barely compress).

Reading checks the zip's directory size and member count before ``zipfile`` parses it, each
``.npy`` header (no pickle ever; dtype, dimensions and cells) before anything is allocated (the same
reader as ``matrix_io``), then puts the session through every check a JSON session gets (upgrades,
fields, tokens, shapes, values, settings: ``session_read``). Only SessionError escapes, its message
starting with the file name. Writing validates first and goes through ``atomic_write_bytes``.
"""
from __future__ import annotations

import zipfile
from typing import Any, BinaryIO

import numpy as np

from .errors import MatrixFileError, SessionError
from .matrix_io import _read_npy, _zip_directory_size
from .session_data import Session
from .session_limits import MAX_CELLS, MAX_FILE_BYTES
from .session_read import session_from_json
from .session_words import describe, short, size_text
from .session_write import _dump, session_pieces
from .translatable import QT_TRANSLATE_NOOP, message_of

DESCRIPTION = "session.json"  # the member holding everything but the matrices' numbers
MAX_MEMBERS = 64  # the description and a matrix each, with room: a session has at most a dozen
MAX_DIRECTORY_BYTES = 64 * 2 ** 10
MAX_DESCRIPTION_BYTES = 32 * 2 ** 20  # tokens, settings and layout: far below this
_BLOCK_BYTES = 4 * 2 ** 20  # a matrix is written a block of rows at a time


class _Chunks:
    """A write-only stream collecting what ``zipfile`` writes, handed on in pieces (no seek: zipfile
    then writes each member's sizes after its data, and never goes back)."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.position = 0

    def write(self, data) -> int:
        data = bytes(data)
        self.parts.append(data)
        self.position += len(data)
        return len(data)

    def tell(self) -> int:
        return self.position

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def session_zip_pieces(session: Session, where: str = "session"):
    """The bytes of the binary form of a valid session (validated first), in pieces."""
    description = session_pieces(session, where, matrix_text=lambda name, array: [_dump(f"{name}.npy")])
    text = "".join(description).encode("utf-8")  # validates the session before any byte is made
    matrices = session.matrices
    out = _Chunks()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(DESCRIPTION, text)
        yield out.take()
        for name, array in matrices.items():
            array = np.ascontiguousarray(array, dtype=np.float64)
            with archive.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array_header_1_0(member, np.lib.format.header_data_from_array_1_0(array))
                rows = max(1, _BLOCK_BYTES // max(1, array.strides[0]))
                for start in range(0, len(array), rows):
                    member.write(memoryview(array[start:start + rows]).cast("B"))
                    yield out.take()
    yield out.take()  # the central directory


def read_session_zip(f: BinaryIO, size: int, where: str, on_outline=None) -> Session:
    """The session in an open binary-form file of ``size`` bytes. Only SessionError escapes.
    ``on_outline``: see ``session_read.load_session``."""
    try:
        return _read(f, size, where, on_outline)
    except SessionError:
        raise
    except MatrixFileError as e:
        raise SessionError(message_of(e)) from None
    except MemoryError:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is too large to load (out of memory)").format(
                               where=where)) from None
    except Exception as e:  # BadZipFile, EOFError, unsupported compression, a bug: still a message
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is a damaged binary session ({kind}: "
                                                        "{detail})").format(where=where, kind=type(e).__name__,
                               detail=str(e)[:200])) from None


def _read(f: BinaryIO, size: int, where: str, on_outline=None) -> Session:
    if size > MAX_FILE_BYTES:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is {size}; session files are limited to "
                                                        "{max_file_bytes}").format(where=where,
                               size=size_text(size), max_file_bytes=size_text(MAX_FILE_BYTES)))
    members, directory = _zip_directory_size(f, size, where)
    if members > MAX_MEMBERS or directory > MAX_DIRECTORY_BYTES:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is an archive of {members} members; a "
                                                        "binary session has at most {max_members}").format(
                               where=where, members=members, max_members=MAX_MEMBERS))
    with zipfile.ZipFile(f) as archive:
        infos = {info.filename: info for info in archive.infolist() if not info.is_dir()}
        if DESCRIPTION not in infos:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is a zip archive but not a binary "
                                                            "session (it has no {description})").format(
                                   where=where, description=DESCRIPTION))
        for info in infos.values():
            if info.flag_bits & 0x1:
                raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {filename} is encrypted").format(
                                       where=where, filename=info.filename))
        described = infos[DESCRIPTION]
        if described.file_size > MAX_DESCRIPTION_BYTES:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: its {description} is {file_size}; the "
                                                            "most is {max_description_bytes}").format(
                                   where=where, description=DESCRIPTION,
                                   file_size=size_text(described.file_size),
                                   max_description_bytes=size_text(MAX_DESCRIPTION_BYTES)))
        with archive.open(described) as fp:
            text = fp.read(MAX_DESCRIPTION_BYTES + 1)
        if len(text) > MAX_DESCRIPTION_BYTES:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: its {description} is larger than "
                                                            "{max_description_bytes}").format(where=where,
                                   description=DESCRIPTION,
                                   max_description_bytes=size_text(MAX_DESCRIPTION_BYTES)))

        def read_matrix(value: Any, place: str, _where: str) -> np.ndarray:
            """A ``matrices`` entry names its member: the array, header checked before allocation."""
            if not isinstance(value, str):
                raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} must name a .npy member of "
                                                                "the archive, not {value}").format(where=where,
                                       place=place, value=describe(value)))
            info = infos.get(value)
            if info is None or not value.endswith(".npy"):
                raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} names {value}, which is "
                                                                "not an .npy member of the archive").format(
                                       where=where, place=place, value=short(value)))
            try:
                with archive.open(info) as fp:
                    array = _read_npy(fp, f"{where}[{value}]", MAX_CELLS, lambda: info.file_size - fp.tell())
            except MatrixFileError as e:  # its message already names the file and the member
                raise SessionError(message_of(e)) from None
            if array.dtype.kind == "f" and array.dtype.itemsize == 8:
                array = np.ascontiguousarray(array, dtype=np.float64)  # native order, C order
            array.flags.writeable = False
            return array

        return session_from_json(text, where, read_matrix=read_matrix, on_outline=on_outline)
