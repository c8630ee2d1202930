"""Huge but well-formed JSON under the 256 MiB cap: refused by the pre-scan, before it is parsed.

Parsing costs time and memory per value: 64 MiB of ``{},`` took 5.5 s and 1.7 GB in ``json.loads``.
``load_session`` now counts what the raw bytes hold first (objects, lists, strings, values per list,
the longest string, nesting) against the most a session can hold, derived from the format's limits,
and refuses a file that holds more without parsing it. These tests check that the parser is never
reached for such files (no timing: a guard on ``_parse`` fails the test if it is), that the message
names the file and what is wrong, and that the largest legitimate sessions, text full of brackets,
quotes and commas included, still load bit for bit.
"""
import json

import numpy as np
import pytest

from explorer.core import session_prescan as session_module  # the pre-scan's own limits
from explorer.core import session_read
from explorer.core.errors import SessionError
from explorer.core.presets import demo_session
from explorer.core.session import (MAX_DIM, MAX_FOLDER_CHARS, MAX_LAYOUT_BYTES, MAX_MODEL_NAME_CHARS,
                                   MAX_TOKEN_CHARS, MAX_TOKENS, MAX_VOCAB, ModelHead, Session, Settings,
                                   load_session, save_session, session_to_json)

MiB = 2 ** 20
BASE = json.loads(session_to_json(demo_session()))


def in_session(field, value: bytes) -> bytes:
    """The demo session's file with ``field`` (a top-level field) holding the raw JSON ``value``."""
    doc = dict(BASE, **{field: "@@"})
    return json.dumps(doc, ensure_ascii=False).encode("utf-8").replace(b'"@@"', value, 1)


def in_matrix(value: bytes) -> bytes:
    """The demo session's file with matrices.Q holding the raw JSON ``value``."""
    doc = dict(BASE, matrices=dict(BASE["matrices"], Q="@@"))
    return json.dumps(doc, ensure_ascii=False).encode("utf-8").replace(b'"@@"', value, 1)


def flood(item: bytes, size: int) -> bytes:
    """A JSON list of ``item`` repeated to about ``size`` bytes."""
    return b"[" + item + (b"," + item) * (size // (len(item) + 1)) + b"]"


HOSTILE = {  # name -> (bytes, what the message must say); each is refused without being parsed
    # the shapes at 64 MiB: objects, nested lists, a list of numbers, a string
    "64 MiB of {}": (lambda: flood(b"{}", 64 * MiB), "'{' characters"),
    "64 MiB deep list": (lambda: b"[" * (64 * MiB), "is nested too deeply"),
    "64 MiB of numbers": (lambda: flood(b"0", 64 * MiB), "a list of 33,554,433 values"),
    "64 MiB string": (lambda: b'"' + b"a" * (64 * MiB) + b'"', "a string of 64.0 MiB"),
    # the same kinds and others at 16 MiB, in the places of a session file
    "16 MiB of []": (lambda: flood(b"[]", 16 * MiB), "'[' characters"),
    "16 MiB deep objects in a field": (lambda: in_session("title", b'{"a":' * (3 * MiB)),
                                       "is nested too deeply"),
    "16 MiB of numbers as tokens": (lambda: in_session("tokens", flood(b"1", 16 * MiB)),
                                    "a list of 8,388,609 values"),
    "16 MiB of numbers as one matrix row": (
        lambda: in_matrix(b"[" + flood(b"0.5", 16 * MiB) + b"]"), "a list of 4,194,305 values"),
    "16 MiB title": (lambda: in_session("title", b'"' + "长".encode() * (5 * MiB) + b'"'),
                     "a string of 15.0 MiB"),
    "16 MiB of escapes in a title": (
        lambda: in_session("title", b'"' + b"\\u00e9" * (3 * MiB) + b'"'), "a string of 18.0 MiB"),
    "16 MiB of strings": (lambda: flood(b'""', 16 * MiB), "'\"' characters"),
    "32 MiB of escaped quotes": (lambda: in_session("title", b'"' + b'\\"' * (16 * MiB) + b'"'),
                                 "'\"' characters"),
    "16 MiB of one-number rows": (lambda: in_matrix(flood(b"[0]", 16 * MiB)), "'[' characters"),
    "16 MiB of objects in a field": (lambda: in_session("layout", flood(b"{}", 16 * MiB)),
                                     "'{' characters"),
    # between the counts of the raw bytes and the limits: only the structure outside strings tells
    "1 million strings": (lambda: in_session("tokens", flood(b'"t"', 4_000_000)),
                          "it holds 1,000,039 strings"),  # the demo file's 39 other strings
    "200,000 lists": (lambda: in_session("title", flood(b"[]", 600_000)), "it holds 200,018 lists"),
    "600,000 layout members": (
        lambda: in_session("layout", b"{" + b'"k":0,' * 600_000 + b'"k":0}'),
        "it holds 600,037 values outside its lists"),
    "1 MiB of brackets in the layout, 200,000 lists in the title": (
        lambda: in_session("title", flood(b"[]", 600_000)).replace(
            b'"layout": null', b'"layout": {"state": "' + b"[{" * (MiB // 2 - 8) + b'"}'),
        "it holds 200,018 lists"),
}


@pytest.fixture
def no_parsing(monkeypatch):
    """Fail the test if the JSON parser is reached: the pre-scan must refuse these files first."""
    def parse(text, where):
        raise AssertionError(f"{where} ({len(text)} characters) reached the JSON parser")

    monkeypatch.setattr(session_read, "parse", parse)


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_huge_well_formed_json_is_refused_without_parsing(tmp_path, no_parsing, kind):
    make, expected = HOSTILE[kind]
    data = make()
    path = tmp_path / "hostile.json"
    path.write_bytes(data)
    del data
    with pytest.raises(SessionError) as caught:
        load_session(path)
    message = str(caught.value)
    assert message.startswith("hostile.json: "), message
    assert expected in message, message
    assert "could not be read (" not in message, message


def test_the_limits_come_from_the_format():
    """The most a session holds, derived from MAX_TOKENS, MAX_DIM and the matrices it may hold."""
    most = session_module._MOST
    assert most["objects"] == 5  # the file, settings, model_head, matrices, layout
    # the two token lists, the ids and 9 matrices; Q K V X X_src: a row a token (or query token); W: a row a width
    assert most["lists"] == 2 + 1 + 9 + 5 * MAX_TOKENS + 4 * MAX_DIM
    assert most["list values"] == max(MAX_TOKENS, MAX_DIM)
    assert most["string bytes"] == 6 * MAX_LAYOUT_BYTES
    # tokens and query tokens, the layout, model_head's folder and name
    assert most["text"] >= 2 * MAX_TOKENS * MAX_TOKEN_CHARS + MAX_LAYOUT_BYTES + MAX_FOLDER_CHARS + 200
    # distinct non-empty keys without control characters in 1 MiB of UTF-8: 95 of 1 byte, then
    # 95² + 1,888 of 2 bytes, then 3 bytes each
    assert session_module._MAX_LAYOUT_MEMBERS == 95 + 95 ** 2 + 1888 + (
        MAX_LAYOUT_BYTES - 95 - 2 * (95 ** 2 + 1888)) // 3


# ----- legitimate sessions at the limits still load ---------------------------------------------
def round_trip(tmp_path, session):
    path = tmp_path / "big.json"
    save_session(session, path)
    loaded = load_session(path)
    assert loaded == session
    return path.stat().st_size


def test_a_large_session_still_round_trips(tmp_path):
    """L = 4096 tokens, Q/K/V of width 64 (about 15.6 MiB as save_session writes it)."""
    rng = np.random.default_rng(4096)
    s = Session(tuple(f"t{i}" for i in range(4096)),
                {name: rng.standard_normal((4096, 64)) for name in "QKV"},
                Settings(heads=8, causal=True), title="L = 4096, d = 64")
    assert round_trip(tmp_path, s) > 15 * MiB


@pytest.mark.parametrize("chars", ["{", "[", '"', ",", "\\", "]}", '[{",\\]}'])
def test_text_full_of_brackets_quotes_and_commas_still_loads(tmp_path, chars):
    """The most text a session holds (tokens, title, layout, a model's folder and name), all of it characters
    one counts; and the most token ids."""
    text = chars * (MAX_LAYOUT_BYTES // len(chars))
    tokens = tuple(text[i % len(chars):][:MAX_TOKEN_CHARS] for i in range(MAX_TOKENS))
    ones = np.ones((MAX_TOKENS, 1))
    head = ModelHead(folder="/" + text[:MAX_FOLDER_CHARS - 1], name=text[:MAX_MODEL_NAME_CHARS], layer=999,
                     head=MAX_DIM - 1, hidden=MAX_DIM, ids=tuple(range(MAX_VOCAB - MAX_TOKENS, MAX_VOCAB)))
    s = Session(tokens, {"Q": ones, "K": ones, "V": ones}, title=text[:200],
                layout={"s": text[:MAX_LAYOUT_BYTES - 1]}, model_head=head)
    round_trip(tmp_path, s)


def test_a_layout_value_of_escaped_control_characters_still_loads(tmp_path):
    """1 MiB of U+0001 is written as 6 MiB of \\u0001: the longest string a session can hold."""
    s = Session(("a",), {"Q": [[1.0]], "K": [[1.0]], "V": [[1.0]]},
                layout={"state": "\x01" * (MAX_LAYOUT_BYTES - 5)})
    assert round_trip(tmp_path, s) > 6 * MiB


def test_the_most_lists_and_layout_members_still_load(tmp_path):
    """8,192 rows in Q, K, V, X; 4,096 in Wq, Wk, Wo; as many layout keys as 1 MiB holds."""
    ascii_ = [chr(c) for c in range(0x20, 0x7F)]
    keys = ascii_ + [a + b for a in ascii_ for b in ascii_] + [chr(c) for c in range(0xA0, 0x800)]
    keys += [a + b + c for a in ascii_ for b in ascii_ for c in ascii_[:40]]
    budget, layout = MAX_LAYOUT_BYTES, {}
    for key in keys:
        size = len(key.encode("utf-8"))
        if budget < size:
            break
        layout[key] = ""
        budget -= size
    assert len(layout) == session_module._MAX_LAYOUT_MEMBERS  # the most the format allows
    column = np.full((MAX_TOKENS, 1), 0.5)
    w = np.full((4096, 1), -0.25)
    s = Session(tuple(f"t{i}" for i in range(MAX_TOKENS)),
                {"Q": column, "K": column, "V": column, "X": column, "Wq": w, "Wk": w,
                 "Wv": np.ones((2, 1)), "Wo": np.ones((4096, 2))}, layout=layout)
    round_trip(tmp_path, s)
