"""Projected mode, positions and shuffling in the shared model (issue 5)."""
import numpy as np
import pytest

from explorer.core import multi_head_attention, sinusoidal_positions
from explorer.core.presets import demo_session
from explorer.model import AttentionModel
from tests.gui.same_numbers import assert_same_numbers


@pytest.fixture
def model(qapp):
    m = AttentionModel(demo_session())
    yield m
    m.deleteLater()


def test_switching_to_projected_changes_no_number(model):
    before = model.results.heads.output.copy()
    assert model.set_param("source", "projected")
    model.flush()
    assert model.has("X") and model.matrix("X").shape == (4, 9)
    np.testing.assert_allclose(model.results.heads.output, before, rtol=0, atol=1e-15)
    np.testing.assert_allclose(model.results.q, model.matrix("Q"), rtol=0, atol=0)


def test_projected_output_is_the_chapter_formula(model):
    model.set_param("source", "projected")
    model.randomize(seed=3)
    model.set_param("heads", 3)
    model.flush()
    m = {n: model.matrix(n) for n in ("X", "Wq", "Wk", "Wv", "Wo")}
    x = m["X"]
    exp = multi_head_attention(x @ m["Wq"].T, x @ m["Wk"].T, x @ m["Wv"].T, 3, wo=m["Wo"])
    np.testing.assert_allclose(model.results.heads.output, exp.output, rtol=0, atol=1e-12)


def test_q_is_read_only_in_projected_mode(model):
    model.set_param("source", "projected")
    messages = []
    model.message.connect(messages.append)
    assert not model.set_cell("Q", 0, 0, 5.0)
    assert "edit X or W_q" in messages[-1]
    assert model.set_cell("X", 0, 0, 5.0)


def test_positions_need_projected_mode_and_change_the_output(model):
    assert not model.set_param("positions", "sinusoidal")
    model.set_param("source", "projected")
    model.flush()
    before = model.results.heads.output.copy()
    assert model.set_param("positions", "sinusoidal")
    model.flush()
    np.testing.assert_array_equal(model.results.x, model.matrix("X") + sinusoidal_positions(4, 9))
    assert not np.allclose(model.results.heads.output, before)
    model.set_param("source", "direct")
    assert model.settings.positions == "none"


def test_widths_in_projected_mode(model):
    model.set_param("source", "projected")
    model.add_dim("x")
    model.add_dim("qk")
    model.add_dim("out")
    model.flush()
    assert model.matrix("X").shape == (4, 10) and model.matrix("Wv").shape == (3, 10)
    assert model.matrix("Wq").shape == model.matrix("Wk").shape == (4, 10)
    assert model.matrix("Wo").shape == (4, 3)
    assert model.head_options() == [1]  # 4 and 3 share no divisor but 1
    model.add_token()
    assert model.matrix("X").shape[0] == 5 == model.matrix("Q").shape[0]


def test_shuffle_is_equivariant_without_positions_and_not_with(model):
    model.set_param("source", "projected")
    model.shuffle_tokens(seed=1)
    check = model.shuffle_result()
    assert check is not None and check.equivariant and check.max_difference < 1e-12
    model.undo_stack.undo()
    assert model.shuffle_result() is None
    model.set_param("positions", "sinusoidal")
    model.shuffle_tokens(seed=1)
    check = model.shuffle_result()
    assert not check.equivariant and check.max_difference > 1e-3


def test_shuffle_keeps_the_selected_token_and_undoes(model):
    model.set_selection(row=1)  # 追
    model.shuffle_tokens(seed=2)
    model.flush()
    assert model.tokens[model.settings.selected_row] == "追"
    assert sorted(model.tokens) == sorted(demo_session().tokens)
    model.undo_stack.undo()
    assert model.tokens == demo_session().tokens


def test_projected_session_round_trips(model, tmp_path):
    from explorer.core.session import load_session, save_session
    model.set_param("source", "projected")
    model.set_param("positions", "sinusoidal")
    model.flush()
    save_session(model.to_session(), tmp_path / "p.json")
    again = AttentionModel(load_session(tmp_path / "p.json"))
    again.flush()
    assert_same_numbers(again.results.heads.output, model.results.heads.output)
    again.deleteLater()


def test_rope_in_the_pipeline_matches_the_core(qapp):
    from explorer.core import rope
    from explorer.core.presets import random_session

    m = AttentionModel(random_session(6, 8, seed=4))
    assert m.set_param("heads", 2) and m.set_param("rope", True)
    m.set_param("rope_style", "interleaved")
    m.set_param("rope_offset", 5)
    m.flush()
    q, k, v = (m.matrix(n) for n in "QKV")
    pos = 5 + np.arange(6)
    qh = rope(q.reshape(6, 2, 4).transpose(1, 0, 2), pos, style="interleaved")
    kh = rope(k.reshape(6, 2, 4).transpose(1, 0, 2), pos, style="interleaved")
    scores = qh @ kh.transpose(0, 2, 1) / 2.0
    np.testing.assert_allclose(m.results.heads.scores, scores, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.results.q_in, q)
    m.deleteLater()


def test_rope_needs_an_even_head_width(model):
    messages = []
    model.message.connect(messages.append)
    assert not model.set_param("rope", True)  # demo: d = 3
    assert "odd" in messages[-1]
    model.add_dim("qk")  # d = 4
    assert model.set_param("rope", True)
    assert model.head_options() == [1, 2] or 4 not in model.head_options()
    model.remove_dim("qk")  # d = 3 again: RoPE turns itself off and says so
    assert not model.settings.rope and "RoPE is off" in messages[-1]


def test_a_shuffle_check_is_forgotten_after_undo_and_a_new_edit(model):
    model.shuffle_tokens(seed=1)
    assert model.shuffle_result().equivariant
    model.undo_stack.undo()
    model.set_cell("Q", 0, 0, 1.25)  # the same undo index as right after the shuffle
    assert model.shuffle_result() is None


def test_renaming_keeps_the_lesson_guesses(model):
    model.set_revealed(0)
    model.set_guess(1, 1, 2)
    model.rename_token(0, "cat")
    model.flush()
    assert model.guesses == {1: (1, 2)}


def test_importing_a_computed_matrix_is_refused_in_projected_mode(model):
    model.set_param("source", "projected")
    assert not model.replace_matrix("Q", np.ones((4, 3)))
