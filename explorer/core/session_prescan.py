"""The pre-scan: refuse, unparsed, raw bytes that cannot be a session, at memory speed.

Parsing costs time and memory per value, not per byte, and a JSON list is parsed whole before
anyone can say it is not an object. So a few C-speed passes over the bytes (count, find,
translate, split) refuse a file that holds more than a session ever can, nests too deeply, or
is not a JSON object at all; well under a second at the 256 MiB cap.
"""
from __future__ import annotations

import codecs
import re

import numpy as np

from .errors import SessionError
from .session_data import MODEL_HEAD_FIELDS
from .session_limits import (MATRIX_AXES, MAX_DIM, MAX_FILE_BYTES, MAX_FOLDER_CHARS, MAX_LAYOUT_BYTES,
                             MAX_MODEL_NAME_CHARS, MAX_TITLE_CHARS, MAX_TOKEN_CHARS, MAX_TOKENS, TOKEN_AXES,
                             TOP_FIELDS)
from .session_settings import SETTINGS_FIELDS
from .session_words import size_text
from .translatable import QT_TRANSLATE_NOOP

# 64 MiB of `{},` is 22 million objects (seconds, gigabytes to parse). The most a valid session
# holds, from the format's own limits (a cross-attention session: tokens and query tokens, X and X_src):
_MAX_ROWS = sum(MAX_TOKENS if axes[0] in TOKEN_AXES else MAX_DIM for axes in MATRIX_AXES.values())
_TOKEN_LISTS = 2                                    # tokens and query_tokens
_ID_LISTS = 1                                       # model_head.ids (as many as the tokens)


def _most_layout_keys(budget: int = MAX_LAYOUT_BYTES) -> int:
    """How many distinct layout keys fit in ``budget`` UTF-8 bytes, the shortest ones first."""
    count = 0   # 95 printable ASCII keys of 1 byte; 95² ASCII pairs and 1,888 characters
    for size, available in ((1, 95), (2, 95 ** 2 + 0x800 - 0xA0)):  # U+00A0–U+07FF of 2 bytes
        taken = min(available, budget // size)
        count, budget = count + taken, budget - taken * size
    return count + budget // 3      # every other key takes 3 bytes or more


_MAX_LAYOUT_MEMBERS = _most_layout_keys()
_MOST = {
    "objects": 5,                                   # the file, settings, model_head, matrices, layout
    # the token lists, the ids, every matrix and its rows
    "lists": _TOKEN_LISTS + _ID_LISTS + len(MATRIX_AXES) + _MAX_ROWS,
    "strings": (len(TOP_FIELDS) + 2 + 2 * len(SETTINGS_FIELDS) + len(MODEL_HEAD_FIELDS) + 2 + len(MATRIX_AXES)
                + _TOKEN_LISTS * MAX_TOKENS + 2 * _MAX_LAYOUT_MEMBERS),
    # keys, format, title, settings, model_head's keys, folder and name, tokens, layout
    "list values": max(MAX_TOKENS, MAX_DIM),        # the tokens, the ids, or one matrix row
    "other values": (len(TOP_FIELDS) + len(SETTINGS_FIELDS) + len(MODEL_HEAD_FIELDS) + len(MATRIX_AXES)
                     + _MAX_ROWS + _MAX_LAYOUT_MEMBERS),  # fields, matrix rows, layout members
    "string bytes": 6 * MAX_LAYOUT_BYTES,           # a layout value, every byte escaped (\u0001)
    # characters of text (title, tokens, model_head's folder and name, layout, the format's own keys and
    # words): the text can hold any of the characters counted below, so the counts of the raw bytes allow for it
    "text": (MAX_TITLE_CHARS + _TOKEN_LISTS * MAX_TOKENS * MAX_TOKEN_CHARS + MAX_FOLDER_CHARS + MAX_MODEL_NAME_CHARS
             + MAX_LAYOUT_BYTES + 1024),
}
_NUMBERS_AND_SPACE = b"0123456789+-.eE \t\n\r"     # dropped: a matrix row becomes "[,,,]"
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_NOT_COUNTED = bytes(sorted(set(range(256)) - set(b'{["')))
_OPENER_RUN = re.compile(rb"[\[{]{65}")             # 65 levels at once; a session nests 4 deep
MAX_DEPTH = 64                                      # deeper than this: "nested too deeply"
_LEADING_SPACE = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\n\r]*")  # a byte-order mark, JSON's spaces
_PAIRED_QUOTES_MAX = 2 ** 16                        # quotes paired one by one in Python, at most


def _prescan_limit(kind: str) -> int:
    """A quarter over the most a session holds, plus 64: near misses get the validator's message."""
    return _MOST[kind] + _MOST[kind] // 4 + 64


def check_start(data: bytes, where: str) -> None:
    """Refuse at once a file that cannot even begin JSON (a session begins with ``{``; other JSON values are
    named later): an image, a note, a program's file is "not a session file", in words, not a decoder's complaint."""
    first = _LEADING_SPACE.match(data).end()
    start = data[first:first + 24]
    if not start or start[:1] in b'{["-0123456789tfn' or start[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return  # (UTF-16: the decoder names it)
    try:
        text = start.decode("utf-8")
    except UnicodeDecodeError as e:  # a character cut at the end of the sample is still text
        text = start[:e.start].decode("utf-8") if e.start >= len(start) - 3 else ""
    line = text.split("\n")[0]
    if line and line.isprintable():
        begins = f"“{line}{'…' if first + len(line.encode()) < len(data) else ''}”"
    else:
        begins = QT_TRANSLATE_NOOP("Session", "the byte 0x{byte}, so it is not text").format(byte=f"{start[0]:02x}")
    raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is not a session file: a session is JSON text "
                                                    "that begins with “{{”, and this file begins with "
                                                    "{begins}").format(where=where, begins=begins))


def prescan(data: bytes, where: str) -> None:
    """Refuse, unparsed, a file too large, holding more objects, lists, strings or values than a
    session can, nesting deeper than MAX_DEPTH, or whose top level is a list, not an object."""
    if len(data) > MAX_FILE_BYTES:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is {data}; session files are limited to "
                                                        "{max_file_bytes}").format(where=where,
                               data=size_text(len(data)), max_file_bytes=size_text(MAX_FILE_BYTES)))
    first = _LEADING_SPACE.match(data).end()
    top_is_list = data[first:first + 1] == b"["

    def refuse(detail: str, text: bytes = b"") -> SessionError:
        """The error; "nested too deeply" if the first MiB of ``text`` opens 65 levels at once."""
        head = text[:2 ** 20].replace(b"\\\\", b"").replace(b'\\"', b"")
        head = b"".join(head.split(b'"')[0::2])   # outside strings
        if _OPENER_RUN.search(head.translate(None, _NOT_BRACKETS)):
            return SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is nested too deeply to be a session "
                                                             "file").format(where=where))
        return SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is not a session file ({detail})").format(
                                where=where, detail=detail))

    # 1. The raw bytes, counted in one pass: floods of objects, lists or strings stop here. Text
    #    can hold these characters too, so the limits add all the text a session holds.
    counted = data.translate(None, _NOT_COUNTED)  # one pass; small unless it is a flood
    for char, most in ((b"{", _prescan_limit("objects")), (b"[", _prescan_limit("lists")),
                       (b'"', 2 * _prescan_limit("strings"))):
        most += _prescan_limit("text")
        count = counted.count(char)
        if count > most:
            raise refuse(QT_TRANSLATE_NOOP("Session", "it holds {count} '{value}' characters; a session "
                                                      "holds at most {most}, its text included").format(
                             count=format(count, ","), value=char.decode(), most=format(most, ",")), data)
    del counted
    # 2. Drop escaped backslashes and quotes: every '"' left opens or ends a string. With few
    #    strings, pair the quotes here: a huge string stops before any copy of the file.
    quotes = count
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")  # no copy when there are none
        quotes = data.count(b'"')
    if quotes <= _PAIRED_QUOTES_MAX:
        end = -1
        for _ in range(quotes // 2):
            start = data.find(b'"', end + 1)
            end = data.find(b'"', start + 1)
            if end - start - 1 > _prescan_limit("string bytes"):
                raise refuse(QT_TRANSLATE_NOOP("Session", "it holds a string of {end}; the longest text in a "
                                                          "session is the layout, at most {max_layout_bytes}").format(
                                 end=size_text(end - start - 1), max_layout_bytes=size_text(MAX_LAYOUT_BYTES)))
    if quotes > 2 * _prescan_limit("strings"):
        raise refuse(QT_TRANSLATE_NOOP("Session", "it holds {quotes} strings; a session holds at most "
                                                  "{strings}").format(quotes=format(quotes // 2, ","),
                         strings=format(_MOST['strings'], ",")))
    # 3. The structure outside strings. Numbers and spaces carry none: dropped, a matrix cell is
    #    left as its comma (an escape's backslash keeps its letter, so no new escapes appear).
    skeleton = data.translate(None, _NUMBERS_AND_SPACE)
    del data
    if quotes:
        parts = skeleton.split(b'"')
        longest = max(map(len, parts[1::2]))  # without its digits and spaces
        if longest > _prescan_limit("string bytes"):
            raise refuse(QT_TRANSLATE_NOOP("Session", "it holds a string of {longest} or more; the longest "
                                                      "text in a session is the layout, at most "
                                                      "{max_layout_bytes}").format(longest=size_text(longest),
                             max_layout_bytes=size_text(MAX_LAYOUT_BYTES)))
        outside = b"".join(parts[0::2])
        del parts
    else:
        outside = skeleton
    del skeleton
    objects, lists = outside.count(b"{"), outside.count(b"[")
    if objects > _prescan_limit("objects"):
        raise refuse(QT_TRANSLATE_NOOP("Session", "it holds {objects} objects; a session holds at most "
                                                  "{most_objects}").format(objects=format(objects, ","), most_objects=_MOST['objects']), outside)
    if lists > _prescan_limit("lists"):
        raise refuse(QT_TRANSLATE_NOOP("Session", "it holds {lists} lists; a session holds at most "
                                                  "{most_lists} (the tokens, and every matrix and its rows)").format(
                         lists=format(lists, ","), most_lists=format(_MOST['lists'], ",")), outside)
    # 4. Values: a list holding no other list (the tokens, a matrix row) holds its commas + 1;
    #    every other comma separates fields, rows or layout members. At most `lists` steps here.
    in_lists = 0
    start = outside.find(b"[")
    while start >= 0:
        following = outside.find(b"[", start + 1)
        end = outside.find(b"]", start + 1, len(outside) if following < 0 else following)
        if end >= 0:  # (a session has no object in a list, so any one inside is counted too)
            commas = outside.count(b",", start + 1, end)
            if commas >= _prescan_limit("list values"):
                raise refuse(QT_TRANSLATE_NOOP("Session", "it holds a list of {commas} values; the longest "
                                                          "list in a session is the tokens, at most "
                                                          "{max_tokens}").format(commas=format(commas + 1, ","),
                                 max_tokens=format(MAX_TOKENS, ",")))
            in_lists += commas
        start = following
    other = outside.count(b",") - in_lists
    if other > _prescan_limit("other values"):
        raise refuse(QT_TRANSLATE_NOOP("Session", "it holds {other} values outside its lists of numbers "
                                                  "and tokens; a session holds at most {other_values} "
                                                  "(fields, matrix rows, layout members)").format(other=format(other, ","),
                         other_values=format(_MOST['other values'], ",")))
    # 5. Depth, and the top level: a list is parsed whole before it can be told from an object.
    depth = _depth(outside.translate(None, _NOT_BRACKETS), objects + lists)
    if depth > MAX_DEPTH:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is nested too deeply to be a session file "
                                                        "({depth} levels; a session nests 4)").format(
                               where=where, depth=format(depth, ",")))
    if top_is_list:
        raise SessionError(QT_TRANSLATE_NOOP("Session", "{where}: is not a session file (it holds a list, "
                                                        "not an object)").format(where=where))


def _depth(brackets: bytes, openers: int) -> int:
    """How deep ``brackets`` (only '[{]}', outside strings) nest. Balanced, they are 2 × ``openers``
    long; extra closers are never reached (the parser stops at the first one out of place)."""
    codes = np.frombuffer(brackets, dtype=np.uint8, count=min(len(brackets), 2 * openers))
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1).astype(np.int32)
    return int(np.cumsum(steps).max()) if len(steps) else 0
