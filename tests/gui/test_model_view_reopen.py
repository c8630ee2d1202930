"""A real model's head saved and opened again (F25 across files): the session remembers the head it came from,
the window's title names it, and what the model says next comes back with the same numbers — or the Model view
says plainly why it cannot (the folder gone, a checkpoint that will not open or no longer matches), offering to
open the head's model when another one is open. The session itself always opens."""
import json
import shutil
from html import unescape

import numpy as np
import pytest

from explorer.core.presets import demo_session
from explorer.core.session import load_session, save_session
from explorer.model.flow_back import CLOSED, LOST, MISFIT, NONE
from explorer.models import EMBEDDED_MODEL, open_embedded_model
from tests.core.checkpoint_factory import gpt2_checkpoint
from tests.gui.conftest import open_window
from tests.gui.panel_helpers import show_panel
from tests.gui.test_model_view_flow_back import INDUCTION, TEXT, click_head, ran, settled

HEAD = "layer 2 head 1 of tiny-induction"


def edited_head(window, qtbot, ui, folder=None):
    """The Model view on TEXT (the shipped model, or ``folder``), its induction head clicked and W_v[0, 0] typed
    as 10: the panel and the view's READY result."""
    panel = window.open_model(folder)
    panel.text.setText(TEXT)
    panel.run()
    ran(window.model, qtbot)
    click_head(qtbot, panel, *INDUCTION)
    settled(window.model, qtbot)
    ui.type_into(qtbot, window.panels["editor"].views["Wv"], 0, 0, "10")
    qtbot.waitUntil(lambda: window.model.flow_back.result.moved > 0.5 and not window.model.flow_back.busy,
                    timeout=20_000)
    return panel, settled(window.model, qtbot)


def saved_and_closed(window, qtbot, path):
    """Save the session to ``path``, then File ▸ New: the demo, no model's head."""
    assert window.documents.save_to(path)
    window.actions["new"].trigger()
    qtbot.waitUntil(lambda: window.model.flow_back.state == NONE)
    assert window.model.state.model_head is None


def probabilities(logits):
    z = np.asarray(logits, dtype=np.float64)
    p = np.exp(z - z.max())
    return p / p.sum()


def rewritten(path, **changes):
    """The session file at ``path`` with model_head's fields changed (JSON)."""
    data = json.loads(path.read_text("utf-8"))
    data["model_head"].update(changes)
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")


@pytest.mark.parametrize("suffix", [".json", ".aesz"])
def test_a_saved_head_reopens_with_its_title_and_the_same_next_token_numbers(window, qtbot, ui, tmp_path, suffix):
    panel, before = edited_head(window, qtbot, ui)
    shown, said = panel.next_tokens.numbers.text(), panel.next_tokens.status.text()
    ids = window.model.state.model_head.ids
    path = tmp_path / f"head{suffix}"
    saved_and_closed(window, qtbot, path)
    assert "not a head of a real model" in panel.next_tokens.status.text()
    assert load_session(path).model_head.ids == ids  # (the file holds no logits: they are computed again)

    assert window.documents.open(path)
    assert window.windowTitle().startswith(f"head{suffix} · {HEAD}")
    assert window.model.state.model_head.describe() == HEAD and window.model.state.model_head.logits is None
    assert window.model.matrix("Wv")[0, 0] == 10
    again = settled(window.model, qtbot)
    assert panel.next_tokens.numbers.text() == shown and panel.next_tokens.status.text() == said
    for a, b in ((again.before_top, before.before_top), (again.after_top, before.after_top)):
        assert [t.token_id for t in a] == [t.token_id for t in b]
        np.testing.assert_allclose([(t.before, t.after) for t in a], [(t.before, t.after) for t in b], atol=1e-7)
    # independently: the unedited model's distribution from a fresh copy of the shipped model
    fresh = probabilities(open_embedded_model().run_ids(list(ids)).last_logits)
    top = np.argsort(-fresh, kind="stable")[:5]
    assert [t.token_id for t in again.before_top] == list(top)
    np.testing.assert_allclose([t.before for t in again.before_top], fresh[top], atol=1e-6)
    assert again.moved == pytest.approx(0.5 * np.abs(np.array(
        window.model.checkpoints.model.run_ids(list(ids), edits={INDUCTION: window.model.to_session()})
        .next_token_probabilities()) - fresh).sum(), abs=1e-6)


def test_a_session_whose_model_folder_is_gone_opens_and_says_so(window, qtbot, ui, tmp_path):
    panel, _ = edited_head(window, qtbot, ui)
    saved_and_closed(window, qtbot, tmp_path / "head.json")
    gone = tmp_path / "models" / "my-induction"   # (a shipped model's folder from another install is found here)
    rewritten(tmp_path / "head.json", folder=str(gone), name="my-induction")
    open_model = window.model.checkpoints.model
    head = "layer 2 head 1 of my-induction"

    assert window.documents.open(tmp_path / "head.json")
    assert window.model.matrix("Wv")[0, 0] == 10 and window.windowTitle().startswith(f"head.json · {head}")
    flow = window.model.flow_back
    qtbot.waitUntil(lambda: flow.state == LOST)
    said = unescape(panel.next_tokens.status.text())
    assert f"This session came from {head} at {gone}, which cannot be opened" in said and "not there" in said
    assert not panel.next_tokens.numbers.isVisible() and not panel.next_tokens.offer.isVisible()
    assert window.model.checkpoints.model is open_model  # nothing else changed


def test_with_another_model_open_the_view_offers_to_open_the_head_model(window, qtbot, ui, tmp_path):
    panel, before = edited_head(window, qtbot, ui)
    shown = panel.next_tokens.numbers.text()
    saved_and_closed(window, qtbot, tmp_path / "head.json")
    gpt2_checkpoint(tmp_path / "other")
    panel.open_model(str(tmp_path / "other"))
    ran(window.model, qtbot)

    assert window.documents.open(tmp_path / "head.json")
    flow, view = window.model.flow_back, panel.next_tokens
    qtbot.waitUntil(lambda: flow.state == CLOSED)
    said = unescape(view.status.text())
    assert HEAD in said and "not the open model now (other is)" in said
    assert str(EMBEDDED_MODEL) in view.offer.toolTip()
    assert window.model.checkpoints.model.name == "other"  # not opened without being asked
    assert view.offer.isVisible() and view.offer.text() == "Open tiny-induction" and not view.action.isVisible()
    view.offer.click()
    assert window.model.checkpoints.model.folder.resolve() == EMBEDDED_MODEL
    settled(window.model, qtbot)
    assert view.numbers.text() == shown and not view.offer.isVisible()


def test_a_checkpoint_that_will_not_open_says_why_and_the_open_model_stays(window, qtbot, ui, tmp_path):
    copy = tmp_path / "my-tiny"
    shutil.copytree(EMBEDDED_MODEL, copy)
    panel, _ = edited_head(window, qtbot, ui, folder=copy)
    assert window.model.state.model_head.describe() == "layer 2 head 1 of my-tiny"
    saved_and_closed(window, qtbot, tmp_path / "head.json")
    panel.open_model()  # the shipped model
    (copy / "config.json").write_text('{"model_type": "llama", oops', encoding="utf-8")

    assert window.documents.open(tmp_path / "head.json")
    flow, view = window.model.flow_back, panel.next_tokens
    qtbot.waitUntil(lambda: flow.state == CLOSED)
    assert view.offer.text() == "Open my-tiny"
    view.offer.click()
    qtbot.waitUntil(lambda: flow.state == LOST)
    said = unescape(view.status.text())
    assert (f"This session came from layer 2 head 1 of my-tiny at {copy}, which cannot be opened: "
            f"config.json: cannot be read as JSON") in said
    assert window.model.checkpoints.model.folder.resolve() == EMBEDDED_MODEL  # the open model stays
    assert not view.offer.isVisible() and window.model.matrix("Wv")[0, 0] == 10


@pytest.mark.parametrize("changes, said", [
    ({"hidden": 32}, "which no longer matches it: its hidden width is 64; the head's output was 32 wide"),
    ({"layer": 5}, "which no longer matches it: it has 2 layers of 4 heads, and the session came from layer 6 "
                   "head 1"),
    ({"ids": list(range(200, 224))}, "its vocabulary has 140 entries, and the text has token id 223"),
])
def test_a_checkpoint_whose_config_no_longer_matches_says_how(window, qtbot, ui, tmp_path, changes, said):
    panel, _ = edited_head(window, qtbot, ui)
    saved_and_closed(window, qtbot, tmp_path / "head.json")
    rewritten(tmp_path / "head.json", **changes)
    assert window.documents.open(tmp_path / "head.json")
    qtbot.waitUntil(lambda: window.model.flow_back.state == LOST)
    assert said in unescape(panel.next_tokens.status.text())
    assert not panel.next_tokens.numbers.isVisible()


@pytest.mark.parametrize("broken", [False, True])
def test_with_no_model_open_the_model_view_opens_the_head_model_first(qtbot, ui, tmp_path, home, broken):
    """Shown with no model open, the Model view opens the session's checkpoint rather than the shipped one; if
    that will not open, the shipped one, and the next-token section says why."""
    window = open_window(qtbot)
    copy = tmp_path / "my-tiny"
    shutil.copytree(EMBEDDED_MODEL, copy)
    panel, before = edited_head(window, qtbot, ui, folder=copy)
    shown = panel.next_tokens.numbers.text()
    saved_and_closed(window, qtbot, tmp_path / "head.json")
    window.model.undo_stack.setClean()
    window.close()
    if broken:
        (copy / "tokenizer.json").write_text("[]", encoding="utf-8")

    later = open_window(qtbot)  # a new window: no model open, the Model view not shown
    assert later.documents.open(tmp_path / "head.json")
    assert later.model.flow_back.state == CLOSED and later.model.checkpoints.model is None
    panel = later.open_model()
    qtbot.waitUntil(lambda: later.model.checkpoints.model is not None, timeout=10_000)
    if not broken:
        assert later.model.checkpoints.model.folder.resolve() == copy.resolve()  # the session's, not the shipped
        settled(later.model, qtbot)
        assert panel.next_tokens.numbers.text() == shown
    else:
        assert later.model.checkpoints.model.folder.resolve() == EMBEDDED_MODEL
        qtbot.waitUntil(lambda: later.model.flow_back.state == LOST)
        said = unescape(panel.next_tokens.status.text())
        assert f"layer 2 head 1 of my-tiny at {copy}, which cannot be opened: " in said and "tokenizer" in said
    later.model.undo_stack.setClean()


def test_a_gpt2_head_reopened_says_again_that_its_positions_are_inside_x(qtbot, tmp_path):
    from explorer.panels.positions import PositionsPanel
    gpt2_checkpoint(tmp_path / "gpt")
    model, panel = show_panel(qtbot, PositionsPanel, size=(700, 700))
    ck = model.checkpoints
    assert ck.open(str(tmp_path / "gpt"))
    ck.run("the cat sat on the mat")
    ck.finish()
    qtbot.waitUntil(lambda: ck.latest is not None, timeout=20_000)
    model.set_session(ck.head_session(0, 1), "Open a head", model_head=ck.head_source(0, 1))
    save_session(model.to_session(), tmp_path / "gpt-head.aesz")
    model.load(demo_session(), wait=True)
    assert not panel.learned.isVisible()
    model.load(load_session(tmp_path / "gpt-head.aesz"), wait=True)
    model.flush()
    assert panel.learned.isVisible() and "gpt" in panel.learned.text() and "wpe" in panel.learned.text()
    model.shutdown()


def test_a_session_with_a_token_more_than_its_head_is_saved_without_it_and_the_view_says_so(window, qtbot, ui,
                                                                                            tmp_path):
    panel, _ = edited_head(window, qtbot, ui)
    window.model.add_token()
    qtbot.waitUntil(lambda: window.model.flow_back.state == MISFIT)
    assert "the file would not remember the head" in panel.next_tokens.status.text()
    assert window.documents.save_to(tmp_path / "longer.json")
    assert "model_head" not in json.loads((tmp_path / "longer.json").read_text("utf-8"))
    window.model.undo_stack.undo()  # the head's tokens again: it is remembered
    settled(window.model, qtbot)
    assert window.documents.save_to(tmp_path / "head.json")
    assert load_session(tmp_path / "head.json").model_head.name == "tiny-induction"
    assert window.documents.open(tmp_path / "longer.json", ask=False)
    qtbot.waitUntil(lambda: window.model.flow_back.state == NONE)
    assert window.model.state.model_head is None and window.windowTitle().startswith("longer.json[*]")
