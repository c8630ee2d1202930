"""The session file: a versioned, validated, human-readable JSON snapshot of what the user set.

A session holds the tokens, the matrices Q, K, V, the settings of the controls (F6) and an opaque
UI layout; a cross-attention session also the query tokens (Q has a row per query token); a session made
from a real model's head also that head (``ModelHead``: which checkpoint, layer, head and token ids).
``save_session`` refuses to write an invalid session; ``load_session`` refuses any file that is not a
valid one and raises only :class:`SessionError`, whose message starts with the file name and names the place (``demo.json: matrices.K row 2 has 2 numbers but row 0 has 3``). The
format is described in ``docs/session-format.md``.

This module is the public face; the work is done, one job a module, in:
``session_limits`` (format name, version, limits, matrices), ``session_settings`` (the Settings
and their checks), ``session_data`` (the Session value), ``session_check`` (validation),
``session_write`` (the writer), ``session_prescan`` (refusing raw bytes unparsed),
``session_json`` (decoding and parsing), ``session_read`` (upgrades and the reader) and
``session_zip`` (the binary form, ``.aesz``: the same session with its matrices as .npy members,
written for paths ending in ``.aesz``, recognised by its first bytes when read).

The reader and the writer (and the JSON, zip and file modules they use) load when first used: a start-up
opens no file (issue 18: ~6 ms of every start).
"""
from __future__ import annotations

import importlib

from .errors import SessionError
from .session_check import validate_session
from .session_data import ModelHead, Session
from .session_limits import (FORMAT_NAME, MATRIX_AXES, MAX_ABS_VALUE, MAX_CELLS, MAX_DIM, MAX_FILE_BYTES,
                             MAX_FOLDER_CHARS, MAX_LAYOUT_BYTES, MAX_MODEL_LAYERS, MAX_MODEL_NAME_CHARS,
                             MAX_TITLE_CHARS, MAX_TOKEN_CHARS, MAX_TOKENS, MAX_VOCAB, PROJECTION_MATRICES,
                             REQUIRED_MATRICES, SOURCE_MATRIX, TOKEN_AXES, VERSION, ZIP_SIGNATURE, matrix_axes)
from .session_settings import (POSITIONS, ROPE_BASE_MAX, ROPE_BASE_MIN, ROPE_OFFSET_MAX, ROPE_STYLES,
                               SCALE_MAX, SCALE_MODES, SOURCES, TEMPERATURE_MAX, TEMPERATURE_MIN,
                               Settings)

__all__ = [
    "FORMAT_NAME", "VERSION", "UPGRADES", "SCALE_MODES", "SOURCES", "POSITIONS", "ROPE_STYLES",
    "ROPE_BASE_MIN", "ROPE_BASE_MAX", "ROPE_OFFSET_MAX", "MATRIX_AXES", "TOKEN_AXES", "matrix_axes",
    "REQUIRED_MATRICES", "PROJECTION_MATRICES", "SOURCE_MATRIX",
    "TEMPERATURE_MIN", "TEMPERATURE_MAX", "SCALE_MAX",
    "MAX_TOKENS", "MAX_DIM", "MAX_CELLS", "MAX_FILE_BYTES", "MAX_TOKEN_CHARS", "MAX_ABS_VALUE",
    "MAX_TITLE_CHARS", "MAX_LAYOUT_BYTES", "MAX_FOLDER_CHARS", "MAX_MODEL_NAME_CHARS", "MAX_MODEL_LAYERS",
    "MAX_VOCAB", "Settings", "Session", "ModelHead", "SessionError", "validate_session",
    "session_to_json", "session_from_json", "session_pieces", "save_session", "load_session",
]

_LOADED_ON_USE = {"UPGRADES": "session_read", "session_from_json": "session_read",
                  "session_pieces": "session_write", "session_to_json": "session_write"}


def load_session(path, on_outline=None) -> Session:
    """Read, parse and validate a session file (``session_read.load_session``)."""
    from .session_read import load_session as load

    return load(path, on_outline)


def save_session(session: Session, path) -> None:
    """Validate and write a session file atomically (``session_write.save_session``)."""
    from .session_write import save_session as save

    save(session, path)


def __getattr__(name):
    if name in _LOADED_ON_USE:
        return getattr(importlib.import_module(f".{_LOADED_ON_USE[name]}", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
