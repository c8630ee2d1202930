"""Hostile session files on disk: only SessionError, each refused with bounded work.

``tests/core/test_session.py`` fuzzes the parser in memory (truncation, bit flips, re-typed values,
nesting, random bytes). Here every case is a real file given to ``load_session`` — the path the
window's File ▸ Open takes — with several mutations stacked, other text encodings, and huge files
(sparse files over the size cap, and multi-megabyte ones under it). Nothing is timed: each call's
work is counted instead (``tests/counted_work.py``): the file opened and read once, never more than
its bytes, parsed at most once, and no regular expression built from its text; a file over the cap
is never opened. How long each kind takes is measured by ``benchmarks/hostile_files.py``.

The huge cases here stay at or below 4 MiB or above the cap; floods of tens or hundreds of MiB,
which the pre-scan refuses before parsing, are in test_reliability_huge_json.py. A file shaped like
a large session is still parsed before it is refused, as long as a valid one of its size takes to
load (see docs/reliability.md).
"""
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from explorer.core.errors import SessionError
from explorer.core.presets import demo_session, multi_head_session
from explorer.core.session import (MAX_FILE_BYTES, Session, load_session, session_to_json,
                                   validate_session)
from tests.counted_work import counting_session_work

BASES = [session_to_json(demo_session()).encode("utf-8"),
         session_to_json(multi_head_session()).encode("utf-8")]
SETTINGS = settings(max_examples=400, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile")


def load_counted(folder, data, name="hostile.json"):
    """Write ``data`` to a file and load it, counting the work: a SessionError naming the file, or a
    valid session; either way one open, one read, at most one parse, no long regular expression."""
    path = folder / name
    path.write_bytes(data)
    try:
        with counting_session_work() as work:
            result = load_session(path)
    except SessionError as e:
        assert str(e).startswith(f"{name}: "), str(e)[:300]
        assert "could not be read (" not in str(e), f"an unforeseen error hit the safety net: {e}"
        result = None
    except BaseException as e:  # anything else is the failure this test exists for
        raise AssertionError(f"{type(e).__name__} escaped load_session: {str(e)[:300]}") from e
    else:
        assert isinstance(result, Session)
        validate_session(result)
    work.assert_bounded(len(data))
    return result


# ----- mutations, stacked ----------------------------------------------------------------------
JSON_LEAVES = (st.none() | st.booleans() | st.integers(-10 ** 40, 10 ** 40) | st.floats()
               | st.text(max_size=12))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda c: st.lists(c, max_size=4) | st.dictionaries(
    st.text(max_size=6), c, max_size=4), max_leaves=8)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, path + (i,))


@st.composite
def retyped(draw, base):
    doc = json.loads(base)
    path = draw(st.sampled_from(list(_paths(doc))))
    value = draw(JSON_VALUES)
    if not path:
        return json.dumps(value).encode()
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(doc, ensure_ascii=draw(st.booleans()), allow_nan=True).encode()


@st.composite
def mutated(draw):
    data = bytearray(draw(st.sampled_from(BASES)))
    if draw(st.booleans()):
        data = bytearray(draw(retyped(bytes(data))))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "splice"]))
        i = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "truncate":
            del data[i:]
        elif kind == "flip" and data:
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=16) | st.sampled_from(
                [b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe7\x8c", b"\x00", b"\\ud800", b"NaN", b"-Infinity",
                 b"1e400", b"[", b"{", b'"', b"9" * 120]))
        elif kind == "delete":
            del data[i:i + draw(st.integers(1, 40))]
        else:  # a piece of the other base file pasted in
            other = draw(st.sampled_from(BASES))
            j = draw(st.integers(0, len(other) - 1))
            data[i:i] = other[j:j + draw(st.integers(1, 200))]
    return bytes(data)


@SETTINGS
@given(mutated())
def test_stacked_mutations_are_refused_with_bounded_work(folder, data):
    load_counted(folder, data)


# ----- other encodings -------------------------------------------------------------------------
ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "gb18030", "big5", "shift_jis", "cp1252",
             "latin-1"]


@SETTINGS
@given(st.sampled_from(BASES), st.sampled_from(ENCODINGS), st.booleans())
def test_files_in_other_encodings_are_refused_with_bounded_work(folder, base, encoding, bom):
    text = base.decode("utf-8")
    data = text.encode(encoding, errors="replace")
    if bom and not encoding.startswith("utf-16") and encoding != "utf-32":
        data = b"\xef\xbb\xbf" + data
    result = load_counted(folder, data)
    if result is not None:  # only an encoding that writes this text as UTF-8 bytes could load
        assert data.decode("utf-8", errors="strict")


@SETTINGS
@given(st.sampled_from(BASES), st.integers(0, 10 ** 6), st.sampled_from(
    [b"\x80", b"\xc3", b"\xe7\x8c", b"\xf0\x9f\x99", b"\xc0\xaf", b"\xed\xb2\x80", b"\xf5\x80\x80\x80",
     b"\xfe\xff"]))
def test_invalid_utf8_anywhere_is_refused_with_bounded_work(folder, base, where, bad):
    i = where % (len(base) + 1)
    assert load_counted(folder, base[:i] + bad + base[i:]) is None


# ----- deep nesting ----------------------------------------------------------------------------
@SETTINGS
@given(st.sampled_from(BASES), st.integers(2, 400_000), st.sampled_from(["[", '{"a":', '[{"b":']),
       st.booleans(), st.integers(0, 10 ** 6))
def test_deep_nesting_anywhere_is_refused_with_bounded_work(folder, base, depth, opener, closed, where):
    closer = {"[": "]", '{"a":': "}", '[{"b":': "}]"}[opener]
    nest = (opener * depth + ("0" + closer * depth if closed else "")).encode()
    text = base.decode("utf-8")
    # at the top level, or in place of the value of some field
    cut = [m for m in range(len(text)) if text.startswith('": ', m)]
    if where % 3 == 0 or not cut:
        data = nest
    else:
        at = cut[where % len(cut)] + 3
        end = text.find(",", at)
        data = (text[:at] + nest.decode() + text[end if end > 0 else len(text):]).encode()
    assert load_counted(folder, data) is None


# ----- huge ------------------------------------------------------------------------------------
def with_field(path, value):
    doc = json.loads(BASES[0])
    *parents, last = path.split(".")
    target = doc
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    target[last] = value
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


HUGE_UNDER_THE_CAP = {  # each 0.5–4 MiB; the slow kinds (many values) kept near 1–2 MiB
    "title": lambda: with_field("title", "长" * 1_000_000),
    "token": lambda: with_field("tokens", ["猫" * 1_000_000, "b", "c", "d"]),
    "tokens": lambda: with_field("tokens", ["x"] * 400_000),
    "rows": lambda: with_field("matrices.Q", [[0.5, 1.5, 2.5]] * 80_000),
    "columns": lambda: with_field("matrices.Q", [[0.5] * 100_000] * 4),
    "extra matrix": lambda: with_field("matrices.W", [[1.0] * 1000] * 500),
    "layout": lambda: with_field("layout", {"state": "QUJD" * 1_000_000}),
    "layout keys": lambda: with_field("layout", {f"k{i}": "v" for i in range(150_000)}),
    "numbers": lambda: with_field("settings.temperature", [0.125] * 500_000),
    # (regression: a refused 3 MB number literal was compiled into a regex to find its line: 3-4 s)
    "long integer": lambda: BASES[0].replace(b'"heads": 1', b'"heads": 1' + b"0" * 3_000_000),
    "long number": lambda: BASES[0].replace(b'"temperature": 1.0', b'"temperature": 1.' + b"0" * 3_000_000),
    "long numbers": lambda: BASES[0].replace(b'"temperature": 1.0', b'"temperature": [' + b",".join(
        [b"1." + b"0" * 200 + str(i).encode() for i in range(10_000)]) + b"]"),
    "many keys": lambda: with_field("settings", {f"s{i}": i for i in range(100_000)}),
    "empty objects": lambda: b"[" + b"{}," * 500_000 + b"{}]",
    "whitespace": lambda: b" " * 4_000_000,
    "nul bytes": lambda: b"\0" * 4_000_000,
    "string": lambda: b'"' + b"a" * 4_000_000 + b'"',
    "unclosed string": lambda: BASES[0][:200] + b'"' + b"a" * 4_000_000,
    "escapes": lambda: b'"' + b"\\u00e9" * 600_000 + b'"',
}


@pytest.mark.parametrize("kind", sorted(HUGE_UNDER_THE_CAP))
def test_huge_files_under_the_cap_are_refused_reading_and_parsing_once(folder, kind):
    data = HUGE_UNDER_THE_CAP[kind]()
    assert 500_000 < len(data) <= 5 * 2 ** 20, len(data)
    assert load_counted(folder, data, name=f"huge-{kind.replace(' ', '-')}.json") is None


@pytest.mark.parametrize("size", [MAX_FILE_BYTES + 1, 2 ** 40])
def test_files_over_the_cap_are_refused_by_their_size_without_reading(folder, size):
    path = folder / "sparse.json"
    with open(path, "wb") as f:
        f.write(b"{")
        f.truncate(size)  # a sparse file: huge on paper, nothing on disk
    with counting_session_work() as work, pytest.raises(
            SessionError, match=r"^sparse\.json: is .* MiB; session files are limited to 256\.0 MiB"):
        load_session(path)
    assert (work.opened, work.bytes_read, work.parses) == (0, 0, 0)  # refused by its size alone
    path.unlink()

