"""The model with the shapes real models use: cross-attention (Lq ≠ Lk) and grouped K/V heads."""
import math

import numpy as np
import pytest

from explorer.core import session_check
from explorer.core.presets import demo_session, grouped_query_session, translation_session
from explorer.core.session import load_session, save_session
from explorer.model import AttentionModel
from explorer.model import edits as edits_module


@pytest.fixture
def cross(qapp):
    m = AttentionModel(translation_session())
    yield m
    m.shutdown()


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_a_cross_session_opens_with_rectangular_results(cross):
    assert cross.cross and len(cross.query_tokens) == 7 and len(cross.tokens) == 4
    w = cross.results.heads.weights[0]
    q, k = cross.matrix("Q"), cross.matrix("K")
    np.testing.assert_allclose(w, softmax(q @ k.T / math.sqrt(q.shape[1])), rtol=0, atol=1e-12)  # by definition
    assert w.shape == (7, 4)


def test_query_tokens_are_edited_on_their_own_and_saved(cross, tmp_path):
    assert cross.add_token(side="queries", name="today") and cross.rename_token(0, "A", side="queries")
    assert cross.remove_token(3)  # a key token: K and V lose a row, Q keeps its 8
    cross.flush()
    assert cross.query_tokens[0] == "A" and cross.query_tokens[-1] == "today" and len(cross.tokens) == 3
    assert cross.matrix("Q").shape == (8, 4) and cross.matrix("K").shape == (3, 4)
    assert cross.results.heads.weights.shape == (1, 8, 3)
    save_session(cross.to_session(), tmp_path / "cross.json")
    back = load_session(tmp_path / "cross.json")
    assert back.query_tokens == cross.query_tokens and back.tokens == cross.tokens
    np.testing.assert_array_equal(back.matrices["Q"], cross.matrix("Q"))


def test_the_causal_mask_is_refused_for_a_cross_session(cross):
    done = cross.set_param("causal", True)
    assert not done and done.reason.startswith("causal cannot be on in a cross-attention session")
    assert not cross.settings.causal and cross.undo_stack.count() == 0


def test_switching_to_separate_query_tokens_is_one_step_and_changes_no_number(qapp):
    m = AttentionModel(demo_session())
    before = m.results.heads.output.copy()
    assert m.set_cross(True)
    m.flush()
    assert m.cross and m.query_tokens == m.tokens and m.undo_stack.count() == 1
    np.testing.assert_array_equal(m.results.heads.output, before)
    assert m.add_token(side="queries", name="extra")
    done = m.set_cross(False)
    assert not done and "5 query tokens and 4 tokens" in done.reason
    m.undo_stack.undo()
    assert m.set_cross(False) and not m.cross
    m.undo_stack.undo()
    m.undo_stack.undo()
    assert not m.cross


def test_shuffling_keys_moves_weight_columns_and_leaves_the_output(cross):
    before_w = cross.results.heads.weights[0].copy()
    before_o = cross.results.heads.output.copy()
    assert cross.shuffle_tokens(seed=3)
    cross.flush()
    perm = [cross.tokens.index(t) for t in translation_session().tokens]  # where each old key went
    np.testing.assert_allclose(cross.results.heads.weights[0][:, perm], before_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cross.results.heads.output, before_o, rtol=0, atol=1e-12)
    assert cross.shuffle_result().equivariant


def test_shuffling_queries_permutes_the_output_rows(cross):
    before = cross.results.heads.output.copy()
    assert cross.shuffle_tokens(seed=1, side="queries")
    cross.flush()
    perm = [translation_session().query_tokens.index(t) for t in cross.query_tokens]
    np.testing.assert_allclose(cross.results.heads.output, before[perm], rtol=0, atol=1e-12)


def test_grouped_heads_read_their_groups_kv_head(qapp):
    m = AttentionModel(grouped_query_session())
    q, k, v = (m.matrix(n) for n in "QKV")
    # 8 query heads of d_h = 2; K and V hold 2 K/V heads: query heads 0-3 read K/V head 0 (repeat_kv order)
    h = 5
    qh, kh, vh = q[:, 2 * h:2 * h + 2], k[:, 2:4], v[:, 2:4]
    s = qh @ kh.T / math.sqrt(2)
    s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
    w = softmax(s)
    np.testing.assert_allclose(m.results.heads.weights[h], w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.results.heads.concat[:, 2 * h:2 * h + 2], w @ vh, rtol=0, atol=1e-12)


def test_kv_heads_pool_and_repeat_k_and_v_as_one_undo_step(qapp):
    m = AttentionModel(grouped_query_session())
    k2 = m.matrix("K").copy()
    assert m.kv_head_options() == [1, 2, 4, 8]
    assert m.set_param("kv_heads", 1)  # MQA: the two K/V heads averaged
    np.testing.assert_allclose(m.matrix("K"), (k2[:, :2] + k2[:, 2:]) / 2, rtol=0, atol=1e-15)
    assert m.set_param("kv_heads", 8)  # as many as heads: stored as 0, K repeated 8 times
    assert m.settings.kv_heads == 0 and m.matrix("K").shape == (6, 16)
    m.flush()
    m.undo_stack.undo()
    m.undo_stack.undo()
    np.testing.assert_array_equal(m.matrix("K"), k2)
    assert m.settings.kv_heads == 2


def test_an_invalid_kv_heads_is_refused_with_the_valid_list(qapp):
    m = AttentionModel(grouped_query_session())
    done = m.set_param("kv_heads", 3)
    assert not done and "1, 2, 4, 8" in done.reason and m.settings.kv_heads == 2


def test_growing_a_matrix_past_the_cell_limit_is_refused_before_it_is_made(qapp, monkeypatch):
    """The cells a matrix would hold are counted before it is allocated (MAX_CELLS, here lowered to 12 so the
    demo's 4 × 3 matrices are at it): + token, + dimension and the switch to projected mode say which matrix
    would be too large, and nothing changes."""
    monkeypatch.setattr(session_check, "MAX_CELLS", 12)
    model = AttentionModel(demo_session())
    try:
        made = []
        monkeypatch.setattr(edits_module, "insert_along", lambda *a, **k: made.append(a))
        done = model.add_token()
        assert not done and done.reason == "cannot add a token: matrices.Q would have 5×3 = 15 cells; the most is 12"
        done = model.add_dim("qk")
        assert not done and done.reason == ("cannot add a dimension to Q and K: matrices.Q would have 4×4 = 16 cells; "
                                            "the most is 12")
        done = model.set_param("source", "projected")
        assert not done and done.reason == ("cannot switch to projected mode: matrices.X would have 4×9 = 36 cells; "
                                            "the most is 12")
        assert made == [] and model.undo_stack.count() == 0 and model.settings.source == "direct"
    finally:
        model.shutdown()
