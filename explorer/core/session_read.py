"""Reading a session: bytes or text → pre-scan → JSON → upgrade to the current version → Session.

Only SessionError escapes, its message starting with the file name. Since version 3 every field
but format, version, tokens and matrices may be left out and takes its default (title "", the
Settings() defaults, layout null, no query_tokens, no model_head); the reader applies this to files of
every version.
"""
from __future__ import annotations

import io
import os
import stat
from typing import Any, Callable

import numpy as np

from .atomic import file_name, remove_stale_temporaries
from .errors import SessionError
from .session_check import _check_matrix_names, _check_tokens, validate_session
from .session_data import MODEL_HEAD_FIELDS, MODEL_HEAD_REQUIRED, ModelHead, Session
from .session_json import decode, parse
from .session_limits import (FORMAT_NAME, MATRIX_AXES, MAX_CELLS, MAX_FILE_BYTES, REQUIRED_TOP_FIELDS,
                             TOP_FIELDS, VERSION, ZIP_SIGNATURE)
from .session_prescan import check_start, prescan
from .session_settings import SETTINGS_FIELDS, Settings
from .session_words import describe, short, size_text
from .translatable import QT_TRANSLATE_NOOP, message_of



def _upgrade_v1(data: dict) -> dict:
    """Version 2 adds settings.source, positions and the RoPE settings (and optional projections)."""
    settings = data.get("settings")
    if isinstance(settings, dict):
        settings = {**settings, "source": "direct", "positions": "none", "rope": False,
                    "rope_base": 10000.0, "rope_style": "half", "rope_offset": 0}
    return {**data, "settings": settings} if "settings" in data else dict(data)


def _upgrade_v2(data: dict) -> dict:
    """Version 3 only lets fields be left out (they take their defaults): a v2 dict is a v3 dict."""
    return data


def _upgrade_v3(data: dict) -> dict:
    """Version 4 adds query_tokens (cross-attention), matrices.X_src and settings.kv_heads, each optional
    with a default that means what version 3 did (self-attention, one K/V head per head): a v3 dict is a
    v4 dict."""
    return data


def _upgrade_v4(data: dict) -> dict:
    """Version 5 adds the RoPE scaling settings (rope_scaling and llama3's factor, low and high frequency
    factors and original context), optional, "none" meaning what version 4 did: a v4 dict is a v5 dict."""
    return data


def _upgrade_v5(data: dict) -> dict:
    """Version 6 adds model_head (the real model's head a session was made from), optional, absent meaning
    what version 5 did (no model's head): a v5 dict is a v6 dict."""
    return data


# UPGRADES[n] turns the dict of a version-n file into a version-(n + 1) dict. load applies them one
# step at a time, so a file of any past version keeps loading.
UPGRADES: dict[int, Callable[[dict], dict]] = {1: _upgrade_v1, 2: _upgrade_v2, 3: _upgrade_v3,
                                               4: _upgrade_v4, 5: _upgrade_v5}


def _upgraded(data: Any, where: str) -> dict:
    """The file's dict brought to VERSION; refuses what is no session, or a version it cannot read."""
    if not isinstance(data, dict):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is not a session file (it holds {data}, "
                                                        "not an object)").format(where=where, data=describe(data)))
    if "format" not in data:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is not an Attention Explorer session (it "
                                                        "has no \"format\" field)").format(where=where))
    if data["format"] != FORMAT_NAME:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is not an Attention Explorer session "
                                                        "(format is {format}, expected {format_name})").format(
                               where=where, format=describe(data['format']), format_name=repr(FORMAT_NAME)))
    if "version" not in data:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: has no \"version\" field").format(where=where))
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: version must be an integer, not {version}").format(
                               where=where, version=describe(version)))
    if version < 1:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: version {version} is not valid (versions "
                                                        "start at 1)").format(where=where, version=version))
    if version > VERSION:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: written by a newer version of Attention "
                                                        "Explorer (version {version}; this one reads up to "
                                                        "{newest_version})").format(where=where, version=version,
                               newest_version=VERSION))
    while version < VERSION:
        step = UPGRADES.get(version)
        if step is None:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: no upgrade from version {version} to "
                                                            "{next_version}").format(where=where, version=version,
                                   next_version=version + 1))
        try:
            data = step(data)
        except Exception as e:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: could not upgrade it from version "
                                                            "{version} to {next_version} ({kind}: {detail})").format(
                                   where=where, version=version, next_version=version + 1, kind=type(e).__name__,
                                   detail=str(e)[:200])) from e
        if not isinstance(data, dict):
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: upgrading from version {version} gave "
                                                            "{data}").format(where=where, version=version,
                                   data=describe(data)))
        version += 1
        data["version"] = version
    return data


def _check_fields(obj: dict, expected: tuple[str, ...], required: tuple[str, ...], place: str,
                  where: str) -> None:
    """Refuse an unknown field, suggesting the nearest known one, or a missing required one.
    A field that is neither required nor there takes its default."""
    prefix = f"{where}: {place}: " if place else f"{where}: "
    for key in obj:
        if key not in expected:
            text = key if isinstance(key, str) else repr(key)
            import difflib  # only for a refusal: not on the start-up path

            near = difflib.get_close_matches(text, expected, n=1)
            hint = QT_TRANSLATE_NOOP("Session", " (did you mean {name}?)").format(name=repr(near[0])) if near else ""
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{prefix}unknown field {text}{hint}").format(
                                   prefix=prefix, text=short(text), hint=hint))
    for name in required:
        if name not in obj:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{prefix}missing field {name}").format(prefix=prefix,
                                   name=repr(name)))


def _matrix_from_json(rows: Any, place: str, where: str) -> Any:
    """A list of equally long rows of JSON numbers -> a read-only float64 array."""
    if not isinstance(rows, list):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} must be a list of rows, not {rows}").format(
                               where=where, place=place, rows=describe(rows)))
    if not rows:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} has no rows").format(where=where,
                               place=place))
    width = None
    kinds: set[type] = set()
    for i, row in enumerate(rows):
        if not isinstance(row, list):
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} row {i} must be a list of "
                                                            "numbers, not {row}").format(where=where,
                                   place=place, i=i, row=describe(row)))
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} row {i} has {row} numbers but "
                                                            "row 0 has {width}").format(where=where, place=place,
                                   i=i, row=len(row), width=width))
        kinds.update(map(type, row))
        if not kinds <= {float, int}:
            for j, value in enumerate(row):
                if type(value) not in (float, int):
                    raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} row {i} col {j} is "
                                                                    "{value}; it must be a number").format(
                                           where=where, place=place, i=i, j=j, value=describe(value)))
    if not width:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} has no columns").format(where=where,
                               place=place))
    if len(rows) * width > MAX_CELLS:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {place} has {rows}×{width} = {cells} "
                                                        "cells; the most is {max_cells}").format(where=where,
                               place=place, rows=len(rows), width=width, cells=len(rows) * width,
                               max_cells=MAX_CELLS))
    array = np.array(rows, dtype=np.float64)
    array.flags.writeable = False
    return array


def _model_head_from_json(value: Any, where: str) -> ModelHead:
    """The model_head object as a ModelHead: known fields only, the required ones there; its values are
    checked with the session (``validate_session``: the ids against the tokens)."""
    if not isinstance(value, dict):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: model_head must be an object, not {value} "
                                                        "(leave it out when the session is no real model's "
                                                        "head)").format(where=where, value=describe(value)))
    _check_fields(value, MODEL_HEAD_FIELDS, MODEL_HEAD_REQUIRED, "model_head", where)
    return ModelHead(**value)


def _session_from_data(data: Any, where: str, read_matrix=_matrix_from_json, on_outline=None) -> Session:
    """The Session a parsed file holds: upgraded, fields checked, defaults for those left out.
    ``read_matrix(value, place, where)`` makes a matrix of a ``matrices`` entry (JSON rows, or in the
    binary form the name of an .npy member). ``on_outline(queries, keys, settings)``: told the token
    counts and the settings as the file has them (unchecked) before any matrix is read."""
    data = _upgraded(data, where)
    _check_fields(data, TOP_FIELDS, REQUIRED_TOP_FIELDS, "", where)
    tokens = data["tokens"]
    if not isinstance(tokens, list):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: tokens must be a list of strings, not "
                                                        "{tokens}").format(where=where, tokens=describe(tokens)))
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: settings must be an object, not {settings}").format(
                               where=where, settings=describe(settings)))
    _check_fields(settings, SETTINGS_FIELDS, (), "settings", where)
    matrices = data["matrices"]
    if not isinstance(matrices, dict):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: matrices must be an object of named "
                                                        "matrices, not {matrices}").format(where=where,
                               matrices=describe(matrices)))
    layout = data.get("layout")
    if layout is not None and not isinstance(layout, dict):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: layout must be null or an object of "
                                                        "strings, not {layout}").format(where=where,
                               layout=describe(layout)))
    query_tokens = data.get("query_tokens")
    _check_tokens(tokens, where)     # before the matrices, whose rows are counted against them
    if "query_tokens" in data:
        query_tokens = _check_tokens(query_tokens, where, "query_tokens")
    model_head = _model_head_from_json(data["model_head"], where) if "model_head" in data else None
    _check_matrix_names(matrices, where, cross=query_tokens is not None)
    if on_outline is not None:
        on_outline(len(tokens) if query_tokens is None else len(query_tokens), len(tokens), settings)
    arrays = {name: read_matrix(matrices[name], f"matrices.{name}", where)
              for name in MATRIX_AXES if name in matrices}
    session = Session(tokens=tuple(tokens), matrices=arrays, settings=Settings(**settings),
                      layout=layout, title=data.get("title", ""), query_tokens=query_tokens,
                      model_head=model_head)
    return validate_session(session, where)


def _from_json(text: Any, where: str, read_matrix=_matrix_from_json, on_outline=None) -> Session:
    """session_from_json's work: the pre-scan on the raw bytes, then parse, then the Session."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        check_start(raw, where)
        text = decode(raw, where)
    elif isinstance(text, str):
        raw = text.encode("utf-8", "surrogatepass")
        check_start(raw, where)
    else:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: expected the text of a session file, not "
                                                        "{text}").format(where=where, text=describe(text)))
    prescan(raw, where)
    del raw
    data = parse(text, where)
    del text
    return _session_from_data(data, where, read_matrix, on_outline)


def session_from_json(text: str | bytes, where: str = "<string>", read_matrix=_matrix_from_json,
                      on_outline=None) -> Session:
    """Parse and validate a session's text (str, or UTF-8 bytes). Only SessionError escapes.
    ``on_outline``: see ``_session_from_data``."""
    where = str(where)
    try:
        return _from_json(text, where, read_matrix, on_outline)
    except SessionError:
        raise
    except RecursionError:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is nested too deeply to be a session file").format(
                               where=where)) from None
    except MemoryError:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is too large to load (out of memory)").format(
                               where=where)) from None
    except Exception as e:  # a bug or an input nobody foresaw: still a message, never a crash
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: could not be read ({kind}: {detail})").format(
                               where=where, kind=type(e).__name__, detail=str(e)[:200])) from e


def load_session(path, on_outline=None) -> Session:
    """Read, parse and validate a session file; refuses huge files before reading them.

    Also removes the temporaries that killed saves of this file left beside it. ``on_outline(queries,
    keys, settings)`` is told the shape the file describes before its matrices are read (unchecked:
    to prepare for the session, never to trust it).
    """
    name = file_name(path)
    try:
        file_path = os.fspath(path)
        info = os.stat(file_path)
    except FileNotFoundError:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: no such file").format(name=name)) from None
    except OSError as e:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: cannot be opened ({reason})").format(name=name,
                               reason=e.strerror or e)) from None
    except (TypeError, ValueError) as e:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: is not a usable file path ({why})").format(
                               name=name, why=message_of(e))) from None
    if stat.S_ISDIR(info.st_mode):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: is a folder, not a session file").format(
                               name=name))
    if not stat.S_ISREG(info.st_mode):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: is not a regular file").format(name=name))
    if info.st_size > MAX_FILE_BYTES:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: is {st_size}; session files are limited to "
                                                        "{max_file_bytes}").format(name=name,
                               st_size=size_text(info.st_size), max_file_bytes=size_text(MAX_FILE_BYTES)))
    remove_stale_temporaries(file_path)  # of saves of this file killed mid-way; never raises
    try:
        with open(file_path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: cannot be read ({reason})").format(name=name,
                               reason=e.strerror or e)) from None
    except MemoryError:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: is too large to load (out of memory)").format(
                               name=name)) from None
    if len(data) > MAX_FILE_BYTES:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{name}: is larger than {max_file_bytes}, the limit "
                                                        "for session files").format(name=name,
                               max_file_bytes=size_text(MAX_FILE_BYTES)))
    if data[:4] == ZIP_SIGNATURE:  # the binary form (.aesz): its matrices are .npy members
        from .session_zip import read_session_zip  # (imports matrix_io, which imports this module)

        return read_session_zip(io.BytesIO(data), len(data), name, on_outline)
    return session_from_json(data, where=name, on_outline=on_outline)
