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
from .translatable import QT_TRANSLATE_NOOP

# Cc (C0, DEL, C1), line/paragraph separators, and unpaired surrogates (not valid Unicode).
_BAD_TEXT_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def _check_text(value: Any, place: str, where: str, *, min_chars: int, max_chars: int) -> str:
    """A string of min_chars..max_chars characters with no control character or lone surrogate."""
    if not isinstance(value, str):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} must be a string, not {value}").format(
                               where=where, place=place, value=describe(value)))
    if len(value) < min_chars:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} is empty").format(where=where,
                               place=place))
    if len(value) > max_chars:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} has {value} characters; the most "
                                                        "is {max_chars}").format(where=where, place=place,
                               value=len(value), max_chars=max_chars))
    bad = _BAD_TEXT_CHARS.search(value)
    if bad:
        char = ord(bad.group())
        kind = (QT_TRANSLATE_NOOP("Session", "an unpaired surrogate, which is not valid Unicode")
                if 0xD800 <= char <= 0xDFFF else QT_TRANSLATE_NOOP("Session", "a control character"))
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} contains {kind} (U+{char} at "
                                                        "character {value})").format(where=where, place=place,
                               kind=kind, char=format(char, "04X"), value=bad.start()))
    return value


def _check_tokens(tokens: Any, where: str, place: str = "tokens") -> tuple[str, ...]:
    """1..MAX_TOKENS tokens (or query tokens, by ``place``), each a text of 1..MAX_TOKEN_CHARS characters;
    as a tuple."""
    if not isinstance(tokens, (tuple, list)):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} must be a list of strings, not "
                                                        "{tokens}").format(where=where, place=place,
                               tokens=describe(tokens)))
    if not tokens:
        need = (QT_TRANSLATE_NOOP("Session", "a session needs at least one token") if place == "tokens"
                else QT_TRANSLATE_NOOP("Session", "leave it out for self-attention"))
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} is empty; {need}").format(where=where,
                               place=place, need=need))
    if len(tokens) > MAX_TOKENS:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} has {tokens} entries; the most is "
                                                        "{max_tokens}").format(where=where, place=place,
                               tokens=len(tokens), max_tokens=MAX_TOKENS))
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
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: matrices: unknown matrix {text} "
                                                            "(version {version} holds {matrix_axes})").format(
                                   where=where, text=short(text), version=VERSION,
                                   matrix_axes=', '.join(MATRIX_AXES)))
    for name in REQUIRED_MATRICES:
        if name not in names:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: matrices: missing matrix {name}").format(
                                   where=where, name=repr(name)))
    present = [n for n in PROJECTION_MATRICES if n in names]
    if present and len(present) < len(PROJECTION_MATRICES):
        missing = [n for n in PROJECTION_MATRICES if n not in names]
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: matrices: the projections come together; "
                                                        "{present} without {missing}").format(where=where,
                               present=', '.join(present), missing=', '.join(missing)))
    if SOURCE_MATRIX in names and not cross:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: matrices: {source_matrix} (the keys' token "
                                                        "vectors) belongs to a cross-attention session, "
                                                        "which has query_tokens; this one has none").format(
                               where=where, source_matrix=SOURCE_MATRIX))
    if cross and present and SOURCE_MATRIX not in names:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: matrices: a projected cross-attention "
                                                        "session needs {source_matrix}, the token vectors of "
                                                        "the keys (one row per token; X has one per query "
                                                        "token)").format(where=where, source_matrix=SOURCE_MATRIX))


def check_size(name: str, rows: int, cols: int, where: str = "", verb: str = QT_TRANSLATE_NOOP("Session", "has")) -> None:
    """The size limits of matrix ``name`` with ``rows`` × ``cols`` cells, checkable before anything that large is
    allocated: at most MAX_DIM columns, at most MAX_CELLS cells, rows that are a width (the W's) at most MAX_DIM.
    SessionError names ``where`` (when given) and the matrix ("… would have …" with ``verb``)."""
    place, row_axis = f"{where}: matrices.{name}" if where else f"matrices.{name}", MATRIX_AXES[name][0]
    if cols > MAX_DIM:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{place} {verb} {cols} columns; the most is {max_dim}").format(
                               place=place, verb=verb, cols=cols, max_dim=MAX_DIM))
    if rows * cols > MAX_CELLS:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{place} {verb} {rows}×{cols} = {cells} cells; the "
                                                        "most is {max_cells}").format(place=place, verb=verb,
                               rows=rows, cols=cols, cells=rows * cols, max_cells=MAX_CELLS))
    if row_axis not in TOKEN_AXES and rows > MAX_DIM:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{place} {verb} {rows} rows; the most is {max_dim} "
                                                        "(its rows are {row_axis_text}, {row_axis_name})").format(
                               place=place, verb=verb, rows=rows, max_dim=MAX_DIM,
                               row_axis_text=AXIS_TEXT.get(row_axis, row_axis), row_axis_name=row_axis))


def _row_count_error(place: str, size: int, axis: str, expected: int, cross: bool) -> str:
    """The message for a matrix whose rows do not match its token list (naming the list in a cross session)."""
    said = {"place": place, "rows": count(size, "row"), "n_rows": size, "n_expected": expected}
    if not cross:
        return QT_TRANSLATE_NOOP("Session", "{place} has {rows} but there are {expected}").format(
            expected=count(expected, "token"), **said)
    if axis == "Lq":
        return QT_TRANSLATE_NOOP("Session", "{place} has {rows} but there are {expected} (query_tokens: one row per "
                                            "query)").format(expected=count(expected, "query token"), **said)
    return QT_TRANSLATE_NOOP("Session", "{place} has {rows} but there are {expected} (tokens: one row per key and "
                                        "value)").format(expected=count(expected, "token"), **said)


def _check_matrices(matrices: Any, n_tokens: int, where: str, n_queries: int | None = None,
                    grouped: bool = False) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Names, dtypes, shapes (axes that must agree), sizes and values; returns arrays and widths.

    ``n_queries``: the query tokens of a cross-attention session (None: self-attention); ``grouped``:
    K/V heads shared, so K and W_o have widths of their own (checked with the settings)."""
    if not isinstance(matrices, Mapping):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: matrices must be an object of named "
                                                        "matrices, not {matrices}").format(where=where,
                               matrices=describe(matrices)))
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
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} must be a 2-D array of "
                                                            "numbers, not {array}").format(where=where,
                                   place=place, array=describe(array)))
        if array.dtype != np.float64:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} holds {dtype} values; it must "
                                                            "hold real numbers").format(where=where, place=place,
                                   dtype=array.dtype))
        if array.ndim != 2:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} is {ndim}-D; it must be 2-D").format(
                                   where=where, place=place, ndim=array.ndim))
        rows, cols = array.shape
        if cols < 1:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} has no columns").format(
                                   where=where, place=place))
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
                raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place}").format(where=where,
                                       place=_row_count_error(place, size, axis, expected, cross)))
            first_what = "rows" if axes_of[first].index(axis) == 0 else "columns"
            raise SessionError(
                QT_TRANSLATE_NOOP("Session", "{where}: {place} has {size} but matrices.{first} has "
                                             "{expected} (both are {axis_text}, {axis_name})").format(where=where,
                    place=place, size=count(size, what[:-1]), n_size=size, first=first,
                    expected=count(expected, first_what[:-1]), n_expected=expected, axis_text=AXIS_TEXT.get(axis, axis), axis_name=axis))
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(array) <= MAX_ABS_VALUE)
        if bad.any():
            r, c = _first_bad(bad)
            value = float(array[r, c])
            reason = (QT_TRANSLATE_NOOP("Session", "values must be finite") if not math.isfinite(value)
                      else QT_TRANSLATE_NOOP("Session", "values must lie within ±{most}").format(
                          most=f"{MAX_ABS_VALUE:.0f}"))
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} row {r} col {c} is {value}; "
                                                            "{reason}").format(where=where, place=place, r=r,
                                   c=c, value=repr(value), reason=reason))
        result[name] = array
    widths = {axis: size for axis, (size, _) in lengths.items()}
    return result, widths


def _check_layout(layout: Any, where: str) -> dict[str, str] | None:
    """null, or string keys and values, at most MAX_LAYOUT_BYTES of UTF-8 together."""
    if layout is None:
        return None
    if not isinstance(layout, Mapping):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: layout must be null or an object of "
                                                        "strings, not {layout}").format(where=where,
                               layout=describe(layout)))
    total = 0
    for key, value in layout.items():
        _check_text(key, "layout key", where, min_chars=1, max_chars=MAX_TOKEN_CHARS)
        place = f"layout.{key}"
        if not isinstance(value, str):
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} must be a string, not {value}").format(
                                   where=where, place=place, value=describe(value)))
        bad = _SURROGATES.search(value)
        if bad:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} contains an unpaired surrogate "
                                                            "(U+{value}), which is not valid Unicode").format(
                                   where=where, place=place, value=format(ord(bad.group()), "04X")))
        if len(value) > MAX_LAYOUT_BYTES:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: layout is larger than "
                                                            "{max_layout_bytes} bytes").format(where=where,
                                   max_layout_bytes=MAX_LAYOUT_BYTES))
        total += len(key.encode("utf-8")) + len(value.encode("utf-8"))
        if total > MAX_LAYOUT_BYTES:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: layout is larger than "
                                                            "{max_layout_bytes} bytes").format(where=where,
                                   max_layout_bytes=MAX_LAYOUT_BYTES))
    return dict(layout)


def _check_whole(value: Any, place: str, where: str, low: int, high: int, note: str = "") -> int:
    """An integer (never a boolean, never 2.0) in low..high, as a plain int."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} must be an integer, not {value}").format(
                               where=where, place=place, value=describe(value)))
    if not low <= value <= high:
        shown = int(value) if abs(int(value)) < 10 ** 30 else QT_TRANSLATE_NOOP("Session", "a very large integer")
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} is {shown}; it must be "
                                                        "{low}..{high}{note}").format(where=where, place=place,
                               shown=shown, low=low, high=high, note=note))
    return int(value)


def _check_model_head(head: Any, n_tokens: int, where: str) -> ModelHead | None:
    """None, or the head a session was made from: an absolute folder, a name, a layer and a head counted from
    0, a hidden width, true/false, and exactly one token id (0 ≤ id < MAX_VOCAB) per token."""
    if head is None:
        return None
    if not isinstance(head, ModelHead):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: model_head must be a ModelHead, not {head}").format(
                               where=where, head=describe(head)))
    folder = _check_text(head.folder, "model_head.folder", where, min_chars=1, max_chars=MAX_FOLDER_CHARS)
    if not (PurePosixPath(folder).is_absolute() or PureWindowsPath(folder).is_absolute()):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: model_head.folder {folder} is not an "
                                                        "absolute path (the checkpoint folder is written "
                                                        "whole, as /home/me/models/gpt2)").format(where=where,
                               folder=short(folder)))
    name = _check_text(head.name, "model_head.name", where, min_chars=1, max_chars=MAX_MODEL_NAME_CHARS)
    counted = QT_TRANSLATE_NOOP("Session", " (counted from 0: the window's layer 1 head 1 is layer 0 head 0 here)")
    layer = _check_whole(head.layer, "model_head.layer", where, 0, MAX_MODEL_LAYERS - 1, counted)
    index = _check_whole(head.head, "model_head.head", where, 0, MAX_DIM - 1, counted)
    hidden = _check_whole(head.hidden, "model_head.hidden", where, 1, MAX_DIM)
    if not isinstance(head.learned_positions, (bool, np.bool_)):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: model_head.learned_positions must be true "
                                                        "or false, not {learned_positions}").format(where=where,
                               learned_positions=describe(head.learned_positions)))
    ids = head.ids
    if not isinstance(ids, (tuple, list)):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: model_head.ids must be a list of token "
                                                        "ids, not {ids}").format(where=where, ids=describe(ids)))
    if len(ids) != n_tokens:  # (before a single id is looked at)
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: model_head.ids has {ids} but there are "
                                                        "{tokens} (one token id per token of the model's "
                                                        "text)").format(where=where, ids=count(len(ids), 'id'), n_ids=len(ids),
                               tokens=count(n_tokens, 'token'), n_tokens=n_tokens))
    if not (all(type(i) is int for i in ids) and 0 <= min(ids) and max(ids) < MAX_VOCAB):
        for i, value in enumerate(ids):  # the first one that is wrong, named
            _check_whole(value, f"model_head.ids[{i}]", where, 0, MAX_VOCAB - 1, QT_TRANSLATE_NOOP("Session",
                                                                                                      " (a token id)"))
    return ModelHead(folder=folder, name=name, layer=layer, head=index, hidden=hidden,
                     learned_positions=bool(head.learned_positions), ids=tuple(int(i) for i in ids))


def validate_session(session: Any, where: str = "session") -> Session:
    """Check every rule of the format; a normalised copy, or SessionError naming the place."""
    if not isinstance(session, Session):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: not a Session but {session}").format(
                               where=where, session=describe(session)))
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
