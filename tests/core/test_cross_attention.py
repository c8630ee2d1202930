"""Cross-attention (Lq queries against Lk keys) and grouped K/V heads through the pipeline and the
recompute: identities of attention, positions of each sequence, and the fast path equal to the plain one."""
import numpy as np
import pytest
from hypothesis import given, settings as hyp_settings, strategies as st

from explorer.core import alibi_slopes, multi_head_attention, rope, sinusoidal_positions
from explorer.core import recompute as rc
from explorer.core.heads import kv_head_options
from explorer.core.pipeline import run_pipeline
from explorer.core.session import Settings
from explorer.core.structure import insert_along, permute_tokens, projections_reproducing
from tests.core.recompute_checks import assert_same, edit_and_compare

def cross(lq=3, lk=5, heads=2, kv=2, d=2, dv=2, seed=0):
    rng = np.random.default_rng(seed)
    return {"Q": rng.standard_normal((lq, heads * d)), "K": rng.standard_normal((lk, kv * d)),
            "V": rng.standard_normal((lk, kv * dv))}


# ----- identities --------------------------------------------------------------------------------

@pytest.mark.parametrize("kv", [1, 2, 4])
def test_rows_sum_to_one_and_the_shapes_are_rectangular(kv):
    m = cross(lq=3, lk=7, heads=4, kv=kv)
    r = multi_head_attention(m["Q"], m["K"], m["V"], 4, kv_heads=kv)
    assert r.weights.shape == (4, 3, 7) and r.head_outputs.shape == (4, 3, 2) and r.concat.shape == (3, 8)
    np.testing.assert_allclose(r.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-14)
    assert r.masked_rows.shape == (3,) and not r.masked_rows.any()


def test_one_query_works():
    m = cross(lq=1, lk=6)
    r = run_pipeline(m, Settings(heads=2))
    assert r.heads.weights.shape == (2, 1, 6) and r.heads.output.shape == (1, 4)
    np.testing.assert_allclose(r.heads.weights.sum(axis=-1), 1.0, rtol=0, atol=1e-15)
    assert_same(rc.recompute(m, Settings(heads=2)), r, exact=True)


@pytest.mark.parametrize("kv", [1, 2])
def test_permuting_keys_and_values_together_permutes_weight_columns_only(kv):
    m = cross(lq=4, lk=6, heads=2, kv=kv, seed=5)
    perm = np.array([3, 0, 5, 1, 4, 2])
    before = multi_head_attention(m["Q"], m["K"], m["V"], 2, kv_heads=kv)
    after = multi_head_attention(m["Q"], m["K"][perm], m["V"][perm], 2, kv_heads=kv)
    np.testing.assert_allclose(after.weights, before.weights[:, :, perm], rtol=1e-13)
    np.testing.assert_allclose(after.output, before.output, rtol=1e-12, atol=1e-14)


def test_permuting_queries_permutes_the_output_rows():
    m = cross(lq=5, lk=3, heads=2, kv=1, seed=6)
    perm = np.array([4, 2, 0, 1, 3])
    before = multi_head_attention(m["Q"], m["K"], m["V"], 2, kv_heads=1)
    after = multi_head_attention(m["Q"][perm], m["K"], m["V"], 2, kv_heads=1)
    np.testing.assert_allclose(after.output, before.output[perm], rtol=1e-13)
    np.testing.assert_allclose(after.weights, before.weights[:, perm], rtol=1e-13)


# ----- positions of two sequences ----------------------------------------------------------------

def test_alibi_uses_the_query_index_and_the_key_index():
    m = cross(lq=3, lk=5, heads=2, kv=1)
    s = Settings(heads=2, kv_heads=1, positions="alibi", scale_mode="none", temperature=2.0)
    r = run_pipeline(m, s)
    i, j = np.arange(3)[:, None], np.arange(5)[None, :]
    for h, slope in enumerate(alibi_slopes(2)):
        want = (m["Q"][:, 2 * h:2 * h + 2] @ m["K"].T - slope * np.abs(i - j)) / 2.0
        np.testing.assert_allclose(r.heads.scores[h], want, rtol=1e-14, atol=1e-15)
        assert r.bias(h, 2, 4) == -slope * 2
    assert_same(rc.recompute(m, s), r)


def test_rope_turns_queries_and_keys_by_their_own_indices():
    m = cross(lq=3, lk=5, heads=2, kv=2, d=4)
    s = Settings(heads=2, rope=True, rope_offset=7, rope_style="interleaved")
    r = run_pipeline(m, s)
    for name, got, length in (("Q", r.q, 3), ("K", r.k, 5)):
        split = m[name].reshape(length, 2, 4).transpose(1, 0, 2)
        turned = rope(split, 7 + np.arange(length), style="interleaved").transpose(1, 0, 2).reshape(length, 8)
        np.testing.assert_allclose(got, turned, rtol=1e-14, err_msg=name)
    assert_same(rc.recompute(m, s), r, exact=True)


def projected_cross(lq=3, lk=5, width=6, heads=2, kv=1, d=2, dv=3, seed=1):
    rng = np.random.default_rng(seed)
    return {"X": rng.standard_normal((lq, width)), "X_src": rng.standard_normal((lk, width)),
            "Wq": rng.standard_normal((heads * d, width)), "Wk": rng.standard_normal((kv * d, width)),
            "Wv": rng.standard_normal((kv * dv, width)), "Wo": rng.standard_normal((4, heads * dv))}


def test_projected_cross_attention_adds_each_side_its_own_positions():
    m = projected_cross()
    s = Settings(source="projected", positions="sinusoidal", heads=2, kv_heads=1)
    r = run_pipeline(m, s)
    x, x_src = m["X"] + sinusoidal_positions(3, 6), m["X_src"] + sinusoidal_positions(5, 6)
    np.testing.assert_allclose(r.x, x, rtol=1e-15)
    np.testing.assert_allclose(r.x_src, x_src, rtol=1e-15)
    np.testing.assert_allclose(r.pe_src, sinusoidal_positions(5, 6), rtol=0)
    np.testing.assert_allclose(r.q_in, x @ m["Wq"].T, rtol=1e-14)
    np.testing.assert_allclose(r.k_in, x_src @ m["Wk"].T, rtol=1e-14)
    np.testing.assert_allclose(r.v, x_src @ m["Wv"].T, rtol=1e-14)
    assert r.heads.output.shape == (3, 4)
    got = rc.recompute(m, s)
    assert_same(got, r)
    assert got.x_src is not None and got.pe_src is not None


# ----- the recompute: whole, and in place after edits -------------------------------------------

@hyp_settings(max_examples=60, deadline=None)
@given(lq=st.integers(1, 7), lk=st.integers(1, 7), heads=st.sampled_from([1, 2, 4]), data=st.data(),
       d_mult=st.integers(1, 2), dv=st.integers(1, 3), rope_on=st.booleans(), alibi=st.booleans(),
       temperature=st.sampled_from([0.5, 1.0, 3.0]), seed=st.integers(0, 10_000),
       edits=st.lists(st.tuples(st.sampled_from("QKV"), st.integers(0, 99), st.integers(0, 99),
                                st.integers(1, 3), st.integers(1, 3)), min_size=1, max_size=5))
def test_edits_applied_in_place_equal_a_whole_recompute(lq, lk, heads, data, d_mult, dv, rope_on, alibi,
                                                         temperature, seed, edits):
    kv = data.draw(st.sampled_from(kv_head_options(heads)))
    mats = cross(lq, lk, heads, kv, d=d_mult * 2, dv=dv, seed=seed)
    s = Settings(heads=heads, kv_heads=kv, rope=rope_on, positions="alibi" if alibi else "none",
                 temperature=temperature, rope_offset=seed % 5)
    result = rc.recompute(mats, s)
    assert_same(result, run_pipeline(mats, s))
    edit_and_compare(result, mats, s, edits, seed)


@pytest.mark.parametrize("kv", [1, 2, 4])
def test_a_whole_grouped_recompute_is_the_pipeline_bit_for_bit(kv):
    mats, s = cross(lq=6, lk=6, heads=4, kv=kv, d=2, dv=3), Settings(heads=4, kv_heads=kv, causal=True)
    assert_same(rc.recompute(mats, s), run_pipeline(mats, s), exact=True)


def test_buffers_are_kept_only_when_lq_and_lk_still_fit():
    s = Settings(heads=2)
    first = rc.recompute(cross(3, 5), s)
    again = rc.recompute(cross(3, 5, seed=1), s, previous=first)
    assert again.heads.scores is first.heads.scores
    other = rc.recompute(cross(5, 3), s, previous=first)
    assert other.heads.scores is not first.heads.scores and other.heads.scores.shape == (2, 5, 3)


def test_the_cost_counts_queries_times_keys():
    s = Settings(heads=2)
    assert rc.full_cost(cross(2, 40), s) == rc.full_cost(cross(40, 2), s) == rc.full_cost(cross(8, 10), s)
    assert rc.full_cost(cross(4, 40), s) == 2 * rc.full_cost(cross(2, 40), s)
    m = projected_cross()
    assert rc.full_cost(m, Settings(source="projected", heads=2, kv_heads=1)) > 0


# ----- shape edits keep a cross session consistent ----------------------------------------------

def test_token_edits_follow_the_right_axis():
    m = {"Q": np.ones((3, 4)), "K": np.ones((5, 2)), "V": np.ones((5, 2)), "X": np.ones((3, 6)),
         "X_src": np.ones((5, 6))}
    added = insert_along(m, "Lq", 1, cross=True, grouped=True)
    assert (added["Q"].shape, added["X"].shape, added["K"].shape) == ((4, 4), (4, 6), (5, 2))
    added = insert_along(m, "L", 0, cross=True, grouped=True)
    assert (added["Q"].shape, added["K"].shape, added["V"].shape, added["X_src"].shape) == (
        (3, 4), (6, 2), (6, 2), (6, 6))
    shuffled = permute_tokens({"Q": np.arange(3.0)[:, None], "K": np.arange(5.0)[:, None]}, [2, 1, 0],
                              "Lq", cross=True)
    np.testing.assert_array_equal(shuffled["Q"][:, 0], [2, 1, 0])
    plain = insert_along({"Q": np.ones((3, 2)), "K": np.ones((3, 2)), "V": np.ones((3, 1))}, "L", 0)
    assert all(a.shape[0] == 4 for a in plain.values())   # self-attention: one token axis, as before


def test_projections_reproducing_a_cross_session_change_no_number():
    m = cross(lq=3, lk=5, heads=2, kv=1, d=2, dv=3)
    made = projections_reproducing(m["Q"], m["K"], m["V"], cross=True, concat_width=6)
    s = Settings(source="projected", heads=2, kv_heads=1)
    r, direct = run_pipeline(made, s), run_pipeline(m, Settings(heads=2, kv_heads=1))
    np.testing.assert_allclose(r.q, m["Q"], rtol=0, atol=0)
    np.testing.assert_allclose(r.k, m["K"], rtol=0, atol=0)
    np.testing.assert_allclose(r.heads.output, direct.heads.output, rtol=1e-14)
