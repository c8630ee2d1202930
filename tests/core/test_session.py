"""The session file: exact round trips, one test per validation rule, and hostile-input fuzzing."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from explorer.core import session as session_module
from explorer.core import session_read
from explorer.core import session_check, session_read, session_write
from explorer.core.errors import SessionError
from explorer.core.session import (
    FORMAT_NAME, MAX_ABS_VALUE, MAX_DIM, MAX_FILE_BYTES, MAX_TOKENS, SCALE_MODES, TEMPERATURE_MAX,
    TEMPERATURE_MIN, VERSION, Session, Settings, load_session, save_session, session_from_json,
    session_to_json, validate_session,
)
from tests.core.format_versions import as_version_4, as_version_5

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO_TOKENS = ("猫", "追", "红色", "激光点")
DEMO_Q = [[0.5, 1.5, 0], [2, 0, 0], [1, 0, 0.8], [0.3, 0, 2]]
DEMO_K = [[2, 0, 0], [0, 2, 0], [0, 0, 2], [2, 0, 1]]
DEMO_V = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0.3, 0.8]]
DEMO_TITLE = "Demo: 猫 追 红色 激光点"


def demo_session() -> Session:
    return Session(tokens=DEMO_TOKENS, matrices={"Q": DEMO_Q, "K": DEMO_K, "V": DEMO_V},
                   title=DEMO_TITLE)


def demo_dict() -> dict:
    return json.loads(session_to_json(demo_session()))


def refused(data, *expected: str, where: str = "demo.json") -> str:
    """Load ``data`` (dict, str or bytes); assert a SessionError naming ``where`` and each part."""
    text = json.dumps(data, ensure_ascii=False) if isinstance(data, (dict, list)) else data
    with pytest.raises(SessionError) as info:
        session_from_json(text, where=where)
    message = str(info.value)
    assert message.startswith(where + ": "), message
    for part in expected:
        assert part in message, message
    return message


def assert_bit_identical(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype == np.float64
    assert a.tobytes() == b.tobytes()


# ----------------------------------------------------------------------------------------------
# The frozen version-1 file

def test_frozen_v1_file_loads_exactly():
    s = load_session(DATA / "session_v1.json")
    assert s.tokens == DEMO_TOKENS
    assert s.title == DEMO_TITLE
    assert s.settings == Settings()
    assert s.settings == Settings(scale_mode="inv_sqrt_d", scale=1.0, temperature=1.0,
                                  causal=False, heads=1, selected_row=0, selected_head=0)
    assert s.layout is None
    assert set(s.matrices) == {"Q", "K", "V"}
    for name, expected in (("Q", DEMO_Q), ("K", DEMO_K), ("V", DEMO_V)):
        assert_bit_identical(s.matrices[name], np.array(expected, dtype=np.float64))
    assert s == demo_session()


def test_frozen_v6_file_is_what_save_writes():
    """The writer's output is stable: saving the demo reproduces the frozen file byte for byte."""
    assert session_to_json(demo_session()) == (DATA / "session_v6.json").read_text("utf-8")


def test_frozen_v5_file_differs_from_v6_only_by_its_version():
    """Version 6 added model_head, written only for a real model's head: the demo written as version 5 is the
    same text with its version, and loads to the same session (no model_head)."""
    assert as_version_5(session_to_json(demo_session())) == (DATA / "session_v5.json").read_text("utf-8")
    loaded = load_session(DATA / "session_v5.json")
    assert loaded == demo_session() and loaded.model_head is None


def test_frozen_v4_file_differs_from_v5_only_by_its_version_and_new_settings():
    """Version 5 added the RoPE scaling settings (rope_scaling "none", llama3's parameters at their defaults):
    the demo written as version 4 loads to the same session."""
    assert as_version_4(session_to_json(demo_session())) == (DATA / "session_v4.json").read_text("utf-8")
    assert load_session(DATA / "session_v4.json") == demo_session()


def test_frozen_v3_file_differs_from_v4_only_by_its_version_and_new_settings():
    """Version 4 added settings.kv_heads (written as 0, "as many as heads"), the decode step
    (decode_prefill 1, decode_t 0: every token) and query_tokens (written only in a cross-attention
    session): the demo written as version 3 loads to the same session."""
    v3 = (DATA / "session_v3.json").read_text("utf-8")
    v4 = (DATA / "session_v4.json").read_text("utf-8")
    new = ',\n  "kv_heads": 0,\n  "decode_prefill": 1,\n  "decode_t": 0'
    assert v4.replace('"version": 4,', '"version": 3,', 1).replace(new, "", 1) == v3
    assert load_session(DATA / "session_v3.json") == demo_session()


def test_frozen_v2_file_differs_from_v3_only_by_its_version():
    """Version 3 changed what may be left out, not what is written."""
    v2 = (DATA / "session_v2.json").read_text("utf-8")
    v3 = (DATA / "session_v3.json").read_text("utf-8")
    assert v3.replace('"version": 3,', '"version": 2,', 1) == v2
    assert load_session(DATA / "session_v2.json") == demo_session()


def test_v1_upgrades_to_direct_mode_without_positions():
    v1 = json.loads((DATA / "session_v1.json").read_text("utf-8"))
    assert v1["version"] == 1 and "source" not in v1["settings"]
    s = load_session(DATA / "session_v1.json")
    assert (s.settings.source, s.settings.positions) == ("direct", "none")


# ----------------------------------------------------------------------------------------------
# The Session object

def test_session_copies_and_freezes_arrays():
    q = np.array(DEMO_Q, dtype=float)
    s = Session(tokens=list(DEMO_TOKENS), matrices={"Q": q, "K": DEMO_K, "V": DEMO_V})
    q[0, 0] = 99.0
    assert s.matrices["Q"][0, 0] == 0.5
    assert isinstance(s.tokens, tuple)
    for array in s.matrices.values():
        assert array.dtype == np.float64 and not array.flags.writeable
        with pytest.raises(ValueError):
            array[0, 0] = 1.0
    with pytest.raises(TypeError):
        s.matrices["X"] = q  # type: ignore[index]


def test_session_equality_is_bitwise():
    a = demo_session()
    b = Session(tokens=DEMO_TOKENS, matrices={"Q": DEMO_Q, "K": DEMO_K,
                                              "V": np.negative(np.array(DEMO_V)) * -1},
                title=DEMO_TITLE)
    assert a == b                                            # same values, same bits
    q = np.array(DEMO_Q, dtype=float)
    q[0, 2] = -0.0
    c = Session(tokens=DEMO_TOKENS, matrices={"Q": q, "K": DEMO_K, "V": DEMO_V}, title=DEMO_TITLE)
    assert a != c                                            # -0.0 is not 0.0 bit for bit


def test_validate_normalises_numbers():
    s = Session(tokens=DEMO_TOKENS, matrices={"Q": DEMO_Q, "K": DEMO_K, "V": DEMO_V},
                settings=Settings(temperature=2, scale=np.float32(0.5), heads=np.int64(3)))
    v = validate_session(s)
    assert type(v.settings.temperature) is float and v.settings.temperature == 2.0
    assert type(v.settings.scale) is float and type(v.settings.heads) is int


def test_validate_refuses_a_non_session():
    with pytest.raises(SessionError, match="^session: not a Session"):
        validate_session({"tokens": []})


def test_validate_refuses_non_finite_and_bad_arrays_in_memory():
    q = np.array(DEMO_Q, dtype=float)
    q[2, 1] = np.nan
    bad = Session(tokens=DEMO_TOKENS, matrices={"Q": q, "K": DEMO_K, "V": DEMO_V})
    with pytest.raises(SessionError, match=r"^x\.json: matrices\.Q row 2 col 1 is nan; values "
                                           r"must be finite"):
        validate_session(bad, where="x.json")
    with pytest.raises(SessionError, match=r"matrices\.K holds complex128"):
        validate_session(Session(DEMO_TOKENS, {"Q": DEMO_Q, "K": np.ones((4, 3), complex),
                                               "V": DEMO_V}))
    with pytest.raises(SessionError, match=r"matrices\.V is 3-D"):
        validate_session(Session(DEMO_TOKENS, {"Q": DEMO_Q, "K": DEMO_K,
                                               "V": np.ones((4, 3, 1))}))
    with pytest.raises(SessionError, match=r"matrices\.V must be a 2-D array of numbers"):
        validate_session(Session(DEMO_TOKENS, {"Q": DEMO_Q, "K": DEMO_K,
                                               "V": [[1, 2], [3]]}))
    with pytest.raises(SessionError, match=r"^session: settings must be a Settings"):
        validate_session(Session(DEMO_TOKENS, {"Q": DEMO_Q, "K": DEMO_K, "V": DEMO_V},
                                 settings={"heads": 1}))  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------------
# Round trip (property)

TEXT_CHARS = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))
FINITE = st.one_of(
    st.floats(min_value=-MAX_ABS_VALUE, max_value=MAX_ABS_VALUE, allow_nan=False,
              allow_infinity=False, allow_subnormal=True),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, MAX_ABS_VALUE,
                     -MAX_ABS_VALUE, 0.1, 1 / 3, 999999.9999999999]),
)


@st.composite
def sessions(draw) -> Session:
    n = draw(st.integers(1, 6))
    heads = draw(st.integers(1, 3))
    d_k = heads * draw(st.integers(1, 3))
    d_v = heads * draw(st.integers(1, 3))
    tokens = tuple(draw(st.lists(st.text(TEXT_CHARS, min_size=1, max_size=100),
                                 min_size=n, max_size=n)))
    matrices = {name: draw(hnp.arrays(np.float64, (n, width), elements=FINITE))
                for name, width in (("Q", d_k), ("K", d_k), ("V", d_v))}
    s = Settings(
        scale_mode=draw(st.sampled_from(SCALE_MODES)),
        scale=draw(st.floats(min_value=0.0, max_value=1e3, exclude_min=True)),
        temperature=draw(st.floats(min_value=TEMPERATURE_MIN, max_value=TEMPERATURE_MAX)),
        causal=draw(st.booleans()),
        heads=heads,
        selected_row=draw(st.integers(0, n - 1)),
        selected_head=draw(st.integers(0, heads - 1)),
    )
    layout = draw(st.none() | st.dictionaries(
        st.text(TEXT_CHARS, min_size=1, max_size=20),
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=50), max_size=3))
    title = draw(st.text(TEXT_CHARS, max_size=200))
    return Session(tokens=tokens, matrices=matrices, settings=s, layout=layout, title=title)


def assert_same_session(a: Session, b: Session) -> None:
    assert b.tokens == a.tokens
    assert b.settings == a.settings
    assert b.title == a.title
    assert (None if b.layout is None else dict(b.layout)) == (
        None if a.layout is None else dict(a.layout))
    assert set(b.matrices) == set(a.matrices)
    for name in a.matrices:
        assert_bit_identical(a.matrices[name], b.matrices[name])
    assert a == b


@settings(max_examples=150, deadline=None)
@given(sessions())
def test_round_trip_through_a_file(original):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s.json")
        save_session(original, path)
        assert_same_session(original, load_session(path))
        assert os.listdir(folder) == ["s.json"]


@settings(max_examples=150, deadline=None)
@given(sessions())
def test_round_trip_through_text_and_bytes(original):
    text = session_to_json(original)
    assert_same_session(original, session_from_json(text))
    assert_same_session(original, session_from_json(text.encode("utf-8")))
    assert session_to_json(session_from_json(text)) == text


def test_file_layout_is_readable(tmp_path):
    """Indented JSON, each matrix row on its own line, CJK written as itself."""
    q = np.arange(12.0).reshape(4, 3) / 7
    s = Session(DEMO_TOKENS, {"Q": q, "K": DEMO_K, "V": DEMO_V}, title=DEMO_TITLE,
                layout={"state": "AAAA", "geometry": "BBBB"})
    save_session(s, tmp_path / "s.json")
    text = (tmp_path / "s.json").read_text("utf-8")
    assert "猫" in text and '"layout": {\n  "state": "AAAA",' in text
    lines = text.splitlines()
    assert f"   {json.dumps(q[1].tolist())}," in lines
    assert json.loads(text)["format"] == FORMAT_NAME


def test_bom_is_accepted():
    text = session_to_json(demo_session())
    assert session_from_json(b"\xef\xbb\xbf" + text.encode()) == demo_session()
    assert session_from_json("\ufeff" + text) == demo_session()


def test_json_integers_are_accepted_for_numbers():
    d = demo_dict()
    d["matrices"]["Q"] = DEMO_Q            # mixes ints and floats
    d["settings"]["temperature"] = 2
    s = session_from_json(json.dumps(d))
    assert_bit_identical(s.matrices["Q"], np.array(DEMO_Q, dtype=float))
    assert s.settings.temperature == 2.0 and type(s.settings.temperature) is float


# ----------------------------------------------------------------------------------------------
# One test per rule: the error is a SessionError that names the file and the place

def with_change(path: str, value) -> dict:
    """The demo dict with the value at a dotted path ('settings.heads', 'tokens.2') replaced."""
    d = demo_dict()
    keys = path.split(".")
    target = d
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return d


def without(path: str) -> dict:
    d = demo_dict()
    *parents, last = path.split(".")
    target = d
    for key in parents:
        target = target[key]
    del target[last]
    return d


RULES = [
    # the top level
    (with_change("format", "something-else"), ["is not an Attention Explorer session",
                                               "'something-else'"]),
    (without("format"), ['no "format" field']),
    (without("version"), ['no "version" field']),
    (with_change("version", "1"), ["version must be an integer, not a string"]),
    (with_change("version", 1.0), ["version must be an integer, not a number (1.0)"]),
    (with_change("version", True), ["version must be an integer, not a boolean"]),
    (with_change("version", 0), ["version 0 is not valid (versions start at 1)"]),
    (with_change("version", 7), ["written by a newer version of Attention Explorer "
                                 "(version 7; this one reads up to 6)"]),
    (dict(demo_dict(), extra=1), ["unknown field 'extra'"]),
    (dict(demo_dict(), tokenz=[]), ["unknown field 'tokenz' (did you mean 'tokens'?)"]),
    (without("tokens"), ["missing field 'tokens'"]),
    (without("matrices"), ["missing field 'matrices'"]),
    # title
    (with_change("title", 5), ["title must be a string, not a number (5)"]),
    (with_change("title", "a\tb"), ["title contains a control character (U+0009"]),
    (with_change("title", "x" * 201), ["title has 201 characters; the most is 200"]),
    # tokens
    (with_change("tokens", "猫 追"), ["tokens must be a list of strings, not a string"]),
    (with_change("tokens", []), ["tokens is empty"]),
    (with_change("tokens", ["t"] * (MAX_TOKENS + 1)), [f"tokens has {MAX_TOKENS + 1} entries; "
                                                       f"the most is {MAX_TOKENS}"]),
    (with_change("tokens.1", 3), ["tokens[1] must be a string, not a number (3)"]),
    (with_change("tokens.2", ""), ["tokens[2] is empty"]),
    (with_change("tokens.0", "x" * 101), ["tokens[0] has 101 characters; the most is 100"]),
    (with_change("tokens.3", "a\nb"), ["tokens[3] contains a control character (U+000A"]),
    (with_change("tokens.3", "a\x85b"), ["tokens[3] contains a control character (U+0085"]),
    (with_change("tokens.3", "a\u2028"), ["tokens[3] contains a control character (U+2028"]),
    (with_change("tokens.0", "\ud800"), ["tokens[0] contains an unpaired surrogate"]),
    # matrices: names
    (with_change("matrices", [[1]]), ["matrices must be an object of named matrices, "
                                      "not a list"]),
    (with_change("matrices.Y", [[1, 2, 3]] * 4), ["matrices: unknown matrix 'Y' "
                                                  "(version 6 holds Q, K, V, X, X_src, Wq, Wk, Wv, "
                                                  "Wo)"]),
    (without("matrices.V"), ["matrices: missing matrix 'V'"]),
    # matrices: structure
    (with_change("matrices.Q", "1 2 3"), ["matrices.Q must be a list of rows, not a string"]),
    (with_change("matrices.Q", []), ["matrices.Q has no rows"]),
    (with_change("matrices.Q.1", 2.0), ["matrices.Q row 1 must be a list of numbers, "
                                        "not a number (2.0)"]),
    (with_change("matrices.K.2", [1.0, 2.0]), ["matrices.K row 2 has 2 numbers but row 0 has 3"]),
    (with_change("matrices.Q", [[]] * 4), ["matrices.Q has no columns"]),
    (with_change("matrices.Q", [[1.0, 2.0, 3.0]] * 3), ["matrices.Q has 3 rows but there are "
                                                        "4 tokens"]),
    (with_change("matrices.K", [[1.0] * 4] * 4), ["matrices.K has 4 columns but matrices.Q has "
                                                  "3 columns"]),
    (with_change("matrices.Q.1.2", "0.5"), ["matrices.Q row 1 col 2 is a string ('0.5'); it "
                                            "must be a number"]),
    (with_change("matrices.Q.0.0", True), ["matrices.Q row 0 col 0 is a boolean (true)"]),
    (with_change("matrices.V.3.1", None), ["matrices.V row 3 col 1 is null"]),
    (with_change("matrices.V.3.1", [0.5]), ["matrices.V row 3 col 1 is a list"]),
    (with_change("matrices.V.3.1", 1e7), ["matrices.V row 3 col 1 is 10000000.0; values must "
                                          "lie within ±1000000"]),
    (with_change("matrices.V.0.0", -1000000.5), ["matrices.V row 0 col 0 is -1000000.5"]),
    (with_change("matrices.V.0.0", 10 ** 40), ["matrices.V row 0 col 0 is 1e+40"]),
    # settings
    (with_change("settings", [1]), ["settings must be an object, not a list"]),
    (dict(demo_dict(), settings=dict(demo_dict()["settings"], tempreature=1.0)),
     ["settings: unknown field 'tempreature' (did you mean 'temperature'?)"]),
    (with_change("settings.scale_mode", "sqrt"), ["settings.scale_mode must be one of "
                                                  "'inv_sqrt_d', 'none', 'custom', not a string "
                                                  "('sqrt')"]),
    (with_change("settings.scale", 0), ["settings.scale is 0.0; it must be above 0 and at "
                                        "most 1000"]),
    (with_change("settings.scale", -1.5), ["settings.scale is -1.5"]),
    (with_change("settings.scale", 1000.5), ["settings.scale is 1000.5"]),
    (with_change("settings.scale", "1"), ["settings.scale must be a number, not a string"]),
    (with_change("settings.scale", False), ["settings.scale must be a number, not a boolean"]),
    (with_change("settings.temperature", 0.01), ["settings.temperature is 0.01; it must lie "
                                                 "in 0.05..20"]),
    (with_change("settings.temperature", 20.5), ["settings.temperature is 20.5"]),
    (with_change("settings.temperature", None), ["settings.temperature must be a number, "
                                                 "not null"]),
    (with_change("settings.causal", 1), ["settings.causal must be true or false, "
                                         "not a number (1)"]),
    (with_change("settings.heads", True), ["settings.heads must be an integer, not a boolean"]),
    (with_change("settings.heads", 3.0), ["settings.heads must be an integer, not a number "
                                          "(3.0)"]),
    (with_change("settings.heads", 0), ["settings.heads is 0; it must be at least 1"]),
    (with_change("settings.heads", 2), ["settings.heads is 2, which does not divide the Q/K "
                                        "width 3"]),
    (with_change("settings.heads", 10 ** 18), ["settings.heads is 1000000000000000000"]),
    (with_change("settings.selected_row", 4), ["settings.selected_row is 4; with 4 tokens it "
                                               "must lie in 0..3"]),
    (with_change("settings.selected_row", -1), ["settings.selected_row is -1"]),
    (with_change("settings.selected_row", 1.5), ["settings.selected_row must be an integer"]),
    (with_change("settings.selected_head", 1), ["settings.selected_head is 1; with 1 head it "
                                                "must lie in 0..0"]),
    # layout
    (with_change("layout", "abc"), ["layout must be null or an object of strings, "
                                    "not a string"]),
    (with_change("layout", {"state": 5}), ["layout.state must be a string, not a number (5)"]),
    (with_change("layout", {"": "x"}), ["layout key is empty"]),
    (with_change("layout", {"state": "\udc00"}), ["layout.state contains an unpaired surrogate"]),
    (with_change("layout", {"a": "x" * 2 ** 20}), ["layout is larger than 1048576 bytes"]),
]


@pytest.mark.parametrize("data, expected", RULES, ids=[e[0] for _, e in RULES])
def test_each_rule_is_refused_with_its_place(data, expected):
    refused(data, *expected)


def test_heads_must_divide_the_v_width():
    d = demo_dict()
    d["settings"]["heads"] = 3
    d["matrices"]["V"] = [[1.0, 0.0]] * 4
    refused(d, "settings.heads is 3, which does not divide the V width 2")


def test_width_limit(monkeypatch):
    d = demo_dict()
    d["tokens"] = ["a"]
    d["matrices"] = {"Q": [[0.0] * (MAX_DIM + 1)], "K": [[0.0] * (MAX_DIM + 1)], "V": [[0.0]]}
    refused(d, f"matrices.Q has {MAX_DIM + 1} columns; the most is {MAX_DIM}")


def test_projected_widths_are_limited_like_columns():
    """p_k and D_o are only ever row counts (of Wq, Wk and Wo), but widths all the same: 1..MAX_DIM."""
    w = MAX_DIM
    d = demo_dict()
    d["tokens"] = ["a"]
    d["matrices"] = {"Q": [[0.0]], "K": [[0.0]], "V": [[0.0]], "X": [[0.0]], "Wq": [[0.0]] * (w + 1),
                     "Wk": [[0.0]] * (w + 1), "Wv": [[0.0]], "Wo": [[0.0]]}
    refused(d, f"matrices.Wq has {w + 1} rows; the most is {w} (its rows are the projected Q/K width, p_k)")
    d["matrices"].update(Wq=[[0.0]] * w, Wk=[[0.0]] * w, Wo=[[0.0]] * (w + 1))
    refused(d, f"matrices.Wo has {w + 1} rows; the most is {w} (its rows are the output width, D_o)")
    d["matrices"]["Wo"] = [[0.0]] * w
    s = session_from_json(json.dumps(d))
    assert s.matrices["Wq"].shape == (w, 1) and s.matrices["Wo"].shape == (w, 1)
    with pytest.raises(SessionError, match=rf"^imported Wq: matrices\.Wq has {w + 1} rows"):
        validate_session(Session(s.tokens, dict(s.matrices, Wq=np.zeros((w + 1, 1))), s.settings),
                         where="imported Wq")


def test_the_widths_of_a_70b_model_fit_and_the_cells_still_bound_them():
    """MAX_DIM admits Llama 3 70B's X (8192 wide) and Llama 3.1 405B's (16384); what bounds memory is the cell
    count, 2²⁴ per matrix: 2048 tokens of an 8192-wide X, not 2049."""
    assert MAX_DIM >= 16384
    x = np.zeros((2048, 8192))
    mats = {"Q": np.zeros((2048, 1)), "K": np.zeros((2048, 1)), "V": np.zeros((2048, 1)), "X": x,
            "Wq": np.zeros((1, 8192)), "Wk": np.zeros((1, 8192)), "Wv": np.zeros((1, 8192)), "Wo": np.zeros((8192, 1))}
    tokens = tuple(f"t{i}" for i in range(2048))
    validate_session(Session(tokens, mats, Settings(source="projected")))
    longer = {n: np.zeros((2049, m.shape[1])) if n in ("Q", "K", "V", "X") else m for n, m in mats.items()}
    with pytest.raises(SessionError, match=r"^session: matrices\.X has 2049×8192 = 16785408 cells; the most is "
                                           r"16777216$"):
        validate_session(Session(tokens + ("t",), longer, Settings(source="projected")))


def test_cell_limit(monkeypatch):
    d, s = demo_dict(), demo_session()
    for module in (session_read, session_check):  # while reading the rows, and validating
        monkeypatch.setattr(module, "MAX_CELLS", 8)
    refused(d, "matrices.Q has 4×3 = 12 cells; the most is 8")
    with pytest.raises(SessionError, match=r"^session: matrices\.Q has 4×3 = 12 cells"):
        validate_session(s)


@pytest.mark.parametrize("literal, expected", [
    ("NaN", "NaN is not allowed; every number must be finite at line {line}, column"),
    ("Infinity", "Infinity is not allowed"),
    ("-Infinity", "-Infinity is not allowed"),
    ("1e400", "the number 1e400 is too large to hold at line {line}, column 5"),
    ("-1E+999", "the number -1E+999 is too large"),
    ("1" * 200, "an integer 200 digits long is not allowed"),
    ("0." + "1" * 200, "a number 202 characters long is not allowed"),
])
def test_non_finite_and_absurd_numbers_are_refused(literal, expected):
    text = session_to_json(demo_session())
    lines = text.split("\n")
    i = lines.index("   [0.5, 1.5, 0.0],")  # the first row of Q
    lines[i] = f"   [{literal}, 1.5, 0.0],"
    refused("\n".join(lines), expected.format(line=i + 1))


def test_duplicate_fields_are_refused():
    text = session_to_json(demo_session()).replace('"causal": false,',
                                                   '"causal": false, "causal": true,')
    refused(text, "the field 'causal' appears twice in one object")


@pytest.mark.parametrize("data, expected", [
    ("", "is empty"),
    ("  \n\t ", "is empty"),
    ("[1, 2]", "is not a session file (it holds a list, not an object)"),
    ("42", "is not a session file (it holds a number (42), not an object)"),
    ('"text"', "is not a session file"),
    ("null", "is not a session file (it holds null"),
    ("{", "is not valid JSON: Expecting property name enclosed in double quotes at line 1, "
          "column 2 (the file ends too early; is it truncated?)"),
    ("{'a': 1}", "is not valid JSON"),
    ('{"format": "attention-explorer-session", "version": 1,}', "is not valid JSON"),
    ("[" * 100_000, "is nested too deeply"),
    ("[" * 1_000_000 + "]" * 1_000_000, "is nested too deeply"),
    ('{"a":' * 100_000, "is nested too deeply"),
    (b"\xff\xfe{\x00}\x00", "is UTF-16 text; session files are UTF-8"),
    (b'{"format": "\xff"}', "is not UTF-8 text (byte 0xff at offset 12 cannot be decoded)"),
    (b'\xef\xbb\xbf{"t": "\xc3"}', "is not UTF-8 text (byte 0xc3 at offset 10"),
    (b'{"a": "\xed\xa0\x80"}', "is not UTF-8 text (byte 0xed at offset 7"),  # encoded surrogate
    # files that cannot begin JSON: said in words, not as the decoder's or the parser's complaint
    (b"\x89PNG\r\n\x1a\n\x00\x00", "is not a session file: a session is JSON text that begins with “{”, and this "
                                   "file begins with the byte 0x89, so it is not text"),
    ("My notes\nfor Monday", "is not a session file: a session is JSON text that begins with “{”, and this file "
                             "begins with “My notes…”"),
    ("  猫 追", "this file begins with “猫 追”"),
    (12, "expected the text of a session file, not a number (12)"),
    (None, "expected the text of a session file, not null"),
])
def test_malformed_text_is_refused(data, expected):
    refused(data, expected)


def test_truncated_file_says_so():
    text = session_to_json(demo_session())
    refused(text[: len(text) // 2], "is not valid JSON", "is it truncated?")


# ----------------------------------------------------------------------------------------------
# Versioning

def test_upgrade_steps_run_in_order(monkeypatch, tmp_path):
    """A fake version 4 with three upgrade steps: a version-1 file loads through all of them."""
    calls = []
    real_upgrades = dict(session_read.UPGRADES)

    def one_to_two(d):
        calls.append((1, d["version"]))
        return dict(session_read._upgrade_v1(d), title=d["title"] + " (v2)", added_in_v2=True)

    def two_to_three(d):
        calls.append((2, d["version"]))
        return dict(real_upgrades[2](d), title=d["title"] + " (v3)")

    def three_to_four(d):
        calls.append((3, d["version"]))
        d = dict(d, title=d["title"] + " (v4)")
        del d["added_in_v2"]
        return d

    for module in (session_read, session_write):  # the version the reader reads and the writer writes
        monkeypatch.setattr(module, "VERSION", 4)
    monkeypatch.setattr(session_read, "UPGRADES", {1: one_to_two, 2: two_to_three, 3: three_to_four})
    s = load_session(DATA / "session_v1.json")
    assert calls == [(1, 1), (2, 2), (3, 3)]
    assert s.title == DEMO_TITLE + " (v2) (v3) (v4)"
    save_session(s, tmp_path / "new.json")
    assert json.loads((tmp_path / "new.json").read_text("utf-8"))["version"] == 4


def test_upgrade_failures_are_session_errors(monkeypatch):
    def broken(d):
        raise KeyError("tokens")

    v1 = dict(demo_dict(), version=1)
    monkeypatch.setattr(session_read, "VERSION", 2)
    monkeypatch.setattr(session_read, "UPGRADES", {1: broken})
    refused(v1, "could not upgrade it from version 1 to 2 (KeyError: 'tokens')")
    monkeypatch.setattr(session_read, "UPGRADES", {})
    refused(v1, "no upgrade from version 1 to 2")
    monkeypatch.setattr(session_read, "UPGRADES", {1: lambda d: [d]})
    refused(v1, "upgrading from version 1 gave a list")


def test_current_version_has_no_pending_upgrades():
    assert VERSION == 6 and sorted(session_module.UPGRADES) == list(range(1, VERSION))


# ----------------------------------------------------------------------------------------------
# Saving: validated, atomic, never partial

def test_save_refuses_an_invalid_session_and_leaves_the_old_file(tmp_path):
    path = tmp_path / "lesson.json"
    save_session(demo_session(), path)
    before = path.read_bytes()
    bad = Session(DEMO_TOKENS, {"Q": DEMO_Q, "K": DEMO_K, "V": DEMO_V},
                  settings=Settings(heads=2))
    with pytest.raises(SessionError, match=r"^lesson\.json: settings\.heads is 2"):
        save_session(bad, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["lesson.json"]


@pytest.mark.parametrize("failing", ["replace", "fsync", "write"])
def test_failed_save_keeps_the_old_file_and_no_temporaries(tmp_path, monkeypatch, failing):
    path = tmp_path / "lesson.json"
    save_session(demo_session(), path)
    before = path.read_bytes()
    changed = Session(DEMO_TOKENS, {"Q": DEMO_Q, "K": DEMO_K, "V": DEMO_V}, title="changed")

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    if failing == "write":
        real_fdopen = os.fdopen

        class HalfWriter:
            def __init__(self, f):
                self.f = f

            def write(self, data):
                self.f.write(data[: len(data) // 2])
                self.f.flush()
                boom()

            def __getattr__(self, name):
                return getattr(self.f, name)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.f.close()

        monkeypatch.setattr(os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    else:
        monkeypatch.setattr(os, failing, boom)
    with pytest.raises(SessionError, match=r"^lesson\.json: could not be saved "
                                           r"\(No space left on device\)"):
        save_session(changed, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["lesson.json"]
    assert load_session(path) == demo_session()


def test_save_into_a_missing_folder_is_a_session_error(tmp_path):
    with pytest.raises(SessionError, match=r"^s\.json: could not be saved"):
        save_session(demo_session(), tmp_path / "no" / "such" / "s.json")


def test_save_refuses_a_file_too_large_to_load_again(tmp_path, monkeypatch):
    monkeypatch.setattr(session_write, "MAX_FILE_BYTES", 300)
    with pytest.raises(SessionError, match=r"^big\.json: the session would be \d+ bytes; "
                                           r"session files are limited to 300 bytes"):
        save_session(demo_session(), tmp_path / "big.json")
    assert not (tmp_path / "big.json").exists()


@pytest.mark.skipif(os.name != "posix", reason="permissions")
def test_save_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "s.json"
    save_session(demo_session(), path)
    os.chmod(path, 0o640)
    save_session(demo_session(), path)
    assert (os.stat(path).st_mode & 0o777) == 0o640


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_save_through_a_symlink_replaces_the_target(tmp_path):
    target = tmp_path / "real.json"
    save_session(demo_session(), target)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    changed = Session(DEMO_TOKENS, {"Q": DEMO_Q, "K": DEMO_K, "V": DEMO_V}, title="changed")
    save_session(changed, link)
    assert link.is_symlink()
    assert load_session(target).title == "changed"
    assert sorted(os.listdir(tmp_path)) == ["link.json", "real.json"]


# ----------------------------------------------------------------------------------------------
# Loading: files

def test_oversize_file_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)          # sparse: no disk space used

    def no_reading(*args, **kwargs):
        raise AssertionError("the file was opened")

    monkeypatch.setattr(session_read, "open", no_reading, raising=False)
    with pytest.raises(SessionError, match=r"^huge\.json: is 256\.0 MiB; session files are "
                                           r"limited to 256\.0 MiB"):
        load_session(path)


def test_file_that_grows_after_stat_is_still_capped(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    path.write_text(session_to_json(demo_session()), "utf-8")
    monkeypatch.setattr(session_read, "MAX_FILE_BYTES", 100)
    real_stat = os.stat

    class SmallStat:
        def __init__(self, st):
            self.st_mode, self.st_size = st.st_mode, 10

    monkeypatch.setattr(session_read.os, "stat", lambda p: SmallStat(real_stat(p)))
    with pytest.raises(SessionError, match=r"^s\.json: is larger than 100 bytes"):
        load_session(path)


def test_missing_folder_and_special_files(tmp_path):
    with pytest.raises(SessionError, match=r"^nope\.json: no such file"):
        load_session(tmp_path / "nope.json")
    with pytest.raises(SessionError, match=r"is a folder, not a session file"):
        load_session(tmp_path)
    with pytest.raises(SessionError, match=r"is not a usable file path"):
        load_session("bad\0name.json")
    with pytest.raises(SessionError, match=r"is not a usable file path"):
        load_session(12.5)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.json"
        os.mkfifo(fifo)
        with pytest.raises(SessionError, match=r"^pipe\.json: is not a regular file"):
            load_session(fifo)                  # refused, not blocking on an empty pipe


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(tmp_path):
    path = tmp_path / "locked.json"
    save_session(demo_session(), path)
    os.chmod(path, 0)
    with pytest.raises(SessionError, match=r"^locked\.json: cannot be read"):
        load_session(path)


def test_load_error_names_the_file(tmp_path):
    path = tmp_path / "demo.json"
    d = demo_dict()
    d["matrices"]["K"][2] = [1.0, 2.0]
    path.write_text(json.dumps(d), "utf-8")
    with pytest.raises(SessionError) as info:
        load_session(path)
    assert str(info.value) == "demo.json: matrices.K row 2 has 2 numbers but row 0 has 3"


# ----------------------------------------------------------------------------------------------
# Hostile input: only SessionError ever escapes

DEMO_BYTES = session_to_json(demo_session()).encode("utf-8")
SMALL_BYTES = session_to_json(Session(
    ("🙂", "x"), {"Q": [[1e-300, -0.0]] * 2, "K": [[5e-324, 1e6]] * 2, "V": [[1.0]] * 2},
    Settings(causal=True, temperature=0.05), layout={"state": "QUJD"}, title="t")).encode()
BASES = st.sampled_from([DEMO_BYTES, SMALL_BYTES])
FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def only_session_errors(data) -> None:
    try:
        result = session_from_json(data, where="fuzz.json")
    except SessionError as e:
        assert str(e).startswith("fuzz.json: ")
        assert "could not be read (" not in str(e), "an unforeseen error hit the safety net"
    else:
        assert isinstance(result, Session)
        validate_session(result)                # whatever loads is valid
        session_to_json(result)


@FUZZ
@given(BASES, st.data())
def test_fuzz_truncated(base, data):
    only_session_errors(base[: data.draw(st.integers(0, len(base)))])


@FUZZ
@given(BASES, st.data())
def test_fuzz_bit_flips(base, data):
    mutated = bytearray(base)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(mutated) - 1))
        mutated[i] ^= 1 << data.draw(st.integers(0, 7))
    only_session_errors(bytes(mutated))


@FUZZ
@given(BASES, st.data())
def test_fuzz_inserted_and_deleted_bytes(base, data):
    mutated = bytearray(base)
    i = data.draw(st.integers(0, len(mutated)))
    if data.draw(st.booleans()):
        snippet = data.draw(st.binary(min_size=1, max_size=20) | st.sampled_from(
            [b"[", b"]", b"{", b"}", b",", b'"', b"\\", b"\\u", b"NaN", b"1e999", b"-", b"\x00",
             b"\xff", b"\xe7\x8c", b"true", b"null"]))
        mutated[i:i] = snippet
    else:
        del mutated[i:i + data.draw(st.integers(1, 30))]
    only_session_errors(bytes(mutated))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 30, 10 ** 30)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=10,
)


def value_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from value_paths(child, path + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from value_paths(child, path + (i,))


@FUZZ
@given(BASES, st.data())
def test_fuzz_retyped_values(base, data):
    document = json.loads(base)
    paths = list(value_paths(document))
    path = data.draw(st.sampled_from(paths))
    replacement = data.draw(JSON_VALUES)
    if not path:
        document = replacement
    else:
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = replacement
    only_session_errors(json.dumps(document, ensure_ascii=data.draw(st.booleans())))


@FUZZ
@given(st.integers(1, 200_000), st.sampled_from(["[", "{\"a\":", "[{\"a\":"]), st.booleans())
def test_fuzz_deep_nesting(depth, opener, closed):
    closer = {"[": "]", "{\"a\":": "}", "[{\"a\":": "}]"}[opener]
    text = opener * depth + ("1" + closer * depth if closed else "")
    only_session_errors(text)
    only_session_errors(json.dumps({**json.loads(DEMO_BYTES), "layout": json.loads(
        "[" * min(depth, 500) + "]" * min(depth, 500))}))


@pytest.mark.parametrize("path, value", [
    ("settings.selected_row", 10 ** 99),
    ("settings.heads", -10 ** 99),
    ("version", 10 ** 99),
    ("tokens", ["x"] * 100_000),
    ("tokens.0", "猫" * 1_000_000),
    ("title", "x" * 5_000_000),
    ("matrices.Q", [[0.0] * 3] * 100_000),
    ("matrices.Q", [[0.0] * 100_000] * 4),
])
def test_huge_claimed_sizes_are_refused(path, value):
    with pytest.raises(SessionError):
        session_from_json(json.dumps(with_change(path, value)), where="demo.json")


@FUZZ
@given(st.binary(max_size=200))
def test_fuzz_random_bytes(data):
    only_session_errors(data)


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_files_on_disk(data):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "fuzz.json")
        with open(path, "wb") as f:
            f.write(DEMO_BYTES[: len(DEMO_BYTES) // 2] + data)
        try:
            load_session(path)
        except SessionError as e:
            assert str(e).startswith("fuzz.json: ")



def test_a_save_is_written_in_pieces_equal_to_the_whole_text_and_a_refused_one_leaves_nothing(tmp_path, monkeypatch):
    from explorer.core import atomic

    written = []
    real = atomic.atomic_write_bytes

    def spy(path, data):
        written.append(not isinstance(data, (bytes, bytearray)))
        return real(path, data)

    monkeypatch.setattr(session_write, "atomic_write_bytes", spy)
    from explorer.core.presets import random_session

    s = random_session(40, 8, seed=3)
    save_session(s, tmp_path / "s.json")
    assert written == [True]  # an iterable of pieces, not one string of the whole file
    assert (tmp_path / "s.json").read_text("utf-8") == session_to_json(s)
    monkeypatch.setattr(session_write, "MAX_FILE_BYTES", 2000)
    with pytest.raises(SessionError, match=r"the session would be \d+\.?\d* (bytes|KiB|MiB)"):
        save_session(s, tmp_path / "s.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]  # no temporary left behind
    assert (tmp_path / "s.json").read_text("utf-8") == session_to_json(s)  # the old file untouched
