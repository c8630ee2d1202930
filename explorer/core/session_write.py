"""Writing a session: validated first, as indented JSON with a matrix row per line, atomically.

Floats are written as ``repr`` (the shortest text that reads back to the same 64-bit float), so a
saved session loads bit for bit; the text is made and written a row at a time, never whole.
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np

from .atomic import atomic_write_bytes, file_name
from .errors import SessionError
from .session_check import validate_session
from .session_data import MODEL_HEAD_FIELDS, Session
from .session_limits import FORMAT_NAME, MATRIX_AXES, MAX_FILE_BYTES, VERSION
from .session_settings import SETTINGS_FIELDS
from .session_words import size_text
from .translatable import QT_TRANSLATE_NOOP, message_of


BINARY_SUFFIX = ".aesz"  # a session whose matrices are .npy members of a zip (``session_zip``)


def is_binary_path(path) -> bool:
    """Whether a session saved to ``path`` is written in the binary form (by its suffix)."""
    return str(path).lower().endswith(BINARY_SUFFIX)


def _dump(value: Any) -> str:
    """One JSON value as text, non-ASCII written as itself; NaN and infinities refused."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


# json's C encoder writes floats with float.__repr__ (shortest text that reads back exactly).
_encode_row = json.JSONEncoder(allow_nan=False).encode


def _token_list(tokens) -> str:
    """A list of tokens on one line."""
    return "[" + ", ".join(map(_dump, tokens)) + "]"


def _object_lines(items: list[tuple[str, str]], indent: str) -> str:
    """``{ "key": <already encoded value>, ... }`` with one member per line."""
    if not items:
        return "{}"
    inner = ",\n".join(f"{indent} {_dump(key)}: {text}" for key, text in items)
    return "{\n" + inner + "\n" + indent + "}"


def _matrix_lines(array: np.ndarray, indent: str):
    """The text of a matrix in pieces: one row per line; floats as ``repr`` so they read back bit for bit."""
    yield "[\n"
    last = len(array) - 1
    for i, row in enumerate(array):  # row by row: one tolist() of 2 M floats holds the GIL ~0.1 s
        yield indent + " " + _encode_row(row.tolist()) + (",\n" if i < last else "\n")
    yield indent + "]"


def _matrix_lines_of(name: str, array: np.ndarray):
    return _matrix_lines(array, "  ")


def session_pieces(session: Session, where: str = "session", matrix_text=None):
    """The file text of a valid session (validated first) in pieces: indented JSON, a matrix row a
    line; query_tokens only in a cross-attention session, model_head only in a real model's head (its ids on
    one line). A 4096 × 768 session is ~200 MB of text: made and written a row at a time, never whole. ``matrix_text(name, array)``: the pieces standing for a
    matrix instead of its rows (the binary form names its .npy member)."""
    s = validate_session(session, where)
    settings = [(name, _dump(getattr(s.settings, name))) for name in SETTINGS_FIELDS]
    layout = "null" if s.layout is None else _object_lines(
        [(key, _dump(value)) for key, value in s.layout.items()], " ")
    names = [name for name in MATRIX_AXES if name in s.matrices]
    head = [] if s.model_head is None else [("model_head", _object_lines(
        [(name, _dump(list(value) if name == "ids" else value))
         for name, value in ((name, getattr(s.model_head, name)) for name in MODEL_HEAD_FIELDS)], " "))]
    yield "{\n"
    yield ",\n".join(f' {_dump(key)}: {text}' for key, text in (
        ("format", _dump(FORMAT_NAME)), ("version", _dump(VERSION)), ("title", _dump(s.title)),
        ("tokens", _token_list(s.tokens)),
        *([] if s.query_tokens is None else [("query_tokens", _token_list(s.query_tokens))]),
        ("settings", _object_lines(settings, " ")), *head))
    yield ',\n "matrices": ' + ("{\n" if names else "{}")
    for k, name in enumerate(names):
        yield f"  {_dump(name)}: "
        yield from (matrix_text or _matrix_lines_of)(name, s.matrices[name])
        yield ",\n" if k < len(names) - 1 else "\n }"
    yield f',\n "layout": {layout}\n}}\n'


def session_to_json(session: Session, where: str = "session") -> str:
    """The file text of a valid session (validated first): indented JSON, a matrix row a line."""
    return "".join(session_pieces(session, where))


def save_session(session: Session, path) -> None:
    """Validate, write atomically (temp file, fsync, os.replace); SessionError names the file.
    A path ending in ``.aesz`` gets the binary form (``session_zip``), any other JSON."""
    name = file_name(path)
    if is_binary_path(path):
        from .session_zip import session_zip_pieces

        pieces = session_zip_pieces(session, where=name)
    else:
        pieces = (piece.encode("utf-8") for piece in session_pieces(session, where=name))
    first = next(pieces)  # validates the session before any file is touched

    def data():
        size = 0
        for chunk in itertools.chain([first], pieces):
            size += len(chunk)
            if size > MAX_FILE_BYTES:  # the temporary file is removed; the target stays as it was
                size += sum(len(rest) for rest in pieces)
                raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: the session would be {size}; "
                                                                "session files are limited to "
                                                                "{max_file_bytes} (export large matrices as "
                                                                ".npy instead)").format(name=name,
                                       size=size_text(size), max_file_bytes=size_text(MAX_FILE_BYTES)))
            yield chunk

    try:
        atomic_write_bytes(path, data())
    except SessionError:
        raise
    except OSError as e:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: could not be saved ({reason})").format(
                               name=name, reason=e.strerror or e)) from e
    except Exception as e:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: could not be saved ({kind}: {why})").format(
                               name=name, kind=type(e).__name__, why=message_of(e))) from e
