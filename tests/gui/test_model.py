"""The shared model: edits as undo steps, one recompute per event-loop turn, no change → no signal."""
import numpy as np
import pytest

from explorer.core import attention, multi_head_attention
from explorer.core.presets import demo_session, random_session
from explorer.model import SELECTION, STRUCTURE, VALUES, AttentionModel
from tests.gui.same_numbers import assert_same_numbers


@pytest.fixture
def model(qapp):
    m = AttentionModel(demo_session())
    yield m
    m.deleteLater()


def record(model):
    seen = []
    model.changed.connect(seen.append)
    return seen


def expected(model):
    q, k, v = (model.matrix(n) for n in "QKV")
    return attention(q, k, v, causal=model.settings.causal, temperature=model.settings.temperature)


def test_starts_on_the_demo_with_results(model):
    assert model.tokens == ("猫", "追", "红色", "激光点")
    assert_same_numbers(model.results.heads.weights[0], expected(model).weights)
    assert model.undo_stack.isClean()


def test_many_edits_in_one_turn_recompute_once(model, qtbot):
    seen = record(model)
    for j in range(3):
        assert model.set_cell("Q", 1, j, 0.25 * j)
    assert seen == []  # nothing yet: the recompute waits for the event loop
    qtbot.waitUntil(lambda: len(seen) == 1)
    qtbot.wait(20)
    assert len(seen) == 1 and seen[0] & VALUES
    np.testing.assert_allclose(model.results.heads.scores[0], expected(model).scores, rtol=0, atol=0)


def test_no_change_no_signal(model, qtbot):
    seen = record(model)
    assert model.set_cell("K", 0, 0, model.matrix("K")[0, 0])
    assert model.set_param("causal", False)
    qtbot.wait(20)
    assert seen == [] and model.undo_stack.count() == 0


def test_refused_values_change_nothing(model):
    messages = []
    model.message.connect(messages.append)
    before = model.matrix("V").copy()
    for bad in (np.nan, np.inf, 1e7):
        assert not model.set_cell("V", 0, 0, bad)
    assert not model.set_block("V", 3, 2, np.ones((2, 2)))
    np.testing.assert_array_equal(model.matrix("V"), before)
    assert len(messages) == 4 and "does not fit" in messages[-1]
    assert model.undo_stack.count() == 0


def test_undo_redo_restore_cells_and_results(model):
    w0 = model.results.heads.weights.copy()
    model.set_cell("K", 2, 2, -3.0)
    model.flush()
    w1 = model.results.heads.weights.copy()
    assert not np.allclose(w0, w1)
    model.undo_stack.undo()
    model.flush()
    assert_same_numbers(model.results.heads.weights, w0)
    model.undo_stack.redo()
    model.flush()
    assert_same_numbers(model.results.heads.weights, w1)


def test_a_gesture_is_one_undo_step(model):
    model.begin_gesture()
    for v in np.linspace(0, 2, 25):
        model.set_cell("Q", 0, 0, v)
    model.end_gesture()
    model.begin_gesture()
    for t in (0.5, 0.7, 2.0):
        model.set_param("temperature", t)
    model.end_gesture()
    assert model.undo_stack.count() == 2
    model.undo_stack.undo()
    assert model.settings.temperature == 1.0
    model.undo_stack.undo()
    assert model.matrix("Q")[0, 0] == 0.5


def test_causal_and_temperature_match_the_core(model):
    model.set_param("causal", True)
    model.set_param("temperature", 0.5)
    model.flush()
    exp = expected(model)
    assert_same_numbers(model.results.heads.weights[0], exp.weights)
    assert np.all(np.triu(model.results.heads.weights[0], 1) == 0)


def test_heads_only_divisors(model):
    assert model.head_options() == [1, 3]
    assert not model.set_param("heads", 2)
    assert model.set_param("heads", 3)
    model.flush()
    q, k, v = (model.matrix(n) for n in "QKV")
    exp = multi_head_attention(q, k, v, 3)
    assert_same_numbers(model.results.heads.weights, exp.weights)
    assert model.results.scale == 1.0  # 1/√d_h with d_h = 1


def test_tokens_and_dimensions(model):
    seen = record(model)
    model.add_token(at=1, name="快")
    model.flush()
    assert model.tokens == ("猫", "快", "追", "红色", "激光点")
    assert all(model.matrix(n).shape[0] == 5 for n in "QKV")
    assert seen[-1] & STRUCTURE
    model.add_dim("qk")
    model.add_dim("v")
    model.flush()
    assert model.matrix("Q").shape == model.matrix("K").shape == (5, 4) and model.matrix("V").shape == (5, 4)
    model.remove_token(0)
    model.remove_dim("qk")
    model.rename_token(0, "fast")
    model.flush()
    assert model.tokens[0] == "fast" and model.matrix("K").shape == (4, 3)
    while model.undo_stack.canUndo():
        model.undo_stack.undo()
    model.flush()
    assert model.tokens == demo_session().tokens
    np.testing.assert_array_equal(model.matrix("Q"), demo_session().matrices["Q"])


def test_last_token_and_bad_names_refused(model):
    m = AttentionModel(random_session(1, 2))
    assert not m.remove_token(0)
    assert not model.rename_token(0, "  ")
    assert not model.rename_token(0, "x" * 500)
    m.deleteLater()


def test_selection_is_not_an_undo_step(model, qtbot):
    seen = record(model)
    model.set_selection(row=3)
    qtbot.waitUntil(lambda: bool(seen))
    assert seen == [SELECTION] and model.settings.selected_row == 3
    assert model.undo_stack.count() == 0


def test_replace_matrix_checks_shape(model):
    assert not model.replace_matrix("K", np.ones((3, 3)))
    assert model.replace_matrix("V", np.ones((4, 6)))
    assert model.matrix("V").shape == (4, 6)


def test_randomize_and_reset(model):
    model.randomize(seed=7)
    a = model.matrix("Q").copy()
    model.randomize(seed=7)
    np.testing.assert_array_equal(model.matrix("Q"), a)
    model.reset_to_preset()
    np.testing.assert_array_equal(model.matrix("Q"), demo_session().matrices["Q"])


def test_large_size_equals_the_core(qapp):
    m = AttentionModel(random_session(1024, 64, seed=3))
    m.set_param("heads", 8)
    m.set_param("causal", True)
    m.flush()
    q, k, v = (m.matrix(n) for n in "QKV")
    exp = multi_head_attention(q, k, v, 8, causal=True)
    assert_same_numbers(m.results.heads.output, exp.output)
    m.deleteLater()


def test_guesses_go_when_the_shape_changes_and_a_new_session_leaves_the_lesson(model):
    model.set_revealed(0)
    model.set_guess(1, 3, 3)
    model.remove_token(3)
    model.flush()
    assert model.guesses == {}
    model.load(demo_session())
    assert model.revealed == 3 and model.guesses == {}


def test_an_imported_matrix_that_does_not_fit_is_refused_as_a_person_counts(model):
    """The walkthrough's wrong.csv into Q was refused as "imported Q: matrices.Q has 2 rows but there are 4 tokens"
    (a session file's field name, no file named); the demo has 4 tokens and d = 3."""
    done = model.replace_matrix("Q", np.ones((2, 3)), source="wrong.csv")
    assert not done and done.reason == "wrong.csv: Q has 2 rows, but there are 4 tokens (one row per token)"
    done = model.replace_matrix("K", np.ones((4, 5)), source="k.npy")
    assert not done and done.reason == "k.npy: K has 5 columns, but Q has 3 columns (Q and K need the same width d_k)"
    assert model.replace_matrix("V", np.ones((4, 5)), source="v.csv")  # V's width is its own
