"""Session text to JSON values: UTF-8 decoding and a strict parse that says where it failed.

Non-finite numbers, absurdly long number literals and duplicate fields are refused while parsing,
with their line and column, so that no value is silently changed or lost.
"""
from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from .errors import SessionError
from .json_words import parser_words
from .session_limits import MAX_NUMBER_CHARS
from .session_words import short
from .translatable import QT_TRANSLATE_NOOP


class _Refused(Exception):
    """Raised from inside the JSON parser's hooks; ``literal`` locates it in the text."""

    def __init__(self, message: str, literal: str | None = None):
        super().__init__(message)
        self.message = message
        self.literal = literal


def _parse_constant(name: str) -> float:
    """NaN, Infinity and -Infinity: refused."""
    raise _Refused(QT_TRANSLATE_NOOP("Session", "{name} is not allowed; every number must be finite").format(
                       name=name), name)


def _parse_float(text: str) -> float:
    """A float literal, refused when absurdly long or too large for a 64-bit float."""
    if len(text) > MAX_NUMBER_CHARS:
        raise _Refused(QT_TRANSLATE_NOOP("Session", "a number {text} characters long is not allowed").format(
                           text=len(text)), text)
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(QT_TRANSLATE_NOOP("Session", "the number {text} is too large to hold").format(text=text), text)
    return value


def _parse_int(text: str) -> int:
    """An integer literal, refused when absurdly long (int() of a huge literal takes seconds)."""
    if len(text) > MAX_NUMBER_CHARS:
        raise _Refused(QT_TRANSLATE_NOOP("Session", "an integer {text} digits long is not allowed").format(
                           text=len(text)), text)
    return int(text)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    """An object's members as a dict; a field that appears twice is refused, never silently lost."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(QT_TRANSLATE_NOOP("Session", "the field {key} appears twice in one object").format(
                                   key=short(key)))
            seen.add(key)
    return result


def _position(text: str, literal: str | None) -> str:
    """' at line L, column C' of the first standalone occurrence of ``literal``, if found."""
    if not literal:
        return ""
    if len(literal) > MAX_NUMBER_CHARS:
        # A refused over-long number: compiled into a pattern it would take seconds (megabytes of
        # digits) and stay in re's cache; a plain search finds it just as well.
        start = text.find(literal)
        if start < 0:
            return ""
    else:
        pattern = r"(?<![0-9A-Za-z.+\-\"])" + re.escape(literal) + r"(?![0-9A-Za-z.\"])"
        try:
            match = re.search(pattern, text)
        except re.error:
            return ""
        if not match:
            return ""
        start = match.start()
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return QT_TRANSLATE_NOOP("Session", " at line {line}, column {column}").format(line=line, column=column)


def decode(data: bytes, where: str) -> str:
    """UTF-8 bytes (a leading BOM allowed) as text; UTF-16 and undecodable bytes are refused."""
    offset = 0
    if data.startswith(codecs.BOM_UTF8):
        data, offset = data[3:], 3
    elif data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is UTF-16 text; session files are UTF-8").format(
                               where=where))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is not UTF-8 text (byte 0x{data} at "
                                                        "offset {start} cannot be decoded)").format(where=where,
                               data=format(data[e.start], "02x"), start=e.start + offset)) from None


def parse(text: str, where: str) -> Any:
    """The JSON value of ``text`` (a leading BOM dropped), with numbers, constants and duplicate
    fields checked while parsing; any failure is a SessionError saying where in the text."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text or text.isspace():
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is empty").format(where=where))
    try:
        return json.loads(text, parse_constant=_parse_constant, parse_float=_parse_float,
                          parse_int=_parse_int, object_pairs_hook=_no_duplicates)
    except _Refused as e:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: {message}{text}").format(where=where,
                               message=e.message, text=_position(text, e.literal))) from None
    except json.JSONDecodeError as e:
        cut = e.pos >= len(text.rstrip()) or (e.msg.startswith("Unterminated string")
                                              and "\n" not in text[e.pos:].rstrip())
        ending = QT_TRANSLATE_NOOP("Session", " (the file ends too early; is it truncated?)") if cut else ""
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is not valid JSON: {what} at line "
                                                        "{lineno}, column {colno}{ending}").format(where=where,
                               what=parser_words(e.msg), lineno=e.lineno, colno=e.colno, ending=ending)) from None
    except RecursionError:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is nested too deeply to be a session file").format(
                               where=where)) from None
