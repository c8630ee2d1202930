"""Session format version 4: query_tokens (cross-attention), matrices.X_src and settings.kv_heads —
frozen files, round trips, old files unchanged, and every bad input refused with a clear message."""
import json
from pathlib import Path

import numpy as np
import pytest

from explorer.core.errors import SessionError
from explorer.core.presets import grouped_query_session, translation_session
from explorer.core.session import (Session, Settings, load_session, save_session, session_from_json,
                                   session_to_json, validate_session)
from tests.core.format_versions import as_version_4

DATA = Path(__file__).resolve().parent.parent / "data"
TRANSLATION = json.loads((DATA / "session_v4_translation.json").read_text("utf-8"))


def refused(data, *expected):
    """``data`` is refused with a message naming demo.json and holding each expected part."""
    with pytest.raises(SessionError) as info:
        session_from_json(json.dumps(data, ensure_ascii=False), where="demo.json")
    message = str(info.value)
    assert message.startswith("demo.json: "), message
    for part in expected:
        assert part in message, message
    return message


GONE = object()   # a field left out


def changed(data=TRANSLATION, **fields):
    """A copy of ``data`` with each field (``a__b__2`` = data["a"]["b"][2]) set to a value, or left out."""
    out = json.loads(json.dumps(data))
    for path, value in fields.items():
        *parents, last = (int(key) if key.isdigit() else key for key in path.split("__"))
        target = out
        for key in parents:
            target = target[key]
        if value is GONE:
            del target[last]
        else:
            target[last] = value
    return out


# ----- frozen files -----------------------------------------------------------------------------

def test_frozen_translation_file_loads_exactly_and_is_what_save_writes_but_its_version_5_settings():
    s = load_session(DATA / "session_v4_translation.json")
    assert s.cross and s.query_tokens == ("The", "cat", "chases", "the", "red", "laser", "dot")
    assert s.tokens == ("猫", "追", "红色", "激光点")
    assert s.settings == Settings(selected_row=2)
    assert {n: m.shape for n, m in s.matrices.items()} == {"Q": (7, 4), "K": (4, 4), "V": (4, 4)}
    assert s.matrices["Q"][2].tolist() == [0.3, 3.0, 0.0, 0.3]
    assert s.matrices["K"][3].tolist() == [0.0, 0.0, 0.5, 2.0]
    assert as_version_4(session_to_json(s)) == (DATA / "session_v4_translation.json").read_text("utf-8")


def test_frozen_cross_projected_file_loads_exactly():
    path = DATA / "session_v4_cross_projected_mqa.json"
    s = load_session(path)
    assert (s.tokens, s.query_tokens) == (("猫", "追", "激光点"), ("cat", "laser dot"))
    assert s.settings == Settings(source="projected", positions="sinusoidal", heads=2, kv_heads=1, rope=True,
                                  rope_offset=3, selected_row=1, selected_head=1)
    shapes = {n: m.shape for n, m in s.matrices.items()}
    assert shapes == {"Q": (2, 4), "K": (3, 2), "V": (3, 1), "X": (2, 2), "X_src": (3, 2), "Wq": (4, 2),
                      "Wk": (2, 2), "Wv": (1, 2), "Wo": (3, 2)}
    assert s.matrices["X_src"].tolist() == [[1.0, 1.0], [0.0, 2.0], [-1.0, 0.5]]
    assert as_version_4(session_to_json(s)) == path.read_text("utf-8")


@pytest.mark.parametrize("name", ["session_v1.json", "session_v2.json", "session_v2_projected_rope.json",
                                  "session_v3.json", "session_v3_minimal.json"])
def test_older_files_load_as_self_attention_with_a_kv_head_per_head(name):
    s = load_session(DATA / name)
    assert s.query_tokens is None and not s.cross and s.settings.kv_heads == 0
    assert "X_src" not in s.matrices


# ----- round trips ------------------------------------------------------------------------------

def cross_projected():
    rng = np.random.default_rng(0)
    mats = {"Q": rng.standard_normal((2, 8)), "K": rng.standard_normal((5, 4)), "V": rng.standard_normal((5, 2)),
            "X": rng.standard_normal((2, 3)), "X_src": rng.standard_normal((5, 3)),
            "Wq": rng.standard_normal((8, 3)), "Wk": rng.standard_normal((4, 3)), "Wv": rng.standard_normal((2, 3)),
            "Wo": rng.standard_normal((3, 4))}   # concat: 4 heads · (2 / 2) = 4 columns
    return Session(("a", "b", "c", "d", "e"), mats, Settings(source="projected", heads=4, kv_heads=2),
                   title="cross + projected + GQA", query_tokens=["q0", "q1"])


@pytest.mark.parametrize("make", [translation_session, grouped_query_session, cross_projected])
def test_save_then_load_gives_the_same_session(tmp_path, make):
    s = make()
    save_session(s, tmp_path / "s.json")
    loaded = load_session(tmp_path / "s.json")
    assert loaded == s and loaded.query_tokens == s.query_tokens
    assert isinstance(loaded.query_tokens, (tuple, type(None)))


def test_query_tokens_are_part_of_equality_and_positional_order_still_works():
    s = translation_session()
    assert Session(s.tokens, s.matrices, s.settings, s.layout, s.title) != s     # the queries count
    assert Session(s.tokens, s.matrices, s.settings, s.layout, s.title, s.query_tokens) == s
    assert validate_session(s).query_tokens == s.query_tokens


def test_a_self_attention_file_has_no_query_tokens_field():
    assert "query_tokens" not in json.loads(session_to_json(grouped_query_session()))


# ----- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("data, expected", [
    (changed(matrices__Q=[[1.0, 0, 0, 0]] * 6),
     ["matrices.Q has 6 rows but there are 7 query tokens (query_tokens: one row per query)"]),
    (changed(matrices__K=[[1.0, 0, 0, 0]] * 7),
     ["matrices.K has 7 rows but there are 4 tokens (tokens: one row per key and value)"]),
    (changed(matrices__V=[[1.0, 0, 0, 0]] * 3), ["matrices.V has 3 rows but there are 4 tokens (tokens"]),
    (changed(query_tokens=GONE), ["matrices.Q has 7 rows but there are 4 tokens"]),
    (changed(query_tokens=[]), ["query_tokens is empty; leave it out for self-attention"]),
    (changed(query_tokens="The cat"), ["query_tokens must be a list of strings, not a string"]),
    (changed(query_tokens=None), ["query_tokens must be a list of strings, not null"]),
    (changed(query_tokens__2=""), ["query_tokens[2] is empty"]),
    (changed(settings__causal=True), ["settings.causal cannot be on in a cross-attention session",
                                      "decoder cross-attention has no causal mask"]),
    (changed(settings__selected_row=7), ["settings.selected_row is 7; with 7 query tokens it must lie in 0..6"]),
    (changed(settings__heads=4, settings__kv_heads=3),
     ["settings.kv_heads is 3, which does not divide heads 4", "one of 1, 2, 4)"]),
    (changed(settings__heads=2, settings__kv_heads=1),
     ["settings.kv_heads is 1, but the K width is 4: 2 heads of d_h = 2", "need kv_heads·d_h = 2"]),
    (changed(settings__kv_heads=-1), ["settings.kv_heads is -1; it must be at least 0"]),
    (changed(settings__kv_heads=1.5), ["settings.kv_heads must be an integer"]),
])
def test_each_bad_input_is_refused_with_its_place(data, expected):
    refused(data, *expected)


def test_version_3_files_upgrade_unchanged():
    """UPGRADES[3] changes nothing: every field of version 4 is optional with the old meaning as default."""
    v3 = changed(version=3, settings__kv_heads=GONE)
    assert session_from_json(json.dumps(v3)) == translation_session()


def test_x_src_belongs_to_projected_cross_sessions_only():
    s = cross_projected()
    data = json.loads(session_to_json(s))
    refused(changed(data, matrices__X_src=GONE), "a projected cross-attention session needs X_src",
            "one row per token")
    refused(changed(data, query_tokens=GONE), "X_src (the keys' token vectors) belongs to a cross-attention "
                                              "session, which has query_tokens")
    refused(changed(data, matrices__X_src=[[0.0] * 3] * 2),
            "matrices.X_src has 2 rows but there are 5 tokens (tokens: one row per key and value)")
    refused(changed(data, matrices__X=[[0.0] * 3] * 5),
            "matrices.X has 5 rows but there are 2 query tokens (query_tokens")
    refused(changed(data, matrices__X_src=[[0.0] * 2] * 5),
            "matrices.X_src has 2 columns but matrices.X has 3 columns (both are the token-vector width, D)")
    refused(changed(data, matrices__Wo=[[0.0] * 2] * 3), "but Wo has 2 columns")
    refused(changed(data, matrices__Wk=[[0.0] * 3] * 6), "the projected K width (rows of Wk) is 6")


def test_a_grouped_session_checks_k_against_q_and_v_against_the_kv_heads():
    data = json.loads(session_to_json(grouped_query_session()))
    refused(changed(data, settings__kv_heads=4), "the K width is 4", "kv_heads·d_h = 8")
    refused(changed(data, settings__kv_heads=0), "matrices.K has 4 columns but matrices.Q has 16 columns "
                                                 "(both are the Q/K width, d_k)")
    refused(changed(data, settings__kv_heads=3), "kv_heads is 3, which does not divide heads 8",
            "one of 1, 2, 4, 8)")
    refused(changed(data, matrices__V=[[0.0] * 3] * 6), "kv_heads is 2, which does not divide the V width 3")


def test_saving_refuses_an_invalid_cross_session(tmp_path):
    bad = Session(translation_session().tokens, translation_session().matrices, Settings(causal=True),
                  query_tokens=translation_session().query_tokens)
    with pytest.raises(SessionError, match=r"^bad\.json: settings\.causal cannot be on in a cross"):
        save_session(bad, tmp_path / "bad.json")
    assert not (tmp_path / "bad.json").exists()
