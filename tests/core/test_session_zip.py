"""The binary session form (.aesz): the same session bit for bit, every check of the JSON form, and
hostile archives refused before anything large is allocated (issue 18)."""
from __future__ import annotations

import dataclasses
import io
import json
import zipfile

import numpy as np
import pytest

from explorer.core import presets
from explorer.core.errors import SessionError
from explorer.core.session import load_session, save_session, session_to_json
from explorer.core.session_zip import DESCRIPTION, MAX_MEMBERS

SESSIONS = [presets.demo_session, lambda: presets.random_session(33, 8, seed=3),
            *(p for name, p in presets.PRESETS.items() if name != "demo")]


@pytest.mark.parametrize("make", SESSIONS)
def test_round_trip_is_bit_for_bit_and_says_the_same_as_json(tmp_path, make):
    session = make()
    save_session(session, tmp_path / "s.aesz")
    save_session(session, tmp_path / "s.json")
    back = load_session(tmp_path / "s.aesz")
    assert back == session == load_session(tmp_path / "s.json")
    assert session_to_json(back) == session_to_json(session)
    for array in back.matrices.values():
        assert array.dtype == np.float64 and array.flags.c_contiguous and not array.flags.writeable


def test_the_archive_is_the_json_description_and_one_npy_per_matrix(tmp_path):
    session = presets.random_session(40, 8, seed=1)
    save_session(session, tmp_path / "s.aesz")
    with zipfile.ZipFile(tmp_path / "s.aesz") as archive:
        names = archive.namelist()
        description = json.loads(archive.read(DESCRIPTION))
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
        q = np.load(io.BytesIO(archive.read("Q.npy")), allow_pickle=False)
    assert names[0] == DESCRIPTION and sorted(names[1:]) == sorted(f"{n}.npy" for n in session.matrices)
    assert description["matrices"] == {n: f"{n}.npy" for n in session.matrices}
    assert description["tokens"] == list(session.tokens)
    np.testing.assert_array_equal(q, session.matrices["Q"])


def test_a_renamed_binary_session_still_opens_and_json_named_aesz_too(tmp_path):
    session = presets.demo_session()
    save_session(session, tmp_path / "s.aesz")
    (tmp_path / "s.aesz").rename(tmp_path / "renamed.json")
    assert load_session(tmp_path / "renamed.json") == session  # the content decides, not the name
    save_session(session, tmp_path / "t.json")
    (tmp_path / "t.json").rename(tmp_path / "t.aesz")
    assert load_session(tmp_path / "t.aesz") == session


def test_an_invalid_session_is_refused_before_the_file_is_touched(tmp_path):
    path = tmp_path / "s.aesz"
    save_session(presets.demo_session(), path)
    before = path.read_bytes()
    bad = dataclasses.replace(presets.demo_session(), tokens=("a",))
    with pytest.raises(SessionError, match="s.aesz"):
        save_session(bad, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.aesz"]  # no temporary left behind


def archive(tmp_path, members, name="bad.aesz"):
    """A zip with ``members`` {name: bytes}; returns its path."""
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        for member, data in members.items():
            z.writestr(member, data)
    return path


def npy(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=array.dtype.hasobject)
    return buffer.getvalue()


def demo_members(**replace):
    """The demo's archive members, some replaced (bytes) or removed (None)."""
    session = presets.demo_session()
    text = json.loads(session_to_json(session))
    text["matrices"] = {n: f"{n}.npy" for n in session.matrices}
    members = {DESCRIPTION: json.dumps(text).encode()}
    members.update({f"{n}.npy": npy(np.asarray(a)) for n, a in session.matrices.items()})
    for key, value in replace.items():
        key = DESCRIPTION if key == "description" else f"{key}.npy"
        if value is None:
            members.pop(key)
        else:
            members[key] = value
    return members


def description_with(**fields):
    text = json.loads(demo_members()[DESCRIPTION])
    text.update(fields)
    return json.dumps(text).encode()


HOSTILE = [
    (dict(description=None), "has no session.json"),
    (dict(Q=None), "matrices.Q names 'Q.npy', which is not an .npy member"),
    (dict(Q=npy(np.array([[1, None]], dtype=object))), "pickl|Python objects"),
    (dict(Q=b"\x80\x04K\x01."), "pickle"),
    (dict(Q=npy(np.zeros((4, 3), dtype=bool))), r"bad.aesz\[Q.npy\]: holds booleans"),
    (dict(Q=npy(np.zeros((4, 3), dtype=np.complex128))), "complex"),
    (dict(Q=npy(np.zeros((4, 3, 2)))), "3-D"),
    (dict(Q=npy(np.zeros((4, 3)))[:-8]), "truncated"),
    (dict(Q=npy(np.full((4, 3), np.nan))), "matrices.Q row 0 col 0 is nan; values must be finite"),
    (dict(Q=npy(np.zeros((5, 3)))), "matrices.Q"),
    (dict(description=description_with(matrices={"Q": [[1.0]], "K": "K.npy", "V": "V.npy"})),
     "matrices.Q must name a .npy member of the archive, not a list"),
    (dict(description=description_with(version=99)), "version"),
    (dict(description=description_with(colour=1)), "unknown field"),
    (dict(description=b"{" * 100_000), "nested too deeply|not valid JSON|not a session"),
]


@pytest.mark.parametrize("replace, message", HOSTILE)
def test_hostile_archives_are_refused_with_a_message_naming_the_file(tmp_path, replace, message):
    path = archive(tmp_path, demo_members(**replace))
    with pytest.raises(SessionError, match=message) as error:
        load_session(path)
    assert str(error.value).startswith("bad.aesz")


def test_whole_numbers_read_as_float64_as_in_json(tmp_path):
    session = presets.demo_session()
    q = np.round(np.asarray(session.matrices["Q"]) * 10).astype(np.int32)
    back = load_session(archive(tmp_path, demo_members(Q=npy(q))))
    assert back.matrices["Q"].dtype == np.float64
    np.testing.assert_array_equal(back.matrices["Q"], q)


def test_a_header_claiming_a_huge_matrix_is_refused_before_allocating(tmp_path):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (2 ** 20, 2 ** 20)})
    path = archive(tmp_path, demo_members(Q=header.getvalue() + b"\0" * 64))
    with pytest.raises(SessionError, match="the most is"):
        load_session(path)


def test_too_many_members_and_damaged_zips_are_refused(tmp_path):
    members = demo_members()
    members.update({f"extra{i}.npy": b"" for i in range(MAX_MEMBERS)})
    with pytest.raises(SessionError, match="members"):
        load_session(archive(tmp_path, members))
    good = archive(tmp_path, demo_members(), "good.aesz").read_bytes()
    for cut in (100, len(good) // 2, len(good) - 10):
        (tmp_path / "cut.aesz").write_bytes(good[:cut])
        with pytest.raises(SessionError, match="cut.aesz"):
            load_session(tmp_path / "cut.aesz")
