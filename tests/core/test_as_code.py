"""F20 Reproduce as code: every exported script, run on its own with only NumPy, recomputes the pipeline's
numbers to 1e-12 — for the presets, for each setting that changes the results, and for sessions hypothesis
makes across them (self- and cross-attention, direct and projected, GQA, PE, ALiBi, RoPE and llama3)."""
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings as hyp_settings, strategies as st

from explorer.core import as_code, presets, settings_schema
from explorer.core.errors import ExportError, SessionError
from explorer.core.session import Session, Settings, load_session, validate_session
from tests.core.as_code_checks import assert_reproduces, exported_results

NOT_WRITTEN = "no script was written"


@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_every_preset_is_reproduced(name, tmp_path):
    assert_reproduces(presets.PRESETS[name](), tmp_path)


DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("path", sorted(DATA.glob("session_v*.json")), ids=lambda p: p.name)
def test_every_session_file_of_every_version_is_reproduced(path, tmp_path):
    assert_reproduces(load_session(path), tmp_path)


def with_settings(session, **changes):
    return replace(session, settings=replace(session.settings, **changes))


# Each setting that changes the results, turned on in a preset it fits (heads of even d_h for RoPE)
VARIANTS = {
    "temperature": ("demo", dict(temperature=0.3)),
    "custom scale": ("demo", dict(scale_mode="custom", scale=0.125)),
    "no scale": ("random", dict(scale_mode="none", temperature=7.5)),
    "causal": ("random", dict(causal=True)),
    "heads": ("multi_head", dict(heads=4, causal=False)),
    "ALiBi, 2 heads": ("multi_head", dict(positions="alibi")),
    "ALiBi, 6 heads (not a power of two)": (lambda: presets.random_session(dim=12), dict(heads=6, positions="alibi")),
    "ALiBi, cross-attention": ("translation", dict(positions="alibi", heads=2)),
    "sinusoidal PE": ("multi_head", dict(positions="sinusoidal")),
    "RoPE half": ("grouped_query", dict(rope=True)),
    "RoPE interleaved, offset": ("multi_head", dict(rope=True, rope_style="interleaved", rope_offset=123_456)),
    "RoPE far out": ("random", dict(rope=True, rope_offset=1_000_000, rope_base=500_000.0)),
    "RoPE llama3": ("multi_head", dict(rope=True, heads=1, rope_base=500_000.0, rope_scaling="llama3",
                                       rope_factor=32.0, rope_low_freq_factor=1.0, rope_high_freq_factor=4.0,
                                       rope_original_max_position_embeddings=2)),
    "RoPE, cross-attention": ("translation", dict(rope=True, rope_offset=7)),
    "MQA": (lambda: presets.grouped_query_session(kv_heads=1), {}),
    "everything at once": ("multi_head", dict(rope=True, rope_style="interleaved", positions="sinusoidal",
                                              temperature=0.5, scale_mode="custom", scale=0.7)),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_setting_that_changes_the_results_is_reproduced(variant, tmp_path):
    preset, changes = VARIANTS[variant]
    made = presets.PRESETS[preset]() if isinstance(preset, str) else preset()
    session = validate_session(with_settings(made, **changes))
    assert_reproduces(session, tmp_path)


def test_every_setting_that_changes_the_results_has_code():
    """A setting added to the schema without code in the script is refused, never exported silently wrong;
    this test says so the day it is added."""
    assert set(settings_schema.RESULTS) <= set(as_code.REPRODUCED)


# ----- sessions hypothesis makes ------------------------------------------------------------------

def _matrix(draw, rows, cols):
    values = st.floats(-3, 3, allow_nan=False, allow_infinity=False, width=64)
    return np.array(draw(st.lists(st.lists(values, min_size=cols, max_size=cols), min_size=rows, max_size=rows)),
                    dtype=np.float64).reshape(rows, cols)


@st.composite
def sessions(draw):
    """A small valid session of any kind: its numbers in [-3, 3], its settings across their ranges."""
    cross = draw(st.booleans())
    projected = draw(st.booleans())
    rope = draw(st.booleans())
    heads = draw(st.integers(1, 4))
    kv = draw(st.sampled_from([g for g in range(1, heads + 1) if heads % g == 0]))
    d_h = draw(st.sampled_from([2, 4] if rope else [1, 2, 3]))
    d_vh = draw(st.integers(1, 3))
    length = draw(st.integers(1, 5))
    lq = draw(st.integers(1, 4)) if cross else length
    tokens = tuple(f"k{i}" for i in range(length))
    mats = {}
    if projected:
        width = draw(st.integers(1, 4))
        mats["X"] = _matrix(draw, lq, width)
        if cross:
            mats["X_src"] = _matrix(draw, length, width)
        w = {"Wq": _matrix(draw, heads * d_h, width), "Wk": _matrix(draw, kv * d_h, width),
             "Wv": _matrix(draw, kv * d_vh, width), "Wo": _matrix(draw, draw(st.integers(1, 4)), heads * d_vh)}
        mats.update(w)
        source = mats.get("X_src", mats["X"])
        mats.update(Q=mats["X"] @ w["Wq"].T, K=source @ w["Wk"].T, V=source @ w["Wv"].T)
    else:
        mats.update(Q=_matrix(draw, lq, heads * d_h), K=_matrix(draw, length, kv * d_h),
                    V=_matrix(draw, length, kv * d_vh))
    positions = draw(st.sampled_from(["none", "alibi"] + (["sinusoidal"] if projected else [])))
    low = draw(st.floats(0.25, 4))
    settings = Settings(
        scale_mode=draw(st.sampled_from(["inv_sqrt_d", "none", "custom"])), scale=draw(st.floats(0.01, 5)),
        temperature=draw(st.floats(0.05, 20)), causal=not cross and draw(st.booleans()), heads=heads,
        kv_heads=draw(st.sampled_from([kv, 0] if kv == heads else [kv])), source=projected and "projected" or "direct",
        positions=positions, rope=rope, rope_base=draw(st.floats(100, 1e8)),
        rope_style=draw(st.sampled_from(["half", "interleaved"])),
        rope_offset=draw(st.sampled_from([0, 1, 17, 4096, 1_000_000])),
        rope_scaling=draw(st.sampled_from(["none", "llama3"])), rope_factor=draw(st.floats(1, 64)),
        rope_low_freq_factor=low, rope_high_freq_factor=low + draw(st.floats(0.5, 8)),
        rope_original_max_position_embeddings=draw(st.integers(1, 10_000)))
    session = Session(tokens=tokens, matrices=mats, settings=settings, title="made by hypothesis",
                      query_tokens=tuple(f"q{i}" for i in range(lq)) if cross else None)
    return validate_session(session)


@hyp_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                     HealthCheck.too_slow])
@given(session=sessions())
def test_any_session_is_reproduced(session, tmp_path_factory):
    assert_reproduces(session, tmp_path_factory.mktemp("script"))


# ----- many numbers: beside the script in an .npz -------------------------------------------------

def test_a_session_of_many_numbers_loads_them_from_an_npz_beside_the_script(tmp_path):
    session = presets.random_session(length=200, dim=128, seed=3)   # 76 800 numbers > 2^16
    run, exported = assert_reproduces(session, tmp_path, name="big.py")
    assert exported.matrices_name == "big_numbers.npz" and (tmp_path / "big_numbers.npz").exists()
    assert len(exported.text) < 20_000   # the script stays readable: no numbers in it
    with np.load(tmp_path / "big_numbers.npz", allow_pickle=False) as numbers:
        for name in "QKV":   # bit for bit
            assert numbers[name].tobytes() == session.matrices[name].tobytes()


def test_the_threshold_is_the_number_of_numbers_the_script_computes_from(monkeypatch, tmp_path):
    monkeypatch.setattr(as_code, "MAX_LITERAL_NUMBERS", 10)
    assert_reproduces(presets.multi_head_session(), tmp_path, name="projected.py")
    assert (tmp_path / "projected_numbers.npz").exists()


def test_small_sessions_are_one_file_with_every_number_written_exactly():
    session = presets.random_session(seed=5)
    text = as_code.session_script(session).text
    for x in session.matrices["Q"].ravel():
        assert repr(float(x)) in text
    assert "NUMBERS = np.load" not in text


# ----- nothing that is not numbers and tokens becomes code ------------------------------------------

NASTY = ("it's", 'say "hi"', '"""', "'''", "back\\slash", "\\N", "{braces}", "# not a comment", "猫",
         "红色 激光点", "😀", "coding: latin-1", "x'); import os; ('", "\u00a0nbsp", "tab\u2003em")


def test_tokens_and_title_with_quotes_and_chinese_stay_text(tmp_path):
    tokens = NASTY[:8]
    queries = NASTY[7:]
    q = np.arange(len(queries) * 2, dtype=float).reshape(-1, 2) / 10
    k = np.arange(len(tokens) * 2, dtype=float).reshape(-1, 2) / 7
    session = Session(tokens=tokens, query_tokens=queries, matrices={"Q": q, "K": k, "V": k},
                      title="\"\"\"'''  a title that ends the docstring? \\ 中文")
    saved, run, exported = exported_results(validate_session(session), tmp_path)
    assert tuple(saved["tokens"]) == tokens and tuple(saved["query_tokens"]) == queries
    assert run.stdout.splitlines()[0] == session.title


def test_a_label_that_is_not_one_printable_line_is_written_as_its_repr_in_comments():
    assert as_code.comment_text("a\nimport os") == repr("a\nimport os")
    assert as_code.comment_text("line\u2028separator") == repr("line\u2028separator")
    assert as_code.comment_text("猫 追") == "猫 追"
    text = as_code.matrix_literal("Q", np.ones((2, 1)), ["x\nimport os", "y\r# z"])
    assert "\nimport os" not in text and "\r" not in text
    assert len(text.splitlines()) == 4


def test_the_script_has_no_pickle_eval_or_exec(tmp_path):
    for session in (presets.multi_head_session(), presets.random_session(length=300, dim=128)):
        exported = as_code.session_script(session)
        for word in ("import pickle", "allow_pickle=True", "eval(", "exec(", "__import__", "explorer"):
            assert word not in exported.text


# ----- refusals -----------------------------------------------------------------------------------

def test_a_setting_without_code_is_refused_by_name_and_nothing_is_written(monkeypatch, tmp_path):
    monkeypatch.delitem(as_code.REPRODUCED, "rope_scaling")
    with pytest.raises(ExportError, match=r"a\.py: the setting rope_scaling \(RoPE scaling\) is 'none'.*"
                                          + NOT_WRITTEN):
        as_code.write_script(presets.demo_session(), tmp_path / "a.py")
    assert list(tmp_path.iterdir()) == []


def test_a_value_without_code_is_refused_by_name(monkeypatch, tmp_path):
    monkeypatch.setitem(as_code.REPRODUCED, "rope_scaling", ("none",))
    session = with_settings(presets.multi_head_session(), rope=True, rope_scaling="llama3")
    with pytest.raises(ExportError, match=r"the setting rope_scaling \(RoPE scaling\) is 'llama3'; the exported "
                                          r"script can reproduce only 'none'"):
        as_code.write_script(session, tmp_path / "b.py")
    assert list(tmp_path.iterdir()) == []


def test_an_invalid_session_is_refused_as_saving_refuses_it(tmp_path):
    bad = with_settings(presets.demo_session(), heads=2)   # 2 does not divide the width 3
    with pytest.raises(SessionError, match=r"c\.py: settings\.heads is 2"):
        as_code.write_script(bad, tmp_path / "c.py")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_cannot_be_written_is_named(tmp_path):
    with pytest.raises(ExportError, match=r"d\.py: could not be written"):
        as_code.write_script(presets.demo_session(), tmp_path / "missing" / "d.py")


def test_the_script_prints_each_stage_with_the_tokens(tmp_path):
    saved, run, exported = exported_results(presets.demo_session(), tmp_path)
    out = run.stdout
    for heading in ("① S = q·kᵀ·scale, head 1 of 1", "② A = softmax(S), head 1 of 1",
                    "③ O = A·v, head 1 of 1", "Saved S, A, O"):
        assert heading in out
    assert re.search(r"\n  追 +\[0\.4548 0\.0452 0\.0452 0\.4548\]\n", out)   # 追 looks at 猫 and 激光点 alike
    np.testing.assert_allclose(saved["A"][0].sum(axis=1), 1.0, rtol=0, atol=1e-15)


def test_numbers_are_written_bit_for_bit(tmp_path):
    """repr is the shortest text that reads back to the same float64: -0.0, the smallest subnormal, thirds."""
    q = np.array([[-0.0, 5e-324, 1 / 3], [0.1, -1e6, 2.2250738585072014e-308], [123456.789, 1e-300, -2 / 3]])
    session = validate_session(Session(tokens=("a", "b", "c"), matrices={"Q": q, "K": q[::-1], "V": q}))
    saved, run, exported = exported_results(session, tmp_path)
    for name in "QKV":
        assert saved[name].tobytes() == session.matrices[name].tobytes()
