"""Session format version 3: frozen files of every version keep loading to the values written here
by hand; fields may be left out and take their defaults; what cannot be a session is refused
before the JSON parser runs; json's messages read once ("starting at line", not "at at line")."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from explorer.core import session_json, session_prescan
from explorer.core.errors import SessionError
from explorer.core.session import Session, Settings, load_session, session_from_json, session_to_json

DATA = Path(__file__).resolve().parent.parent / "data"
DEMO_TOKENS = ("猫", "追", "红色", "激光点")
DEMO_Q = [[0.5, 1.5, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.8], [0.3, 0.0, 2.0]]
DEMO_K = [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [2.0, 0.0, 1.0]]
DEMO_V = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.3, 0.8]]
MINIMAL = json.loads((DATA / "session_v3_minimal.json").read_text("utf-8"))


def assert_matrix(array: np.ndarray, expected: list[list[float]]) -> None:
    """Equal bit for bit to ``expected`` written as float64, read-only."""
    assert array.dtype == np.float64 and not array.flags.writeable
    assert array.tobytes() == np.array(expected, dtype=np.float64).tobytes()


def refused(data, *expected: str) -> str:
    """``data`` (a dict, str or bytes) is refused with a message naming demo.json and each part."""
    text = json.dumps(data, ensure_ascii=False) if isinstance(data, dict) else data
    with pytest.raises(SessionError) as info:
        session_from_json(text, where="demo.json")
    message = str(info.value)
    assert message.startswith("demo.json: "), message
    for part in expected:
        assert part in message, message
    return message


# ----- frozen files of every version ------------------------------------------------------------

def test_frozen_v2_demo_loads_to_the_demo():
    s = load_session(DATA / "session_v2.json")
    assert s.tokens == DEMO_TOKENS and s.title == "Demo: 猫 追 红色 激光点" and s.layout is None
    assert s.settings == Settings()
    for name, expected in (("Q", DEMO_Q), ("K", DEMO_K), ("V", DEMO_V)):
        assert_matrix(s.matrices[name], expected)


def test_frozen_v2_projected_rope_file_loads_every_setting():
    s = load_session(DATA / "session_v2_projected_rope.json")
    assert s.title == "Projected, with RoPE"
    assert s.tokens == ("the", "cat", "sat")
    assert s.settings == Settings(scale_mode="custom", scale=0.5, temperature=2.0, causal=True,
                                  heads=2, selected_row=2, selected_head=1, source="projected",
                                  positions="sinusoidal", rope=True, rope_base=500.0,
                                  rope_style="interleaved", rope_offset=3)
    assert dict(s.layout) == {"state": "AAAA/w==", "geometry": "AdnQyw=="}
    assert_matrix(s.matrices["Q"], [[1, 0], [0, 1], [0.5, -0.5]])
    assert_matrix(s.matrices["K"], [[0, 1], [1, 0], [-0.25, 0.75]])
    assert_matrix(s.matrices["V"], [[1, 2], [3, 4], [5, 6]])
    assert_matrix(s.matrices["X"], [[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6], [0.7, -0.8, 0.9]])
    assert_matrix(s.matrices["Wq"], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    assert_matrix(s.matrices["Wk"], [[0, 0, 1], [0, 1, 0], [1, 0, 0], [-1, 0, 1]])
    assert_matrix(s.matrices["Wv"], [[2, 0, 0], [0, 0, -2]])
    assert_matrix(s.matrices["Wo"], [[1, 0], [0, 1], [1, -1]])


def test_frozen_minimal_v3_file_loads_with_every_default():
    s = load_session(DATA / "session_v3_minimal.json")
    assert s.tokens == DEMO_TOKENS and s.title == "" and s.layout is None
    assert s.settings == Settings(scale_mode="inv_sqrt_d", scale=1.0, temperature=1.0, causal=False,
                                  heads=1, selected_row=0, selected_head=0, source="direct",
                                  positions="none", rope=False, rope_base=10000.0,
                                  rope_style="half", rope_offset=0)
    assert set(s.matrices) == {"Q", "K", "V"}
    for name, expected in (("Q", DEMO_Q), ("K", DEMO_K), ("V", DEMO_V)):
        assert_matrix(s.matrices[name], expected)


def test_a_loaded_minimal_file_saves_whole():
    """Left-out fields are written out on saving: the saved file has them all, as the current version
    (a self-attention session has no query_tokens to write, a session of no model's head no model_head)."""
    saved = json.loads(session_to_json(load_session(DATA / "session_v3_minimal.json")))
    assert "model_head" not in saved
    assert saved["version"] == 6 and saved["title"] == "" and saved["layout"] is None
    assert saved["settings"]["rope_style"] == "half" and len(saved["settings"]) == 21
    assert saved["settings"]["kv_heads"] == 0 and "query_tokens" not in saved


# ----- fields left out take their defaults --------------------------------------------------------

SOME_SETTINGS = {"scale_mode": "custom", "scale": 0.25, "temperature": 3, "causal": True,
                 "heads": 3, "selected_row": 3, "selected_head": 2, "rope_base": 200,
                 "rope_style": "interleaved", "rope_offset": 7}


@pytest.mark.parametrize("names", [names for k in (1, 2, 5, len(SOME_SETTINGS))
                                   for names in itertools.islice(
                                       itertools.combinations(SOME_SETTINGS, k), 0, None, 7)])
def test_any_subset_of_settings_loads_and_the_rest_take_their_defaults(names):
    given = {name: SOME_SETTINGS[name] for name in names}
    if "selected_head" in given:
        given["heads"] = 3
    s = session_from_json(json.dumps(dict(MINIMAL, settings=given)))
    assert s.settings == Settings(**given)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_files_of_every_version_may_leave_fields_out(version):
    """Forgiving everywhere: an old file with a field left out was refused, now it loads."""
    settings = {"causal": True} if version == 1 else {"causal": True, "rope_offset": 5}
    s = session_from_json(json.dumps(dict(MINIMAL, version=version, settings=settings)))
    assert s.settings == Settings(causal=True, rope_offset=0 if version == 1 else 5)
    s = session_from_json(json.dumps(dict(MINIMAL, version=version)))   # no settings at all
    assert s.settings == Settings() and s.title == "" and s.layout is None


@pytest.mark.parametrize("change, expected", [
    ({"setings": {}}, "unknown field 'setings' (did you mean 'settings'?)"),
    ({"tokenz": ["a"]}, "unknown field 'tokenz' (did you mean 'tokens'?)"),
    ({"settings": {"temprature": 2}}, "settings: unknown field 'temprature' (did you mean "
                                      "'temperature'?)"),
    ({"settings": {"rope_base": 500, "rope_bass": 1}}, "did you mean 'rope_base'?"),
    ({"title": None}, "title must be a string, not null"),
    ({"settings": None}, "settings must be an object, not null"),
])
def test_fields_left_out_are_fine_but_unknown_and_wrong_ones_are_not(change, expected):
    refused(dict(MINIMAL, **change), expected)


@pytest.mark.parametrize("left_out", ["format", "version", "tokens", "matrices"])
def test_the_four_fields_a_session_needs(left_out):
    data = {k: v for k, v in MINIMAL.items() if k != left_out}
    refused(data, {"format": 'no "format" field', "version": 'no "version" field'}.get(
        left_out, f"missing field {left_out!r}"))


# ----- refused before parsing ---------------------------------------------------------------------

@pytest.fixture
def json_never_parses(monkeypatch):
    """Make json.loads fail the test: what is refused here must be refused from the raw bytes."""
    def loads(*args, **kwargs):
        raise AssertionError("json.loads was called")

    monkeypatch.setattr(session_json.json, "loads", loads)


def array_of_arrays(rows: int, cols: int) -> bytes:
    row = "[" + ",".join(repr(x) for x in np.linspace(-1, 1, cols).tolist()) + "]"
    return ("[" + ",".join([row] * rows) + "]").encode()


@pytest.mark.parametrize("data, expected", [
    (array_of_arrays(400, 512), "is not a session file (it holds a list, not an object)"),
    (b"\xef\xbb\xbf \n\t[1, 2]", "is not a session file (it holds a list, not an object)"),
    (b"[" * 1000 + b"]" * 1000, "is nested too deeply to be a session file (1,000 levels; a "
                                "session nests 4)"),
    (b'{"title": ' + b"[" * 65 + b"]" * 65 + b"}", "is nested too deeply to be a session file (66 levels"),
])
def test_what_cannot_be_a_session_is_refused_unparsed(json_never_parses, data, expected):
    refused(data, expected)


def test_brackets_inside_strings_are_text_not_nesting():
    s = session_from_json(json.dumps(dict(MINIMAL, title="[{" * 50, tokens=["]"] * 4)))
    assert s.title == "[{" * 50 and s.tokens == ("]",) * 4


def test_text_over_the_file_limit_is_refused_unparsed(json_never_parses, monkeypatch):
    monkeypatch.setattr(session_prescan, "MAX_FILE_BYTES", 100)
    refused("{" + " " * 200 + "}", "is 202 bytes; session files are limited to 100 bytes")


def test_a_session_nesting_less_than_the_limit_gets_the_validators_message():
    q = json.dumps(MINIMAL).replace("[[0.5, 1.5, 0]", "[[[[[[[0.5]]]]], 1.5, 0]", 1)
    refused(q, "matrices.Q row 0 col 0 is a list; it must be a number")


# ----- json's messages, read once -----------------------------------------------------------------

def test_a_truncated_string_says_at_once():
    text = session_to_json(Session(DEMO_TOKENS, {"Q": DEMO_Q, "K": DEMO_K, "V": DEMO_V},
                                   title="a title cut short"))
    cut = text[: text.index("cut short")]
    message = refused(cut, "is not valid JSON: Unterminated string starting at line 4, column 11",
                      "is it truncated?")
    assert " at at " not in message


def test_a_control_character_in_a_string_says_at_once():
    message = refused('{"format": "a\tb"}', "Invalid control character at line 1, column 14")
    assert " at at " not in message
