"""Llama 3.1's RoPE scaling ("llama3") in the core: its frequencies against a transcription of Hugging Face's
``_compute_llama3_parameters``, its three bands by hand, and the session settings that turn it on."""
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.errors import ShapeError
from explorer.core.pipeline import run_pipeline
from explorer.core.rope import Llama3Scaling, llama3_band, llama3_limits, rope, rope_frequencies, scaling_of
from explorer.core.session import (Session, Settings, load_session, session_from_json, session_to_json,
                                   validate_session)
from explorer.core.settings_schema import SCHEMA, check_together, check_value
from tests.core.format_versions import as_version_5

PROPS = settings(max_examples=60, deadline=None, database=None)


def hf_llama3_inv_freq(base, dim, factor, low_freq_factor, high_freq_factor, old_context_len):
    """transformers.modeling_rope_utils._compute_llama3_parameters, line by line, with NumPy for torch and
    float64 throughout (Hugging Face computes in float32)."""
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    # wavelen < high_freq_wavelen: do nothing; wavelen > low_freq_wavelen: divide by factor
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    # otherwise: interpolate between the two, using a smooth factor
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


# (d_h, base, factor, low, high, original context) of real configs
REAL = {"Llama 3.1 8B/70B/405B": (128, 500000.0, 8.0, 1.0, 4.0, 8192),
        "Llama 3.2 1B/3B": (64, 500000.0, 32.0, 1.0, 4.0, 8192)}


@pytest.mark.parametrize("name", REAL)
def test_real_configs_match_hugging_faces_formula(name):
    d, base, *params = REAL[name]
    ours = rope_frequencies(d, base, Llama3Scaling(*params))
    np.testing.assert_allclose(ours, hf_llama3_inv_freq(base, d, *params), rtol=1e-14, atol=0)
    plain = rope_frequencies(d, base)
    kept, slowed = ours == plain, np.isclose(ours, plain / params[0], rtol=1e-15, atol=0)
    assert kept[0] and slowed[-1] and (kept | slowed).sum() < d // 2    # all three bands are there


@PROPS
@given(d=st.integers(1, 64).map(lambda h: 2 * h), base=st.floats(100, 1e8), factor=st.floats(1, 1000),
       low=st.floats(0.01, 100), gap=st.floats(0.01, 100), context=st.integers(1, 10_000_000))
def test_any_parameters_match_hugging_faces_formula(d, base, factor, low, gap, context):
    ours = rope_frequencies(d, base, Llama3Scaling(factor, low, low + gap, context))
    np.testing.assert_allclose(ours, hf_llama3_inv_freq(base, d, factor, low, low + gap, context), rtol=1e-13,
                               atol=0)


def test_the_three_bands_by_hand():
    """θ = 1, 1/100 (d = 4, base 10 000): wavelengths 2π ≈ 6.28 and 200π ≈ 628. With an original context of 400
    and factors 1 and 4 the bounds are 100 and 400: pair 0 (6.28 < 100) keeps θ, pair 1 (628 > 400) gets θ/8."""
    np.testing.assert_array_equal(rope_frequencies(4, 10000.0, Llama3Scaling(8.0, 1.0, 4.0, 400)), [1.0, 0.01 / 8])
    # context 1256 puts pair 1 between the bounds (314 < 628 < 1256), at s = (1256/628.3 − 1)/(4 − 1) = 0.3330…
    s = (1256 / (200 * math.pi) - 1) / 3
    theta = rope_frequencies(4, 10000.0, Llama3Scaling(8.0, 1.0, 4.0, 1256))
    assert theta[0] == 1.0 and theta[1] == pytest.approx((1 - s) * 0.01 / 8 + s * 0.01, rel=1e-14)
    # factor 1 changes nothing
    np.testing.assert_array_equal(rope_frequencies(64, 500000.0, Llama3Scaling(1.0, 1.0, 4.0, 64)),
                                  rope_frequencies(64, 500000.0))


def test_scaled_rope_still_depends_only_on_the_distance():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 16))
    scaling = Llama3Scaling(8.0, 1.0, 4.0, 64)

    def dot(m, n):
        return float(rope(q[None], [m], base=500000.0, scaling=scaling)[0]
                     @ rope(k[None], [n], base=500000.0, scaling=scaling)[0])

    assert dot(9, 4) == pytest.approx(dot(1005, 1000), abs=1e-9) and dot(9, 4) != pytest.approx(dot(9, 3))


def test_crossed_bands_are_refused():
    with pytest.raises(ShapeError, match="low_freq_factor < high_freq_factor"):
        rope_frequencies(8, 10000.0, Llama3Scaling(8.0, 4.0, 4.0, 64))


# ----- the settings ---------------------------------------------------------------------------------------

def projected_rope_session(**changes):
    """A projected head (d_h = 8) on 12 tokens, RoPE on with base 500 000: positions reach the slow pairs."""
    rng = np.random.default_rng(3)
    x, wq, wk, wv = rng.standard_normal((12, 6)), *rng.standard_normal((3, 8, 6))
    mats = {"Q": x @ wq.T, "K": x @ wk.T, "V": x @ wv.T, "X": x, "Wq": wq, "Wk": wk, "Wv": wv, "Wo": np.eye(8)}
    settings_ = Settings(source="projected", rope=True, rope_base=500000.0, causal=True, **changes)
    return Session(tokens=tuple(f"t{i}" for i in range(12)), matrices=mats, settings=settings_)


def test_the_pipeline_turns_q_and_k_by_the_scaled_frequencies():
    """scores = (R_m q_m)·(R_n k_n)/√8 with θ from the transcribed Hugging Face formula."""
    s = projected_rope_session(rope_scaling="llama3", rope_factor=16.0, rope_low_freq_factor=1.0,
                               rope_high_freq_factor=2.0, rope_original_max_position_embeddings=20)
    theta = hf_llama3_inv_freq(500000.0, 8, 16.0, 1.0, 2.0, 20)
    m = s.matrices
    angles = np.arange(12)[:, None] * theta[None, :]

    def turned(a):  # rotate_half: pair j with j + 4
        first, second = a[:, :4], a[:, 4:]
        return np.hstack([first * np.cos(angles) - second * np.sin(angles),
                          second * np.cos(angles) + first * np.sin(angles)])

    expected = turned(m["X"] @ m["Wq"].T) @ turned(m["X"] @ m["Wk"].T).T / math.sqrt(8)
    got = run_pipeline(m, s.settings).heads.scores[0]
    lower = np.tril(np.ones((12, 12), bool))
    np.testing.assert_allclose(got[lower], expected[lower], rtol=1e-12, atol=1e-12)
    plain = run_pipeline(m, replace(s.settings, rope_scaling="none")).heads.scores[0]
    assert np.abs(plain[lower] - got[lower]).max() > 1e-3


def test_scaling_of_reads_the_settings():
    assert scaling_of(Settings()) is None
    assert scaling_of(Settings(rope_scaling="llama3", rope_factor=32.0)) == Llama3Scaling(32.0, 1.0, 4.0, 8192)


@pytest.mark.parametrize("name, value, message", [
    ("rope_scaling", "yarn", "settings.rope_scaling must be one of 'none', 'llama3', not a string"),
    ("rope_factor", 0.5, "settings.rope_factor is 0.5; it must lie in 1..1000"),
    ("rope_low_freq_factor", 0.0, "settings.rope_low_freq_factor is 0.0; it must be above 0 and at most 1000"),
    ("rope_original_max_position_embeddings", 8192.0, "settings.rope_original_max_position_embeddings must be an "
                                                      "integer, not a number (8192.0)"),
    ("rope_original_max_position_embeddings", 0, "it must lie in 1..10000000"),
])
def test_scaling_values_are_refused_with_what_is_allowed(name, value, message):
    with pytest.raises(ValueError) as info:
        check_value(name, value)
    assert message in str(info.value)


def test_real_configs_fit_the_ranges():
    for d, base, factor, low, high, context in REAL.values():
        for name, value in (("rope_base", base), ("rope_factor", factor), ("rope_low_freq_factor", low),
                            ("rope_high_freq_factor", high), ("rope_original_max_position_embeddings", context)):
            assert check_value(name, value) == value


def test_crossed_bands_are_refused_by_the_settings_rule():
    values = {s.name: s.default for s in SCHEMA.values()}
    widths = {"qk": 8, "v": 8, "L": 3}
    check_together(dict(values, rope_low_freq_factor=5.0), widths, projected_matrices=False)   # scaling off
    with pytest.raises(ValueError) as info:
        check_together(dict(values, rope_scaling="llama3", rope_low_freq_factor=5.0), widths,
                       projected_matrices=False)
    assert str(info.value).startswith("settings.rope_high_freq_factor is 4.0, not above rope_low_freq_factor 5.0")


def test_a_scaled_session_round_trips_and_reads_as_written():
    s = validate_session(projected_rope_session(rope_scaling="llama3", rope_factor=32.0,
                                                rope_original_max_position_embeddings=64))
    text = session_to_json(s)
    assert ('"rope_scaling": "llama3",\n  "rope_factor": 32.0,\n  "rope_low_freq_factor": 1.0,\n  '
            '"rope_high_freq_factor": 4.0,\n  "rope_original_max_position_embeddings": 64,') in text
    assert session_from_json(text) == s


# ----- the session format (version 5) ---------------------------------------------------------------------

DATA = Path(__file__).resolve().parent.parent / "data"


def test_frozen_llama3_file_loads_exactly_and_is_what_save_writes():
    s = load_session(DATA / "session_v5_llama3.json")
    assert s.settings == Settings(causal=True, rope=True, rope_base=500000.0, rope_scaling="llama3",
                                  rope_original_max_position_embeddings=16, selected_row=2)
    assert as_version_5(session_to_json(s)) == (DATA / "session_v5_llama3.json").read_text("utf-8")
    # θ = 1 and 500000^(−1/2); wavelengths 2π (between 16/4 and 16: blended) and 4443 (above 16: slowed 8×)
    blend = (16 / (2 * math.pi) - 1) / (4 - 1)
    theta = np.array([(1 - blend) / 8 + blend, 500000.0 ** -0.5 / 8])
    np.testing.assert_allclose(rope_frequencies(4, 500000.0, scaling_of(s.settings)), theta, rtol=1e-15)
    q, k = s.matrices["Q"][2], s.matrices["K"][0]          # query 2 turned by 2θ, key 0 not at all
    c, n = np.cos(2 * theta), np.sin(2 * theta)
    q_turned = np.concatenate([q[:2] * c - q[2:] * n, q[2:] * c + q[:2] * n])
    assert run_pipeline(s.matrices, s.settings).heads.scores[0][2, 0] == pytest.approx(q_turned @ k / 2, abs=1e-15)


@pytest.mark.parametrize("name", ["session_v1.json", "session_v2_projected_rope.json", "session_v3_minimal.json",
                                  "session_v4.json", "session_v4_cross_projected_mqa.json"])
def test_older_files_load_without_scaling(name):
    s = load_session(DATA / name)
    assert s.settings.rope_scaling == "none" and scaling_of(s.settings) is None


def test_the_band_limits_agree_with_the_frequencies():
    """θ_keep = 2π·high/C and θ_slow = 2π·low/C split the pairs exactly where the formula does."""
    scaling = Llama3Scaling(8.0, 1.0, 4.0, 8192)
    assert llama3_limits(scaling) == (2 * math.pi * 4 / 8192, 2 * math.pi / 8192)
    plain = rope_frequencies(128, 500000.0)
    scaled = rope_frequencies(128, 500000.0, scaling)
    bands = [llama3_band(t, scaling) for t in plain]
    assert bands[0] == "kept" and bands[-1] == "slowed" and "blended" in bands
    for band, before, after in zip(bands, plain, scaled):
        if band == "kept":
            assert after == before
        elif band == "slowed":
            assert after == before / 8
        else:
            assert before / 8 < after < before
