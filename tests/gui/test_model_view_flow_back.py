"""Edits flow back into the model (F25) in the Model view: click a head of the shipped model, edit one of
its numbers, and what the model says next changes; undo brings back what it said. Layers and heads
count from 1 wherever the window shows them, as the Heads panel counts."""
import threading
from html import unescape

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QScrollArea

from explorer.app import build_parser, open_model
from explorer.model import AttentionModel
from explorer.model.flow_back import CLOSED, MISFIT, NONE, READY, STOPPED, WAITING
from explorer.panels.model_view import ModelViewPanel
from explorer.panels.model_view.next_tokens import percent
from tests.core.checkpoint_factory import gpt2_checkpoint
from tests.gui.panel_helpers import show_panel

TEXT = "the cat sat on the mat and the dog ran to the door the cat sat on the mat and the dog ran"
INDUCTION = (1, 0)  # layer 2 head 1 on screen


def ran(model, qtbot):
    ck = model.checkpoints
    qtbot.waitUntil(lambda: ck.model is not None, timeout=10_000)
    ck.finish()
    qtbot.waitUntil(lambda: ck.latest is not None and not ck.busy, timeout=20_000)
    return ck.latest.run


def settled(model, qtbot, state=READY):
    flow = model.flow_back
    qtbot.waitUntil(lambda: flow.state == state and not flow.busy, timeout=20_000)
    return flow.result


def click_head(qtbot, panel, layer, head):
    qtbot.mouseClick(panel.grid, Qt.MouseButton.LeftButton, pos=panel.grid.cell_rect(layer, head).center().toPoint())


@pytest.fixture
def view(qtbot):
    model, panel = show_panel(qtbot, ModelViewPanel, size=(900, 700))
    panel.text.setText(TEXT)
    panel.run()
    yield model, panel, ran(model, qtbot)
    model.shutdown()


def test_an_edited_cell_changes_what_the_model_says_next_and_undo_brings_it_back(window, qtbot, ui):
    panel = window.open_model()
    panel.text.setText(TEXT)
    panel.run()
    run = ran(window.model, qtbot)
    said = run.next_token_probabilities()
    click_head(qtbot, panel, *INDUCTION)
    assert window.model.undo_stack.undoText() == "Open tiny-induction · layer 2 head 1"
    assert window.model.state.model_head.describe() == "layer 2 head 1 of tiny-induction"
    before = settled(window.model, qtbot)
    assert before.moved < 1e-5  # the head as the model has it: the model's own distribution
    np.testing.assert_allclose([t.after for t in before.after_top], np.sort(said)[::-1][:5], atol=1e-5)
    assert "±0" in panel.next_tokens.numbers.text() and "−" not in panel.next_tokens.numbers.text()

    ui.type_into(qtbot, window.panels["editor"].views["Wv"], 0, 0, "10")
    assert window.model.matrix("Wv")[0, 0] == 10
    after = settled(window.model, qtbot)
    assert after is not before and after.moved > 0.5  # the induction head now copies something else
    top = after.after_top[0]
    assert top.label != before.after_top[0].label and top.before == pytest.approx(said[top.token_id], abs=1e-6)
    shown = panel.next_tokens.numbers.text()
    assert top.label in shown and percent(top.after) in shown
    favourite = before.after_top[0]  # the old favourite lost: the line above the table says to what
    assert f"“{favourite.label}” {percent(favourite.before)} → <b>" in panel.next_tokens.status.text()
    # what flowed back is the session as edited: the same pass run from the model's own API agrees
    edited = window.model.checkpoints.model.run_ids(run.ids, edits={INDUCTION: window.model.to_session()})
    np.testing.assert_allclose([t.after for t in after.after_top],
                               np.sort(edited.next_token_probabilities())[::-1][:5], atol=1e-9)

    window.actions["undo"].trigger()
    again = settled(window.model, qtbot)
    assert again.moved < 1e-5 and [t.label for t in again.after_top] == [t.label for t in before.after_top]
    assert "±0" in panel.next_tokens.numbers.text() and "−" not in panel.next_tokens.numbers.text()


def test_a_small_change_of_probability_is_shown_with_the_digits_it_needs():
    from explorer.panels.model_view.next_tokens import points
    assert points(0.12345) == "+12.3" and points(-0.004) == "−0.4"
    assert points(-0.0001) == "−0.01" and points(0.00043) == "+0.043"  # 0.05% → 0.007% is not "±0"
    assert points(3e-6) == "±0" and points(-2e-5) == "±0"  # float32's noise on an unedited head
    # two significant digits: a change is never written larger than the probabilities it is between —
    # 0.001% → 0.06% is +0.059 points, not "+0.1" (more than the token's whole 0.06%)
    assert points(0.00059) == "+0.059" and points(0.00046) == "+0.046" and points(-0.000072) == "−0.0072"
    assert points(0.0347) == "+3.5" and points(-0.00999) == "−1"
    assert points(0.996) == "+99.6"  # never "+1e+02"


def test_the_sessions_head_stays_outlined_through_its_edits(window, qtbot, ui):
    panel = window.open_model()
    panel.text.setText(TEXT)
    panel.run()
    ran(window.model, qtbot)
    assert panel.grid.selected is None
    click_head(qtbot, panel, *INDUCTION)
    assert panel.grid.selected == INDUCTION and "outlined head is the session" in panel.info.text()
    settled(window.model, qtbot)
    ui.type_into(qtbot, window.panels["editor"].views["Wv"], 0, 0, "10")
    assert panel.grid.selected == INDUCTION  # an edit keeps it: the session is still that head
    window.actions["undo"].trigger()
    window.actions["undo"].trigger()  # back before the head was opened: the demo is no head
    assert panel.grid.selected is None and "outlined" not in panel.info.text()
    window.actions["redo"].trigger()
    assert panel.grid.selected == INDUCTION


def test_the_generation_note_on_the_sessions_edits_goes_with_the_session(window, qtbot):
    panel = window.open_model()
    panel.text.setText(TEXT)
    panel.run()
    ran(window.model, qtbot)
    click_head(qtbot, panel, *INDUCTION)
    panel.n_new.setValue(2)
    panel.generate_button.click()
    window.model.checkpoints.finish()
    qtbot.waitUntil(lambda: window.model.checkpoints.generation is not None, timeout=20_000)
    assert "the session's edits of layer 2 head 1" in panel.generated.text()
    window.actions["undo"].trigger()  # the demo again: no head of the model
    assert "K/V cache" in panel.generated.text() and "session's edits" not in panel.generated.text()


def test_the_view_says_plainly_when_the_session_is_not_a_model_head_or_its_model_is_closed(view, qtbot,
                                                                                         tmp_path):
    model, panel, run = view
    flow, text = model.flow_back, panel.next_tokens.status.text
    assert flow.state == NONE and "not a head of a real model" in text()
    assert not panel.next_tokens.numbers.isVisible()
    assert panel.open_head(*INDUCTION)
    settled(model, qtbot)
    assert panel.next_tokens.numbers.isVisible() and "after “ran”" in panel.next_tokens.title.text()
    assert "of the probability moved" in text()
    gpt2_checkpoint(tmp_path / "other")
    panel.open_model(str(tmp_path / "other"))  # another model: the head's model is closed
    qtbot.waitUntil(lambda: flow.state == CLOSED, timeout=10_000)
    assert "layer 2 head 1 of tiny-induction" in text() and "not the open model" in text()
    assert not panel.next_tokens.numbers.isVisible()
    panel.open_model()  # the shipped model again: the session flows back into it again
    settled(model, qtbot)
    assert flow.result.moved < 1e-5
    model.undo_stack.undo()  # back to the demo
    qtbot.waitUntil(lambda: flow.state == NONE)
    assert "not a head of a real model" in text() and not panel.next_tokens.numbers.isVisible()


def test_a_session_that_no_longer_fits_its_head_says_why_and_undo_mends_it(view, qtbot):
    model, panel, run = view
    panel.open_head(0, 1)
    settled(model, qtbot)
    model.add_token()
    qtbot.waitUntil(lambda: model.flow_back.state == MISFIT)
    assert "25 tokens and the model's text 24" in unescape(panel.next_tokens.status.text())
    model.undo_stack.undo()
    assert settled(model, qtbot).moved < 1e-5


def test_a_pass_can_be_stopped_and_run_again(view, qtbot):
    model, panel, run = view
    panel.open_head(*INDUCTION)
    settled(model, qtbot)
    model.set_param("temperature", 4.0)
    assert model.flow_back.state == WAITING and panel.next_tokens.action.text() == "Cancel"
    panel.next_tokens.action.click()
    assert model.flow_back.state == STOPPED and "before the last edit" in panel.next_tokens.status.text()
    assert panel.next_tokens.action.text() == "Run again"
    panel.next_tokens.action.click()
    assert settled(model, qtbot).moved > 1e-3  # a hotter induction head spreads its copying a little


def test_a_pass_overtaken_by_a_newer_edit_is_never_shown_even_one_that_runs_to_its_end(view, qtbot, monkeypatch):
    """The first edit's pass is held until the second edit has asked for its own, then runs on to its end (it is
    not let stop when told): what it found is dropped, and what the second edit's pass found is shown."""
    import explorer.models as models
    model, panel, run = view
    panel.open_head(*INDUCTION)
    settled(model, qtbot)
    flow, real = model.flow_back, models.next_token_change
    opened, entered, found, shown = threading.Event(), threading.Event(), [], []

    def held(m, source, session, **kwargs):
        entered.set()
        assert opened.wait(20), "the test never opened the gate"
        change, baseline = real(m, source, session, **{**kwargs, "cancelled": lambda: False})
        found.append((session.settings.temperature, change))
        return change, baseline

    monkeypatch.setattr(models, "next_token_change", held)
    for signal in (flow.changed, flow.work.changed):
        signal.connect(lambda: shown.append(flow.result))
    model.set_param("temperature", 4.0)
    qtbot.waitUntil(entered.is_set, timeout=10_000)
    model.set_param("temperature", 2.0)
    model.flush()
    qtbot.waitUntil(lambda: flow.work.key[1][1] == model.revision, timeout=10_000)  # the second pass asked for
    opened.set()
    after = settled(model, qtbot)
    assert [t for t, _ in found] == [4.0, 2.0]
    first, second = found[0][1], found[1][1]
    assert after is second and not any(r is first for r in shown)
    assert second.moved != pytest.approx(first.moved)  # (the two passes' numbers differ: a dropped one would show)

def test_layers_and_heads_count_from_1_in_the_view_the_titles_and_the_command_line(view, qtbot, window):
    model, panel, run = view
    panel._hovered(0, 1)
    assert "layer 1, head 2" in panel.info.text() and "previous-token head" in panel.info.text()
    assert panel.grid._first == 1
    panel.open_head(0, 1)
    assert model.undo_stack.undoText() == "Open tiny-induction · layer 1 head 2"
    # --layer 2 --head 1 is the induction head the Model view shows as layer 2, head 1
    args = build_parser().parse_args(["--model", "embedded", "--text", TEXT, "--layer", "2", "--head", "1"])
    assert open_model(window, args) is None
    assert window.model.undo_stack.undoText() == "Open tiny-induction · layer 2 head 1"
    assert window.model.undo_stack.isClean()  # nothing edited yet: quitting asks nothing
    window.model.flush()
    np.testing.assert_allclose(window.model.results.heads.weights[0], run.attentions[INDUCTION], atol=1e-5)
    for bad, said in ((["--layer", "0", "--head", "1"], "count from 1"), (["--layer", "3", "--head", "1"], "1…2")):
        problem = open_model(window, build_parser().parse_args(["--model", "embedded", *bad]))
        assert said in problem


def docked_view(qtbot, size):
    """(model, dock, panel): the Model view in a resizable scroll area (as the window holds every panel),
    shown at ``size``, the shipped model run on TEXT."""
    model = AttentionModel()
    dock = QScrollArea()
    qtbot.addWidget(dock)
    dock.setWidgetResizable(True)
    panel = ModelViewPanel(model)
    dock.setWidget(panel)
    dock.resize(*size)
    dock.show()
    panel.text.setText(TEXT)
    panel.run()
    ran(model, qtbot)
    return model, dock, panel


def test_the_heads_and_the_next_tokens_sit_side_by_side_where_they_fit(qtbot):
    """In a dock: beside each other when the dock is wide enough for both, one above the other when it is not."""
    model, dock, panel = docked_view(qtbot, (900, 700))
    try:
        panel.open_head(*INDUCTION)
        settled(model, qtbot)
        qtbot.waitUntil(lambda: panel.split.direction() == QBoxLayout.Direction.LeftToRight)
        qtbot.wait(20)
        assert panel.next_tokens.numbers.isVisible()
        assert panel.next_tokens.geometry().left() >= panel.grid_area.geometry().right()  # beside, not over it
        dock.resize(420, 700)
        qtbot.waitUntil(lambda: panel.split.direction() == QBoxLayout.Direction.TopToBottom)
        qtbot.wait(20)
        assert panel.next_tokens.geometry().top() >= panel.grid_area.geometry().bottom()  # below, not over it
        dock.resize(900, 700)
        qtbot.waitUntil(lambda: panel.split.direction() == QBoxLayout.Direction.LeftToRight)
    finally:
        model.shutdown()
