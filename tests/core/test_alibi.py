"""ALiBi: the slopes of Press et al.'s reference ``get_slopes``, and scores (q·kᵀ·scale − m_h·|i − j|)/T."""
import math
from dataclasses import replace

import numpy as np
import pytest

from explorer.core import alibi_bias, alibi_slopes
from explorer.core.pipeline import run_pipeline
from explorer.core.recompute import apply_edit, recompute
from explorer.core.session import Settings


def reference_get_slopes(n):
    """The paper's repository's ``get_slopes``, as published (only renamed)."""
    def get_slopes_power_of_2(n):
        start = (2 ** (-2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio ** i for i in range(n)]
    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (get_slopes_power_of_2(closest_power_of_2)
            + reference_get_slopes(2 * closest_power_of_2)[0::2][:n - closest_power_of_2])


@pytest.mark.parametrize("n, exponents", [
    (1, [-8]),
    (2, [-4, -8]),
    (3, [-4, -8, -2]),            # slopes(2), then slopes(4)[0::2][:1] = 2^-2
    (4, [-2, -4, -6, -8]),
    (8, [-1, -2, -3, -4, -5, -6, -7, -8]),
    (12, [-1, -2, -3, -4, -5, -6, -7, -8, -0.5, -1.5, -2.5, -3.5]),
])
def test_slopes_by_hand(n, exponents):
    np.testing.assert_allclose(alibi_slopes(n), [2.0 ** e for e in exponents], rtol=1e-15)


@pytest.mark.parametrize("n", range(1, 65))
def test_slopes_match_the_reference_rule(n):
    np.testing.assert_allclose(alibi_slopes(n), reference_get_slopes(n), rtol=1e-14)


def test_bias_is_minus_slope_times_distance():
    np.testing.assert_array_equal(alibi_bias(0.5, slice(None), 3),
                                  [[0, -0.5, -1.0], [-0.5, 0, -0.5], [-1.0, -0.5, 0]])
    np.testing.assert_array_equal(alibi_bias(0.25, [2], 4), [[-0.5, -0.25, 0, -0.25]])


def reference_attention(q, k, v, heads, slopes, causal, temperature):
    """Per head: s = q_h·k_hᵀ/√d_h − m_h·|i − j|, divided by T, masked, softmax, · v_h (written anew)."""
    L, d = q.shape
    dh, dv = d // heads, v.shape[1] // heads
    out = []
    weights = []
    for h in range(heads):
        s = q[:, h * dh:(h + 1) * dh] @ k[:, h * dh:(h + 1) * dh].T / math.sqrt(dh)
        for i in range(L):
            for j in range(L):
                s[i, j] -= slopes[h] * abs(i - j)
        s = s / temperature
        if causal:
            s = np.where(np.tril(np.ones((L, L))) > 0, s, -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        w = e / e.sum(axis=1, keepdims=True)
        weights.append(w)
        out.append(w @ v[:, h * dv:(h + 1) * dv])
    return np.stack(weights), np.concatenate(out, axis=1)


@pytest.mark.parametrize("heads, causal, temperature", [(1, False, 1.0), (2, True, 0.7), (4, False, 2.0)])
def test_pipeline_and_recompute_add_the_bias(heads, causal, temperature):
    rng = np.random.default_rng(heads)
    q, k, v = (rng.standard_normal((6, 8)) for _ in range(3))
    settings = Settings(heads=heads, causal=causal, temperature=temperature, positions="alibi")
    want_w, want_o = reference_attention(q, k, v, heads, alibi_slopes(heads), causal, temperature)
    mats = {"Q": q, "K": k, "V": v}
    for result in (run_pipeline(mats, settings), recompute(mats, settings)):
        np.testing.assert_allclose(result.heads.weights, want_w, rtol=0, atol=1e-13)
        np.testing.assert_allclose(result.heads.output, want_o, rtol=0, atol=1e-13)
        np.testing.assert_array_equal(result.slopes, alibi_slopes(heads))


def test_a_query_edit_in_place_keeps_the_bias():
    rng = np.random.default_rng(7)
    mats = {n: rng.standard_normal((5, 4)) for n in "QKV"}
    settings = Settings(heads=2, positions="alibi")
    result = recompute(mats, settings)
    mats["Q"][3, 1] = 2.5
    apply_edit(result, mats, settings, "Q", [3], [1])
    want_w, _ = reference_attention(mats["Q"], mats["K"], mats["V"], 2, alibi_slopes(2), False, 1.0)
    np.testing.assert_allclose(result.heads.weights, want_w, rtol=0, atol=1e-13)


def test_the_bias_of_a_cell_is_told_for_the_tooltip():
    mats = {n: np.eye(3) for n in "QKV"}
    result = run_pipeline(mats, Settings(heads=1, positions="alibi"))
    assert result.bias(0, 2, 0) == -2 * 2.0 ** -8
    assert run_pipeline(mats, replace(Settings(), heads=1)).bias(0, 2, 0) is None


def test_an_alibi_session_in_direct_mode_saves_and_loads(tmp_path):
    from explorer.core.presets import demo_session
    from explorer.core.session import Session, load_session, save_session, session_from_json

    demo = demo_session()
    session = Session(demo.tokens, demo.matrices, replace(demo.settings, positions="alibi"))
    save_session(session, tmp_path / "alibi.json")
    assert load_session(tmp_path / "alibi.json").settings.positions == "alibi"
    text = (tmp_path / "alibi.json").read_text(encoding="utf-8").replace('"alibi"', '"alibii"')
    with pytest.raises(Exception, match=r"settings\.positions must be one of 'none', 'sinusoidal', 'alibi'"):
        session_from_json(text)
