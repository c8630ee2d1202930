"""Session format version 6: the real model's head a session was made from (``model_head``) goes into the
file, JSON and binary, and comes back exactly; a hostile block is refused with a message naming the field;
files of versions 1–5 load as before, with no model_head."""
from __future__ import annotations

import io
import json
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from explorer.core.errors import SessionError
from explorer.core.session import (MAX_DIM, MAX_VOCAB, ModelHead, Session, Settings, load_session, save_session,
                                   session_from_json, session_to_json, validate_session)

DATA = Path(__file__).resolve().parent.parent / "data"
HEAD = ModelHead(folder="/home/me/models/tiny-induction", name="tiny-induction", layer=1, head=0, hidden=64,
                 learned_positions=False, ids=(5, 7, 9, 5))


def head_session(**changes) -> Session:
    """Four tokens in direct mode, made from layer 1 head 0 (from 0) of a 64-wide model."""
    return Session(tokens=("the", "·cat", "·sat", "·the"),
                   matrices={"Q": [[1, 0], [0, 1], [1, 1], [1, 0]], "K": [[1, 0], [0, 1], [1, 1], [1, 0]],
                             "V": [[0.5, 0], [0, 0.5], [1, 1], [2, 0]]},
                   settings=Settings(causal=True, selected_row=3), title="layer 2 head 1 of tiny-induction",
                   model_head=replace(HEAD, **changes))


# ----- round trips ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".json", ".aesz"])
def test_a_model_head_round_trips_through_both_forms(tmp_path, suffix):
    s = head_session(learned_positions=True, folder="/models/gpt2 small/snapshots/ab12")
    save_session(s, tmp_path / f"head{suffix}")
    loaded = load_session(tmp_path / f"head{suffix}")
    assert loaded == s
    assert loaded.model_head == ModelHead(folder="/models/gpt2 small/snapshots/ab12", name="tiny-induction",
                                          layer=1, head=0, hidden=64, learned_positions=True, ids=(5, 7, 9, 5))
    assert all(type(i) is int for i in loaded.model_head.ids)


def test_the_binary_form_carries_the_block_in_its_description(tmp_path):
    save_session(head_session(), tmp_path / "head.aesz")
    with zipfile.ZipFile(tmp_path / "head.aesz") as archive:
        description = json.loads(archive.read("session.json"))
    assert description["model_head"] == {"folder": "/home/me/models/tiny-induction", "name": "tiny-induction",
                                         "layer": 1, "head": 0, "hidden": 64, "learned_positions": False,
                                         "ids": [5, 7, 9, 5]}
    assert description["matrices"] == {"Q": "Q.npy", "K": "K.npy", "V": "V.npy"}


def test_the_file_holds_no_logits_and_writes_the_block_after_the_settings():
    text = session_to_json(head_session())
    data = json.loads(text)
    assert list(data) == ["format", "version", "title", "tokens", "settings", "model_head", "matrices", "layout"]
    assert set(data["model_head"]) == {"folder", "name", "layer", "head", "hidden", "learned_positions", "ids"}
    assert '  "ids": [5, 7, 9, 5]\n' in text  # the ids on one line


def test_a_session_of_no_model_head_writes_none():
    s = replace(head_session(), model_head=None)
    assert "model_head" not in session_to_json(s) and session_from_json(session_to_json(s)).model_head is None


def test_the_frozen_v6_head_file_loads_exactly_and_is_what_save_writes():
    s = load_session(DATA / "session_v6_model_head.json")
    assert s == head_session() and s.model_head == HEAD
    assert session_to_json(s) == (DATA / "session_v6_model_head.json").read_text("utf-8")


def test_learned_positions_may_be_left_out():
    data = json.loads(session_to_json(head_session(learned_positions=True)))
    del data["model_head"]["learned_positions"]
    assert session_from_json(json.dumps(data)).model_head.learned_positions is False


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("session_v[1-5]*.json")))
def test_every_frozen_file_of_versions_1_to_5_loads_without_a_model_head(name):
    assert json.loads((DATA / name).read_text("utf-8"))["version"] <= 5
    assert load_session(DATA / name).model_head is None


def test_numpy_integers_are_taken_as_plain_ints():
    s = validate_session(head_session(layer=np.int64(1), ids=np.array([5, 7, 9, 5]).tolist()))
    assert type(s.model_head.layer) is int and s.model_head.ids == (5, 7, 9, 5)
    s = validate_session(head_session(ids=tuple(np.array([5, 7, 9, 5]))))
    assert all(type(i) is int for i in s.model_head.ids)


# ----- hostile blocks ---------------------------------------------------------------------------------------

def with_head(**changes):
    """The file of head_session() as a dict, model_head's fields changed (a value of ... removes the field)."""
    data = json.loads(session_to_json(head_session()))
    for key, value in changes.items():
        if value is ...:
            del data["model_head"][key]
        else:
            data["model_head"][key] = value
    return data


HOSTILE = [
    (dict(with_head(), model_head=None), "model_head must be an object, not null"),
    (dict(with_head(), model_head=[1, 2]), "model_head must be an object, not a list"),
    (dict(with_head(), model_head="tiny-induction"), "model_head must be an object, not a string"),
    (with_head(layers=2), "model_head: unknown field 'layers' (did you mean 'layer'?)"),
    (with_head(logits=[0.5, 0.25]), "model_head: unknown field 'logits'"),
    (with_head(ids=...), "model_head: missing field 'ids'"),
    (with_head(folder=...), "model_head: missing field 'folder'"),
    (with_head(hidden=...), "model_head: missing field 'hidden'"),
    (with_head(folder=5), "model_head.folder must be a string, not a number (5)"),
    (with_head(folder=""), "model_head.folder is empty"),
    (with_head(folder="models/tiny-induction"), "model_head.folder 'models/tiny-induction' is not an absolute path"),
    (with_head(folder="/models/a\nb"), "model_head.folder contains a control character (U+000A"),
    (with_head(folder="/models/\ud800"), "model_head.folder contains an unpaired surrogate"),
    (with_head(folder="/" + "x" * 5000), "model_head.folder has 5001 characters; the most is 4096"),
    (with_head(name=""), "model_head.name is empty"),
    (with_head(name=None), "model_head.name must be a string, not null"),
    (with_head(name="x" * 201), "model_head.name has 201 characters; the most is 200"),
    (with_head(layer=-1), "model_head.layer is -1; it must be 0..999 (counted from 0"),
    (with_head(layer=1000), "model_head.layer is 1000; it must be 0..999"),
    (with_head(layer=1.0), "model_head.layer must be an integer, not a number (1.0)"),
    (with_head(layer=True), "model_head.layer must be an integer, not a boolean"),
    (with_head(layer=10 ** 40), "model_head.layer is a very large integer; it must be 0..999"),
    (with_head(head="0"), "model_head.head must be an integer, not a string"),
    (with_head(head=MAX_DIM), f"model_head.head is {MAX_DIM}; it must be 0..{MAX_DIM - 1}"),
    (with_head(hidden=0), f"model_head.hidden is 0; it must be 1..{MAX_DIM}"),
    (with_head(hidden=MAX_DIM + 1), f"model_head.hidden is {MAX_DIM + 1}; it must be 1..{MAX_DIM}"),
    (with_head(learned_positions="yes"), "model_head.learned_positions must be true or false, not a string"),
    (with_head(learned_positions=0), "model_head.learned_positions must be true or false, not a number (0)"),
    (with_head(ids="5 7 9 5"), "model_head.ids must be a list of token ids, not a string"),
    (with_head(ids={"0": 5}), "model_head.ids must be a list of token ids, not an object"),
    (with_head(ids=[5, 7, 9]), "model_head.ids has 3 ids but there are 4 tokens (one token id per token"),
    (with_head(ids=[5, 7, 9, 5, 1]), "model_head.ids has 5 ids but there are 4 tokens"),
    (with_head(ids=[]), "model_head.ids has 0 ids but there are 4 tokens"),
    (with_head(ids=[0] * 9000), "model_head.ids has 9,000 ids but there are 4 tokens"),
    (with_head(ids=[5, -2, 9, 5]), f"model_head.ids[1] is -2; it must be 0..{MAX_VOCAB - 1} (a token id)"),
    (with_head(ids=[5, MAX_VOCAB, 9, 5]), f"model_head.ids[1] is {MAX_VOCAB}; it must be 0..{MAX_VOCAB - 1}"),
    (with_head(ids=[5, 7, 10 ** 40, 5]), "model_head.ids[2] is a very large integer"),
    (with_head(ids=[5, 7, 9.0, 5]), "model_head.ids[2] must be an integer, not a number (9.0)"),
    (with_head(ids=[5, 7, 9, True]), "model_head.ids[3] must be an integer, not a boolean"),
    (with_head(ids=[5, 7, 9, None]), "model_head.ids[3] must be an integer, not null"),
    (with_head(ids=[[5], 7, 9, 5]), "model_head.ids[0] must be an integer, not a list"),
    (with_head(ids=["5", 7, 9, 5]), "model_head.ids[0] must be an integer, not a string"),
]


@pytest.mark.parametrize("data, said", HOSTILE, ids=[said[:48] for _, said in HOSTILE])
def test_a_hostile_model_head_is_refused_naming_the_field(data, said):
    with pytest.raises(SessionError) as caught:
        session_from_json(json.dumps(data, ensure_ascii=False), where="head.json")
    assert str(caught.value).startswith("head.json: ") and said in str(caught.value), str(caught.value)


def binary_with(description: dict) -> bytes:
    """A binary session whose session.json is ``description`` (its matrices named as members)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("session.json", json.dumps(description, ensure_ascii=False))
        for name, rows in json.loads(session_to_json(head_session()))["matrices"].items():
            member = io.BytesIO()
            np.save(member, np.array(rows, dtype=np.float64))
            archive.writestr(f"{name}.npy", member.getvalue())
    return out.getvalue()


@pytest.mark.parametrize("data, said", [HOSTILE[i] for i in (0, 4, 10, 17, 30, 34, 37)])
def test_a_hostile_model_head_in_a_binary_session_is_refused_the_same_way(tmp_path, data, said):
    data = dict(data, matrices={"Q": "Q.npy", "K": "K.npy", "V": "V.npy"})
    (tmp_path / "head.aesz").write_bytes(binary_with(data))
    with pytest.raises(SessionError) as caught:
        load_session(tmp_path / "head.aesz")
    assert str(caught.value).startswith("head.aesz: ") and said in str(caught.value), str(caught.value)
    (tmp_path / "good.aesz").write_bytes(binary_with(dict(with_head(), matrices=data["matrices"])))
    assert load_session(tmp_path / "good.aesz") == head_session()  # the same archive with a sound block loads


def test_a_field_twice_in_the_block_is_refused_where_it_is():
    text = session_to_json(head_session()).replace('"layer": 1,', '"layer": 1,\n  "layer": 7,')
    with pytest.raises(SessionError, match="the field 'layer' appears twice in one object"):
        session_from_json(text, where="head.json")


def test_saving_refuses_a_model_head_that_does_not_fit_and_names_it(tmp_path):
    with pytest.raises(SessionError, match=r"head.json: model_head.ids has 2 ids but there are 4 tokens"):
        save_session(head_session(ids=(1, 2)), tmp_path / "head.json")
    with pytest.raises(SessionError, match=r"model_head must be a ModelHead, not an object"):
        validate_session(replace(head_session(), model_head={"folder": "/x"}))
    assert not (tmp_path / "head.json").exists()
