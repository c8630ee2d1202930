"""The Model view as a first-time user meets it: what a hovered head does (also as its tooltip), the
session named for the head it is, the model list naming the open model (after a failed open too), a
bad folder's message naming the folder and the file, the status line after Generate, File ▸ Open
model… offering the list, and the command line refusing --text/--layer/--head without --model."""
import json
import shutil
from html import unescape

import pytest
from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QBoxLayout, QToolTip

from explorer.models import EMBEDDED_MODEL
from explorer.panels.model_view import next_tokens
from tests.core.checkpoint_factory import llama_checkpoint
from tests.gui.panel_helpers import show_panel
from tests.gui.test_model_view_flow_back import (TEXT, click_head, docked_view, ran, settled,  # noqa: F401
                                                 view)  # (view: a fixture)

INDUCTION_WORDS = "the token after this token's earlier occurrence (induction)"


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the offscreen platform, on QToolTip
def test_a_hovered_induction_head_says_so_and_its_tooltip_too(view, qtbot):
    model, panel, run = view
    panel._hovered(1, 0)  # on a text typed twice the shipped model's layer 2 heads copy what came next
    assert INDUCTION_WORDS in unescape(panel.info.text()) and "an induction head" in panel.info.text()
    centre = panel.grid.cell_rect(1, 0).center().toPoint()
    QApplication.sendEvent(panel.grid, QHelpEvent(QEvent.Type.ToolTip, centre, panel.grid.mapToGlobal(centre)))
    qtbot.waitUntil(lambda: QToolTip.isVisible(), timeout=2000)
    assert "layer 2, head 1" in QToolTip.text() and INDUCTION_WORDS in unescape(QToolTip.text())
    QApplication.sendEvent(panel.grid, QHelpEvent(QEvent.Type.ToolTip, QPoint(1, 1), panel.grid.mapToGlobal(
        QPoint(1, 1))))  # the corner: no head there
    qtbot.waitUntil(lambda: not QToolTip.isVisible(), timeout=2000)


def test_an_opened_head_names_the_session_in_the_title_and_the_file_and_undo_names_it_back(window, qtbot,
                                                                                           tmp_path):
    panel = window.open_model()
    panel.text.setText(TEXT)
    panel.run()
    ran(window.model, qtbot)
    before = window.model.to_session().title
    assert window.windowTitle().startswith(before) and before.startswith("Demo")
    click_head(qtbot, panel, 1, 0)
    assert window.windowTitle().startswith("layer 2 head 1 of tiny-induction")
    assert window.model.to_session().title == "layer 2 head 1 of tiny-induction"
    assert window.documents.save_to(tmp_path / "head.json")
    assert json.loads((tmp_path / "head.json").read_text("utf-8"))["title"] == "layer 2 head 1 of tiny-induction"
    window.documents.path = None  # (as before the save: the window names the session, not its file)
    window.model.undo_stack.undo()  # back to the demo, named as before
    assert window.model.to_session().title == before and window.windowTitle().startswith(before)


def test_the_model_list_names_the_open_model_and_a_bad_folder_names_itself_and_changes_nothing(view, qtbot,
                                                                                              tmp_path):
    model, panel, run = view
    assert panel.choice.currentIndex() == 0  # the shipped model
    llama_checkpoint(tmp_path / "my-llama")
    panel.open_model(str(tmp_path / "my-llama"))
    ran(model, qtbot)
    assert panel.choice.currentText().startswith("my-llama — ") and str(tmp_path / "my-llama") in \
        panel.choice.currentText()
    assert panel.choice.currentIndex() == panel.choice.count() - 2  # "Other folder…" stays last
    shown = panel.choice.currentIndex()

    bad = tmp_path / "bad"
    shutil.copytree(EMBEDDED_MODEL, bad)
    (bad / "config.json").write_text('{"model_type": "llama", oops', encoding="utf-8")
    state, session = model.state, model.to_session()
    panel.choice.setCurrentIndex(panel.choice.count() - 1)  # "Other folder…", as a person picks it
    panel.open_model(str(bad))
    said = unescape(panel.status.text())
    assert str(bad) in said and "config.json: cannot be read as JSON" in said
    assert panel.choice.currentIndex() == shown  # the list names the model still open
    assert model.checkpoints.model.name == "my-llama" and model.state is state
    assert model.to_session().tokens == session.tokens
    panel.open_model()  # the shipped one again: its own entry, no new one
    assert panel.choice.currentIndex() == 0 and panel.choice.count() == shown + 2


def test_the_status_line_stays_after_generate_and_counts_one_token(view, qtbot):
    model, panel, run = view
    said = panel.status.text()
    assert "24 tokens" in said
    panel.n_new.setValue(2)
    panel.generate_button.click()
    model.checkpoints.finish()
    qtbot.waitUntil(lambda: model.checkpoints.generation is not None, timeout=20_000)
    assert panel.status.text() == said  # not blank: the model, the text and what to do
    panel.text.setText("")
    panel.run()
    ran(model, qtbot)
    qtbot.waitUntil(lambda: len(model.checkpoints.latest.run.tokens) == 1, timeout=20_000)
    assert "on 1 token —" in panel.status.text()


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")  # offscreen, on a popup
def test_file_open_model_offers_the_list_of_models(window, qtbot):
    window.actions["open_model"].trigger()
    panel = window.panels["model_view"]
    qtbot.waitUntil(lambda: panel.choice.view().isVisible(), timeout=2000)
    panel.choice.hidePopup()


def test_later_heads_that_moved_a_little_never_read_zero(view, qtbot):
    model, panel, run = view
    assert [next_tokens.share(c) for c in (0.42, 0.0031, 0.01)] == ["0.42", "0.003", "0.01"]
    panel.open_head(0, 1)
    change = settled(model, qtbot)
    fake = type("Change", (), {"layers": 2, "later_heads": [(1, 2, 0.004), (1, 0, 0.0004)]})()
    text = next_tokens.later_heads(fake, model.state.model_head)
    assert "layer 2 head 3 <b>0.004</b>" in text and "head 1" not in text
    assert change is not None


@pytest.mark.parametrize("args, said", [
    (["--text", "the cat"], "--text needs --model"),
    (["--layer", "2", "--head", "1"], "--layer and --head need --model"),
    (["session.json"], None),
])
def test_model_flags_without_a_model_are_refused(args, said):
    from explorer.app import build_parser, without_model
    problem = without_model(build_parser().parse_args(args))
    assert problem == said if said is None else problem.startswith(said)


def test_a_head_past_the_last_names_the_layers_and_the_heads(view, qtbot, window):
    from explorer.app import build_parser, open_model
    problem = open_model(window, build_parser().parse_args(["--model", "embedded", "--layer", "2", "--head", "9"]))
    assert problem.endswith("has layers 1…2 and heads 1…4")


def test_a_narrow_dock_puts_the_next_tokens_below_the_whole_grid_before_any_head_is_open(qtbot):
    """The next-token view is at least 260 px wide even while it only says that no head is open: beside the grid
    in a 388-px dock (the Model dock at 1024 × 640) it left the grid 114 px, one and a half heads."""
    model, dock, panel = docked_view(qtbot, (390, 500))
    try:
        qtbot.waitUntil(lambda: panel.split.direction() == QBoxLayout.Direction.TopToBottom)
        qtbot.wait(20)
        assert panel.grid_area.viewport().width() >= panel.grid.minimumSizeHint().width()  # every head in view
        dock.resize(900, 500)
        qtbot.waitUntil(lambda: panel.split.direction() == QBoxLayout.Direction.LeftToRight)
    finally:
        model.shutdown()


def test_generate_says_it_runs_the_model_as_trained_while_a_head_is_the_session(view, qtbot):
    model, panel, run = view
    panel.n_new.setValue(1)

    def generate():
        model.checkpoints.generation = None
        panel.generate_button.click()
        model.checkpoints.finish()
        qtbot.waitUntil(lambda: model.checkpoints.generation is not None, timeout=20_000)
        return panel.generated.text()

    assert "as trained" not in generate()  # the demo is the session: nothing to say
    panel.open_head(0, 1)
    model.set_param("temperature", 20.0)
    assert "tiny-induction as trained" in generate() and "layer 1 head 2" in panel.generated.text()


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_a_gpt2_head_says_its_positions_are_inside_x_already(qtbot, tmp_path, family):
    from explorer.panels.positions import PositionsPanel
    from tests.core.checkpoint_factory import gpt2_checkpoint, llama_checkpoint
    (gpt2_checkpoint if family == "gpt2" else llama_checkpoint)(tmp_path)
    model, panel = show_panel(qtbot, PositionsPanel, size=(700, 700))
    ck = model.checkpoints
    assert ck.open(str(tmp_path))
    ck.run("the cat sat on the mat")
    ck.finish()
    qtbot.waitUntil(lambda: ck.latest is not None, timeout=20_000)
    model.set_session(ck.head_session(0, 1), "Open a head", model_head=ck.head_source(0, 1))
    model.flush()
    said = panel.learned.text()
    if family == "gpt2":  # learned positions (wpe) were added to the embeddings that X is made from
        assert panel.learned.isVisible() and "wpe" in said and "not invisible" in said
    else:  # RoPE is a setting of the session itself: nothing to add
        assert not panel.learned.isVisible()
    model.undo_stack.undo()
    model.flush()
    assert not panel.learned.isVisible()
    model.shutdown()
