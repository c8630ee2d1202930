"""The rules of a valid session, checked on a Session in memory (``validate_session``).

Shared by saving (nothing invalid is written) and loading (after parsing and upgrading).
Every refusal is a SessionError naming ``where``, the place and the value.
"""
from __future__ import annotations

import math
import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any, Mapping

import numpy as np

from .errors import SessionError
from .plural import count
from .session_data import ModelHead, Session
from .session_limits import (AXIS_TEXT, MATRIX_AXES, MAX_ABS_VALUE, MAX_CELLS, MAX_DIM, MAX_FOLDER_CHARS,
                             MAX_LAYOUT_BYTES, MAX_MODEL_LAYERS, MAX_MODEL_NAME_CHARS, MAX_TITLE_CHARS,
                             MAX_TOKEN_CHARS, MAX_TOKENS, MAX_VOCAB, PROJECTION_MATRICES, REQUIRED_MATRICES,
                             SOURCE_MATRIX, TOKEN_AXES, VERSION, matrix_axes)
from .session_settings import _check_settings
from .session_words import describe, short

# Cc (C0, DEL, C1), line/paragraph separators, and unpaired surrogates (not valid Unicode).
_BAD_TEXT_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def _check_text(value: Any, place: str, where: str, *, min_chars: int, max_chars: int) -> str:
    """A string of min_chars..max_chars characters with no control character or lone surrogate."""
    if not isinstance(value, str):
        raise SessionError(f"{where}: {place} must be a string, not {describe(value)}")
    if len(value) < min_chars:
        raise SessionError(f"{where}: {place} is empty")
    if len(value) > max_chars:
        raise SessionError(f"{where}: {place} has {len(value)} characters; the most is {max_chars}")
    bad = _BAD_TEXT_CHARS.search(value)
    if bad:
        char = ord(bad.group())
        kind = ("an unpaired surrogate, which is not valid Unicode" if 0xD800 <= char <= 0xDFFF
                else "a control character")
        raise SessionError(f"{where}: {place} contains {kind} (U+{char:04X} at character "
                           f"{bad.start()})")
    return value


def _check_tokens(tokens: Any, where: str, place: str = "tokens") -> tuple[str, ...]:
    """1..MAX_TOKENS tokens (or query tokens, by ``place``), each a text of 1..MAX_TOKEN_CHARS characters;
    as a tuple."""
    if not isinstance(tokens, (tuple, list)):
        raise SessionError(f"{where}: {place} must be a list of strings, not {describe(tokens)}")
    if not tokens:
        need = "a session needs at least one token" if place == "tokens" else "leave it out for self-attention"
        raise SessionError(f"{where}: {place} is empty; {need}")
    if len(tokens) > MAX_TOKENS:
        raise SessionError(f"{where}: {place} has {len(tokens)} entries; the most is {MAX_TOKENS}")
    for i, token in enumerate(tokens):
        _check_text(token, f"{place}[{i}]", where, min_chars=1, max_chars=MAX_TOKEN_CHARS)
    return tuple(tokens)


def _grouped(settings: Any) -> bool:
    """Whether the settings share K/V heads (kv_heads neither 0 nor heads), read before they are checked:
    K and W_o then have widths of their own (``matrix_axes``); a bad value is refused with the settings."""
    heads, kv = getattr(settings, "heads", 1), getattr(settings, "kv_heads", 0)
    plain = (int, np.integer)
    return (isinstance(heads, plain) and isinstance(kv, plain) and not isinstance(kv, bool)
            and kv not in (0, heads))


def _first_bad(mask: np.ndarray) -> tuple[int, ...]:
    """The (row, col) of the first True cell of ``mask``, to name it in a message."""
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))


def _check_matrix_names(names: Any, where: str, cross: bool = False) -> None:
    """Only known matrices; Q, K and V there; the projections all together or none, with X_src in a
    ``cross``-attention session and never without one."""
    for name in names:
        if name not in MATRIX_AXES:
            text = name if isinstance(name, str) else repr(name)
            raise SessionError(f"{where}: matrices: unknown matrix {short(text)} (version "
                               f"{VERSION} holds {', '.join(MATRIX_AXES)})")
    for name in REQUIRED_MATRICES:
        if name not in names:
            raise SessionError(f"{where}: matrices: missing matrix {name!r}")
    present = [n for n in PROJECTION_MATRICES if n in names]
    if present and len(present) < len(PROJECTION_MATRICES):
        missing = [n for n in PROJECTION_MATRICES if n not in names]
        raise SessionError(f"{where}: matrices: the projections come together; "
                           f"{', '.join(present)} without {', '.join(missing)}")
    if SOURCE_MATRIX in names and not cross:
        raise SessionError(f"{where}: matrices: {SOURCE_MATRIX} (the keys' token vectors) belongs to a "
                           f"cross-attention session, which has query_tokens; this one has none")
    if cross and present and SOURCE_MATRIX not in names:
        raise SessionError(f"{where}: matrices: a projected cross-attention session needs {SOURCE_MATRIX}, the "
                           f"token vectors of the keys (one row per token; X has one per query token)")


def check_size(name: str, rows: int, cols: int, where: str = "", verb: str = "has") -> None:
    """The size limits of matrix ``name`` with ``rows`` × ``cols`` cells, checkable before anything that large is
    allocated: at most MAX_DIM columns, at most MAX_CELLS cells, rows that are a width (the W's) at most MAX_DIM.
    SessionError names ``where`` (when given) and the matrix ("… would have …" with ``verb``)."""
    place, row_axis = f"{where}: matrices.{name}" if where else f"matrices.{name}", MATRIX_AXES[name][0]
    if cols > MAX_DIM:
        raise SessionError(f"{place} {verb} {cols} columns; the most is {MAX_DIM}")
    if rows * cols > MAX_CELLS:
        raise SessionError(f"{place} {verb} {rows}×{cols} = {rows * cols} cells; the most is {MAX_CELLS}")
    if row_axis not in TOKEN_AXES and rows > MAX_DIM:
        raise SessionError(f"{place} {verb} {rows} rows; the most is {MAX_DIM} (its rows "
                           f"are {AXIS_TEXT.get(row_axis, row_axis)}, {row_axis})")


def _row_count_error(place: str, size: int, axis: str, expected: int, cross: bool) -> str:
    """The message for a matrix whose rows do not match its token list (naming the list in a cross session)."""
    rows = f"{place} has {count(size, 'row')} but there are"
    if not cross:
        return f"{rows} {count(expected, 'token')}"
    if axis == "Lq":
        return f"{rows} {count(expected, 'query token')} (query_tokens: one row per query)"
    return f"{rows} {count(expected, 'token')} (tokens: one row per key and value)"


def _check_matrices(matrices: Any, n_tokens: int, where: str, n_queries: int | None = None,
                    grouped: bool = False) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Names, dtypes, shapes (axes that must agree), sizes and values; returns arrays and widths.

    ``n_queries``: the query tokens of a cross-attention session (None: self-attention); ``grouped``:
    K/V heads shared, so K and W_o have widths of their own (checked with the settings)."""
    if not isinstance(matrices, Mapping):
        raise SessionError(f"{where}: matrices must be an object of named matrices, "
                           f"not {describe(matrices)}")
    cross = n_queries is not None
    _check_matrix_names(matrices, where, cross)
    lengths: dict[str, tuple[int, str]] = {"L": (n_tokens, "")}   # axis -> (length, first matrix)
    if cross:
        lengths["Lq"] = (n_queries, "")
    result: dict[str, np.ndarray] = {}
    axes_of = matrix_axes(cross=cross, grouped=grouped)
    for name, axes in axes_of.items():
        if name not in matrices:
            continue
        place = f"matrices.{name}"
        array = matrices[name]
        if not isinstance(array, np.ndarray):
            raise SessionError(f"{where}: {place} must be a 2-D array of numbers, "
                               f"not {describe(array)}")
        if array.dtype != np.float64:
            raise SessionError(f"{where}: {place} holds {array.dtype} values; it must hold real "
                               f"numbers")
        if array.ndim != 2:
            raise SessionError(f"{where}: {place} is {array.ndim}-D; it must be 2-D")
        rows, cols = array.shape
        if cols < 1:
            raise SessionError(f"{where}: {place} has no columns")
        check_size(name, rows, cols, where)
        for axis_index, (axis, size) in enumerate(zip(axes, array.shape)):
            what = "rows" if axis_index == 0 else "columns"
            if axis not in lengths:
                lengths[axis] = (size, name)
                continue
            expected, first = lengths[axis]
            if size == expected:
                continue
            if axis in TOKEN_AXES:
                raise SessionError(f"{where}: {_row_count_error(place, size, axis, expected, cross)}")
            first_what = "rows" if axes_of[first].index(axis) == 0 else "columns"
            raise SessionError(
                f"{where}: {place} has {count(size, what[:-1])} but matrices.{first} has "
                f"{count(expected, first_what[:-1])} (both are {AXIS_TEXT.get(axis, axis)}, {axis})")
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(array) <= MAX_ABS_VALUE)
        if bad.any():
            r, c = _first_bad(bad)
            value = float(array[r, c])
            reason = ("values must be finite" if not math.isfinite(value)
                      else f"values must lie within ±{MAX_ABS_VALUE:.0f}")
            raise SessionError(f"{where}: {place} row {r} col {c} is {value!r}; {reason}")
        result[name] = array
    widths = {axis: size for axis, (size, _) in lengths.items()}
    return result, widths


def _check_layout(layout: Any, where: str) -> dict[str, str] | None:
    """null, or string keys and values, at most MAX_LAYOUT_BYTES of UTF-8 together."""
    if layout is None:
        return None
    if not isinstance(layout, Mapping):
        raise SessionError(f"{where}: layout must be null or an object of strings, "
                           f"not {describe(layout)}")
    total = 0
    for key, value in layout.items():
        _check_text(key, "layout key", where, min_chars=1, max_chars=MAX_TOKEN_CHARS)
        place = f"layout.{key}"
        if not isinstance(value, str):
            raise SessionError(f"{where}: {place} must be a string, not {describe(value)}")
        bad = _SURROGATES.search(value)
        if bad:
            raise SessionError(f"{where}: {place} contains an unpaired surrogate (U+"
                               f"{ord(bad.group()):04X}), which is not valid Unicode")
        if len(value) > MAX_LAYOUT_BYTES:
            raise SessionError(f"{where}: layout is larger than {MAX_LAYOUT_BYTES} bytes")
        total += len(key.encode("utf-8")) + len(value.encode("utf-8"))
        if total > MAX_LAYOUT_BYTES:
            raise SessionError(f"{where}: layout is larger than {MAX_LAYOUT_BYTES} bytes")
    return dict(layout)


def _check_whole(value: Any, place: str, where: str, low: int, high: int, note: str = "") -> int:
    """An integer (never a boolean, never 2.0) in low..high, as a plain int."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SessionError(f"{where}: {place} must be an integer, not {describe(value)}")
    if not low <= value <= high:
        shown = int(value) if abs(int(value)) < 10 ** 30 else "a very large integer"
        raise SessionError(f"{where}: {place} is {shown}; it must be {low}..{high}{note}")
    return int(value)


def _check_model_head(head: Any, n_tokens: int, where: str) -> ModelHead | None:
    """None, or the head a session was made from: an absolute folder, a name, a layer and a head counted from
    0, a hidden width, true/false, and exactly one token id (0 ≤ id < MAX_VOCAB) per token."""
    if head is None:
        return None
    if not isinstance(head, ModelHead):
        raise SessionError(f"{where}: model_head must be a ModelHead, not {describe(head)}")
    folder = _check_text(head.folder, "model_head.folder", where, min_chars=1, max_chars=MAX_FOLDER_CHARS)
    if not (PurePosixPath(folder).is_absolute() or PureWindowsPath(folder).is_absolute()):
        raise SessionError(f"{where}: model_head.folder {short(folder)} is not an absolute path (the checkpoint "
                           f"folder is written whole, as /home/me/models/gpt2)")
    name = _check_text(head.name, "model_head.name", where, min_chars=1, max_chars=MAX_MODEL_NAME_CHARS)
    counted = " (counted from 0: the window's layer 1 head 1 is layer 0 head 0 here)"
    layer = _check_whole(head.layer, "model_head.layer", where, 0, MAX_MODEL_LAYERS - 1, counted)
    index = _check_whole(head.head, "model_head.head", where, 0, MAX_DIM - 1, counted)
    hidden = _check_whole(head.hidden, "model_head.hidden", where, 1, MAX_DIM)
    if not isinstance(head.learned_positions, (bool, np.bool_)):
        raise SessionError(f"{where}: model_head.learned_positions must be true or false, not "
                           f"{describe(head.learned_positions)}")
    ids = head.ids
    if not isinstance(ids, (tuple, list)):
        raise SessionError(f"{where}: model_head.ids must be a list of token ids, not {describe(ids)}")
    if len(ids) != n_tokens:  # (before a single id is looked at)
        raise SessionError(f"{where}: model_head.ids has {count(len(ids), 'id')} but there are "
                           f"{count(n_tokens, 'token')} (one token id per token of the model's text)")
    if not (all(type(i) is int for i in ids) and 0 <= min(ids) and max(ids) < MAX_VOCAB):
        for i, value in enumerate(ids):  # the first one that is wrong, named
            _check_whole(value, f"model_head.ids[{i}]", where, 0, MAX_VOCAB - 1, " (a token id)")
    return ModelHead(folder=folder, name=name, layer=layer, head=index, hidden=hidden,
                     learned_positions=bool(head.learned_positions), ids=tuple(int(i) for i in ids))


def validate_session(session: Any, where: str = "session") -> Session:
    """Check every rule of the format; a normalised copy, or SessionError naming the place."""
    if not isinstance(session, Session):
        raise SessionError(f"{where}: not a Session but {describe(session)}")
    title = _check_text(session.title, "title", where, min_chars=0, max_chars=MAX_TITLE_CHARS)
    tokens = _check_tokens(session.tokens, where)
    query_tokens = session.query_tokens
    if query_tokens is not None:
        query_tokens = _check_tokens(query_tokens, where, "query_tokens")
    matrices, widths = _check_matrices(session.matrices, len(tokens), where,
                                       None if query_tokens is None else len(query_tokens),
                                       _grouped(session.settings))
    settings = _check_settings(session.settings, widths, where, cross=query_tokens is not None)
    layout = _check_layout(session.layout, where)
    model_head = _check_model_head(session.model_head, len(tokens), where)
    return Session(tokens=tokens, matrices=matrices, settings=settings, layout=layout,
                   title=title, query_tokens=query_tokens, model_head=model_head)
