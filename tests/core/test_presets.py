"""The ready-made sessions, above all the chapter's demo 「猫 追 红色 激光点」."""
import math

import numpy as np
import pytest

from explorer.core import attention, causal_mask
from explorer.core.presets import DEMO_TOKENS, PRESETS, demo_session, previous_token_session, random_session, \
    uniform_session
from explorer.core.pipeline import run_pipeline
from explorer.core.session import Session, session_from_json, session_to_json, validate_session

CAT, CHASE, RED, DOT = range(4)  # 猫 追 红色 激光点


def demo_attention():
    s = demo_session()
    m = s.matrices
    return attention(m["Q"], m["K"], m["V"])


def test_demo_is_the_chapters_sentence():
    s = demo_session()
    assert isinstance(s, Session)
    assert s.tokens == DEMO_TOKENS == ("猫", "追", "红色", "激光点")
    for name in ("Q", "K", "V"):
        assert s.matrices[name].shape == (4, 3) and s.matrices[name].dtype == np.float64
    assert s.settings.selected_row == CHASE  # the readout opens on 追, the row the chapter asks about
    assert s.settings.scale_mode == "inv_sqrt_d" and not s.settings.causal and s.settings.heads == 1


def test_row_of_chase_looks_at_cat_and_laser_dot_together():
    # q_追 = [2,0,0]; k_猫 = [2,0,0], k_激光点 = [2,0,1] → both score 4, the others 0.
    # With scale 1/√3: a = 4/√3 ≈ 2.3094; weights = [e^a, 1, 1, e^a] / (2e^a + 2) ≈ [0.4548, 0.0452, 0.0452, 0.4548]
    w = demo_attention().weights[CHASE]
    a = 4 / math.sqrt(3)
    expected = np.array([math.exp(a), 1, 1, math.exp(a)]) / (2 * math.exp(a) + 2)
    np.testing.assert_allclose(w, expected, rtol=1e-14)
    assert w[CAT] + w[DOT] >= 0.7
    assert w[CAT] == pytest.approx(w[DOT], rel=1e-15)  # subject and object share the budget equally


def test_row_of_laser_dot_puts_its_max_on_red():
    # q_激光点 = [0.3,0,2]: raw scores 猫 0.6, 追 0, 红色 4, 激光点 2.6; divided by √3 and softmaxed:
    # [e^0.3464, 1, e^2.3094, e^1.5011] / Σ ≈ [0.0833, 0.0589, 0.5935, 0.2643]
    w = demo_attention().weights[DOT]
    raw = np.array([0.6, 0.0, 4.0, 2.6]) / math.sqrt(3)
    np.testing.assert_allclose(w, np.exp(raw) / np.exp(raw).sum(), rtol=1e-14)
    assert w.argmax() == RED
    assert w[RED] >= 0.5


def test_the_other_rows_do_what_the_docstring_says():
    w = demo_attention().weights
    assert w[CAT].argmax() == CHASE  # 猫 looks for the action it does
    assert w[RED].argmax() == DOT  # 红色 looks for the noun it colours


def test_row_of_chase_mixes_the_animal_with_the_colour_and_motion_of_the_dot():
    o = demo_attention().output[CHASE]
    assert o[0] > 0.4  # "animal" from 猫
    assert o[2] > 0.3  # "colour" from 激光点
    assert o[1] > 0.1  # "motion" from 激光点 (0.3) and a little from 追


def test_demo_through_the_pipeline_matches():
    from explorer.core.pipeline import run_pipeline

    s = demo_session()
    r = run_pipeline(s.matrices, s.settings)
    np.testing.assert_allclose(r.heads.weights[0], demo_attention().weights, rtol=1e-14)
    np.testing.assert_allclose(r.heads.output, demo_attention().output, rtol=1e-14)


def test_uniform_session_averages_v():
    s = uniform_session()
    m = s.matrices
    assert (m["Q"] == 0).all()
    r = attention(m["Q"], m["K"], m["V"])
    np.testing.assert_array_equal(r.weights, np.full((4, 4), 0.25))
    np.testing.assert_allclose(r.output, np.broadcast_to(m["V"].mean(axis=0), (4, 3)), rtol=1e-15)


@pytest.mark.parametrize("length", [1, 2, 4, 6, 9])
def test_previous_token_head_looks_one_back(length):
    s = previous_token_session(length)
    assert len(s.tokens) == length
    assert s.settings.causal and s.settings.scale_mode == "none"
    m = s.matrices
    r = attention(m["Q"], m["K"], m["V"], scale=1.0, causal=True)
    np.testing.assert_array_equal(r.mask, causal_mask(length))
    assert r.weights[0, 0] == 1.0
    for i in range(1, length):
        assert r.weights[i].argmax() == i - 1
        # e^6 / (e^6 + i): the other i visible keys score 0
        assert r.weights[i, i - 1] == pytest.approx(math.exp(6) / (math.exp(6) + i), rel=1e-14)


def test_random_session_is_reproducible():
    a, b, c = random_session(5, 4, seed=3), random_session(5, 4, seed=3), random_session(5, 4, seed=4)
    assert a == b
    assert a != c
    assert a.matrices["Q"].shape == (5, 4) and a.matrices["V"].shape == (5, 4)
    assert random_session(3, 6, seed=0, dim_v=2).matrices["V"].shape == (3, 2)
    assert len(a.tokens) == 5 and len(set(a.tokens)) == 5


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_a_valid_session_that_survives_a_save(name):
    s = PRESETS[name]()
    assert validate_session(s) == s
    assert session_from_json(session_to_json(s)) == s
    r = run_pipeline(s.matrices, s.settings).heads  # the shapes and settings each preset is made for
    assert np.isfinite(r.output).all() and not r.masked_rows.any()
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


def test_multi_head_preset_has_a_previous_token_head_and_a_content_head():
    from explorer.core.pipeline import run_pipeline
    from explorer.core.presets import multi_head_session
    from explorer.core.session import validate_session

    s = validate_session(multi_head_session())
    assert (s.settings.source, s.settings.heads, s.matrices["X"].shape) == ("projected", 2, (6, 8))
    w = run_pipeline(s.matrices, s.settings).heads.weights
    for p in range(1, 6):  # head 1 looks one token back
        assert np.argmax(w[0, p]) == p - 1 and w[0, p, p - 1] > 0.8
    tokens = s.tokens
    assert tokens[np.argmax(w[1, tokens.index("激光点")])] == "红色"  # head 2: the noun finds its colour
    assert tokens[np.argmax(w[1, tokens.index("追")])] == "猫"  # the verb finds its subject
    assert not np.allclose(w[0], w[1])


def test_translation_preset_aligns_each_english_word_with_its_chinese_word():
    """cat→猫, chases→追, red→红色, laser and dot→激光点: each the strongest of its row, and by far."""
    from explorer.core.presets import translation_session

    s = validate_session(translation_session())
    assert s.query_tokens == ("The", "cat", "chases", "the", "red", "laser", "dot")
    assert s.tokens == DEMO_TOKENS and not s.settings.causal
    w = run_pipeline(s.matrices, s.settings).heads.weights[0]
    assert w.shape == (7, 4)
    expected = {"cat": "猫", "chases": "追", "red": "红色", "laser": "激光点", "dot": "激光点",
                "The": "猫", "the": "激光点"}  # the articles softly, with the noun they belong to
    for i, word in enumerate(s.query_tokens):
        row = w[i]
        assert s.tokens[int(np.argmax(row))] == expected[word], word
        if word not in ("The", "the"):
            assert row.max() > 0.8 and np.sort(row)[-2] < 0.1, (word, row)
    output = run_pipeline(s.matrices, s.settings).heads.output  # V = I: the output row is the alignment
    np.testing.assert_allclose(output, w, rtol=0, atol=1e-15)


def test_grouped_query_preset_has_eight_heads_reading_two_kv_heads():
    from explorer.core.presets import grouped_query_session

    s = validate_session(grouped_query_session())
    assert (s.settings.heads, s.settings.kv_heads) == (8, 2)
    assert {n: m.shape for n, m in s.matrices.items()} == {"Q": (6, 16), "K": (6, 4), "V": (6, 4)}
    r = run_pipeline(s.matrices, s.settings)
    assert r.heads.weights.shape == (8, 6, 6) and r.heads.concat.shape == (6, 16)
    assert [r.kv_head(h) for h in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert grouped_query_session() == grouped_query_session()  # seeded: the same numbers every time
