"""Model view: the shipped tiny model's every head on typed text; a click makes a head the session."""
import numpy as np
import pytest

from explorer.panels.model_view import ModelViewPanel
from tests.gui.panel_helpers import show_panel

TEXT = "the cat sat on the mat the cat sat on the mat"


@pytest.fixture
def view(qtbot):
    model, panel = show_panel(qtbot, ModelViewPanel, size=(700, 600))
    qtbot.waitUntil(lambda: model.checkpoints.model is not None, timeout=10_000)
    panel.text.setText(TEXT)
    panel.run()
    model.checkpoints.finish()
    qtbot.waitUntil(lambda: model.checkpoints.latest is not None, timeout=20_000)
    yield model, panel
    model.shutdown()


def test_every_head_of_the_shipped_model_is_drawn_with_its_role(view):
    model, panel = view
    latest = model.checkpoints.latest
    assert latest.thumbnails.shape[:2] == (2, 4) and panel.grid._shape == (2, 4)
    assert panel.grid._badges[(0, 1)] == "prev" and panel.grid._badges[(1, 0)] == "ind"
    panel._hovered(0, 1)
    assert "previous token" in panel.info.text() and "previous-token head" in panel.info.text()
    # the previous-token head puts most of its weight on the token before, on this text too
    a = latest.run.attentions[0, 1]
    assert np.mean(np.diagonal(a, offset=-1)) > 0.5


def test_a_click_makes_the_head_the_session_with_the_models_numbers(view, qtbot):
    model, panel = view
    run = model.checkpoints.latest.run
    assert panel.open_head(1, 0)
    model.flush()
    assert model.projected and model.settings.causal and model.undo_stack.count() == 1
    assert len(model.tokens) == len(run.tokens)
    np.testing.assert_allclose(model.results.heads.weights[0], run.attentions[1, 0], rtol=0, atol=1e-5)
    model.set_cell("X", 0, 0, float(model.matrix("X")[0, 0]) + 1.0)  # every number is editable
    model.flush()
    assert model.undo_stack.count() == 2
    model.undo_stack.undo()
    model.undo_stack.undo()
    model.flush()
    assert not model.projected  # back to the demo


def test_a_newer_text_overtakes_a_run_in_flight(view, qtbot):
    model, panel = view
    ck = model.checkpoints
    ck.run("the dog")
    ck.run("the dog ran to the door")
    ck.finish()
    qtbot.waitUntil(lambda: ck.latest.run.tokens[-1] == "door", timeout=20_000)
    assert ck.latest.run.tokens == ["<s>", "the", "dog", "ran", "to", "the", "door"]  # the model's <s> first


def test_generation_grows_the_cache_and_shows_each_new_tokens_row(view, qtbot):
    model, panel = view
    panel.text.setText("a red fox ran over the hill a red fox")
    panel.n_new.setValue(3)
    panel.generate_button.click()
    model.checkpoints.finish()
    qtbot.waitUntil(lambda: model.checkpoints.generation is not None, timeout=20_000)
    gen = model.checkpoints.generation
    assert "ran over the" in panel.generated.text() and "K/V cache" in panel.generated.text()
    c = model.checkpoints.model.config
    assert panel.rows._values.shape == (c.layers * c.heads, gen.cache_tokens)  # 1 × t per head and layer
