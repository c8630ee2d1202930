"""The model in parts: refusals the caller gets, transactions, the recompute phases, the selection."""
import numpy as np
import pytest

from explorer.core.presets import demo_session
from explorer.model import AttentionModel, Refusal
from explorer.model.phases import FAILED, TRANSITIONS, UNREADABLE, WORKING, Phase


@pytest.fixture
def model(qapp):
    m = AttentionModel(demo_session())
    yield m
    m.shutdown()
    m.deleteLater()


def test_a_refused_edit_returns_its_reason(model):
    done = model.set_cell("V", 0, 0, float("nan"))
    assert isinstance(done, Refusal) and not done
    assert "V[猫, d0]" in done.reason and "finite" in done.reason
    heads = model.set_param("heads", 2)  # the demo's widths are 3
    assert not heads and "heads is 2, which does not divide the Q/K width 3" in heads.reason
    assert heads.reason.endswith(": 1, 3)")  # the valid counts
    assert model.set_cell("V", 0, 0, 0.5) is True


def test_the_heads_refusal_names_the_projected_width_after_a_widening(model):
    assert model.set_param("source", "projected") and model.add_dim("qk")
    model.flush()
    assert model.widths() == (4, 3)
    done = model.set_param("heads", 3)
    assert not done and "the Q/K width 4" in done.reason  # the projected width, not Q's old 3


def test_a_transaction_is_one_undo_step(model):
    q0, k0 = model.matrix("Q").copy(), model.matrix("K").copy()
    with model.transaction("Three edits") as done:
        model.set_cell("Q", 0, 0, 1.5)
        model.set_cell("K", 1, 2, -2.0)
        model.set_param("causal", True)
    assert done and model.undo_stack.count() == 1 and model.undo_stack.undoText() == "Three edits"
    model.flush()
    assert model.matrix("Q")[0, 0] == 1.5 and model.matrix("K")[1, 2] == -2.0 and model.settings.causal
    assert model.results.heads.weights[0][0, 1:].sum() == 0.0  # the causal mask is in the results
    model.undo_stack.undo()
    model.flush()
    np.testing.assert_array_equal(model.matrix("Q"), q0)
    np.testing.assert_array_equal(model.matrix("K"), k0)
    assert not model.settings.causal


def test_a_refused_edit_takes_back_the_whole_transaction(model, qtbot):
    messages = []
    model.message.connect(messages.append)
    q0 = model.matrix("Q").copy()
    reached = []
    with model.transaction("Half and half") as done:
        model.set_cell("Q", 0, 0, 9.0)
        model.set_cell("Q", 1, 1, np.inf)  # refused: the block ends here
        reached.append(True)
    assert not done and "finite" in done.refusal.reason and reached == []
    assert model.undo_stack.count() == 0 and model.undo_stack.isClean()
    np.testing.assert_array_equal(model.matrix("Q"), q0)
    assert messages == [done.refusal.reason]
    model.flush()
    assert model.results.q[0, 0] == q0[0, 0]


def test_a_transaction_that_changes_nothing_leaves_no_step(model):
    with model.transaction("Nothing") as done:
        model.set_cell("Q", 0, 0, 7.0)
        model.set_cell("Q", 0, 0, float(demo_session().matrices["Q"][0, 0]))
    assert done and model.undo_stack.count() == 0


def test_the_selection_is_not_an_undo_step_but_is_saved(model):
    model.set_param("heads", 3)
    model.set_selection(row=2, head=1)
    assert model.undo_stack.count() == 1
    session = model.to_session()
    assert (session.settings.selected_row, session.settings.selected_head) == (2, 1)
    model.undo_stack.undo()  # back to one head: the head selection is clamped, the row stays
    assert (model.settings.selected_row, model.settings.selected_head) == (2, 0)


def test_history_moves_on_edits_undo_and_redo(model):
    seen = []
    model.history_moved.connect(seen.append)
    start = model.history_index()
    model.set_cell("Q", 0, 0, 2.0)
    model.undo_stack.undo()
    model.undo_stack.redo()
    assert seen == [start + 1, start, start + 1] and model.history_index() == start + 1


def test_every_phase_has_a_next_phase_for_every_event():
    for event, table in TRANSITIONS.items():
        assert set(table) == set(Phase), event


def test_the_phase_table_keeps_unreadable_results_unreadable_until_done():
    for phase in UNREADABLE:
        for event in ("SUBMIT", "REWRITE", "FAIL", "DONE_OLDER"):
            assert TRANSITIONS[event][phase] in UNREADABLE, (event, phase)
    for phase in Phase:
        assert TRANSITIONS["DONE"][phase] is Phase.CURRENT
        assert TRANSITIONS["FAIL"][phase] in FAILED
        assert TRANSITIONS["LOAD"][phase] is Phase.LOADING
        assert TRANSITIONS["SUBMIT"][phase] in WORKING


def test_a_failed_recompute_is_a_phase_and_flush_tries_again(model, monkeypatch):
    from explorer.core.errors import ExplorerError
    from explorer.model import coordinator

    real = coordinator.recompute

    def broken(*args, **kwargs):
        raise ExplorerError("no room")

    monkeypatch.setattr(coordinator, "recompute", broken)
    model.set_param("temperature", 2.0)
    model.flush()
    assert model.coordinator.phase is Phase.STALE and model.failure == "no room" and not model.up_to_date
    monkeypatch.setattr(coordinator, "recompute", real)
    model.flush()
    assert model.coordinator.phase is Phase.CURRENT and model.failure is None and model.up_to_date


# ----- transactions that are taken back ------------------------------------------------------------
def test_a_refused_transaction_puts_the_selection_back_on_the_same_token(model):
    model.set_selection(row=2)  # 红色
    with model.transaction("Insert a token first, then a bad value") as done:
        model.add_token(at=0)  # the selection follows its token to row 3 ...
        model.set_cell("Q", 0, 0, np.inf)  # ... and the whole step is refused
    assert not done and model.tokens == ("猫", "追", "红色", "激光点")
    assert model.settings.selected_row == 2 and model.tokens[model.settings.selected_row] == "红色"


def test_an_exception_inside_a_transaction_puts_the_selection_back_too(model):
    model.set_selection(row=1)
    with pytest.raises(RuntimeError):
        with model.transaction("Broken"):
            model.add_token(at=0)
            raise RuntimeError("a bug in the caller")
    assert len(model.tokens) == 4 and model.settings.selected_row == 1


def test_a_transaction_that_never_changed_the_state_sends_no_signal(model, qtbot):
    from PySide6.QtWidgets import QApplication

    seen = []
    model.changed.connect(seen.append)
    model.state_changed.connect(seen.append)
    with model.transaction("Nothing at all"):
        pass
    with model.transaction("Refused at once") as done:
        model.set_param("temperature", 99.0)
    QApplication.processEvents()  # the 0-ms timer a scheduled recompute would run on
    assert not done and seen == [] and not model.pending
    assert model.undo_stack.count() == 0


def test_undo_and_redo_inside_a_transaction_never_write_into_an_earlier_state(model):
    model.set_param("causal", True)
    before = model.state  # the step's own state: what undoing the transaction below goes back to
    q_before = before.matrices["Q"].copy()
    with model.transaction("Edit, undo and redo, edit, refused") as done:
        model.set_cell("Q", 0, 0, 5.0)
        model.undo_stack.undo()
        model.undo_stack.redo()
        model.set_cell("Q", 0, 1, 6.0)
        model.set_cell("Q", 0, 2, np.nan)
    assert not done
    np.testing.assert_array_equal(before.matrices["Q"], q_before)
    np.testing.assert_array_equal(model.matrix("Q"), q_before)
    assert model.settings.causal and model.undo_stack.index() == 1


# ----- the messages of a refused setting ----------------------------------------------------------------
def test_the_rope_refusals_say_which_head_counts_are_allowed(qapp):
    from explorer.core.presets import random_session

    model = AttentionModel(random_session(4, 6, seed=1))  # Q/K and V widths 6
    try:
        assert model.set_param("rope", True)
        done = model.set_param("heads", 6)  # d_h = 1
        assert not done and "d_h = 1 is odd" in done.reason
        assert "1, 3" in done.reason  # with RoPE: d_h = 6 or 2
        assert model.set_param("rope", False) and model.set_param("heads", 6)
        done = model.set_param("rope", True)
        assert not done and "1, 3" in done.reason
    finally:
        model.shutdown()
    demo = AttentionModel(demo_session())  # Q/K width 3: no head count gives an even d_h
    try:
        done = demo.set_param("rope", True)
        assert not done and "d_h = 3 is odd" in done.reason and "even Q/K width" in done.reason
    finally:
        demo.shutdown()


def test_refusals_name_a_setting_as_the_controls_do(model):
    done = model.set_param("rope_base", 5.0)
    assert not done and done.reason == "RoPE base is 5.0; it must lie in 100..1e+08"
    done = model.set_param("temperature", 99)
    assert not done and done.reason == "temperature is 99.0; it must lie in 0.05..20"


def test_an_imported_matrix_is_copied(model):
    v = np.ones((4, 3))
    assert model.replace_matrix("V", v)
    model.set_cell("V", 0, 0, 5.0)
    assert v[0, 0] == 1.0
