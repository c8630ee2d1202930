"""A head saved with its session and opened again: the Model view's text, grid and outline become that
head's — the saved token ids run again — rather than whatever text the view had run since."""
from explorer.model.flow_back import READY
from tests.gui.test_model_view_flow_back import INDUCTION, TEXT, click_head, ran, settled
from tests.gui.test_model_view_reopen import saved_and_closed

OTHER = "a red fox ran over the hill"


def test_a_reopened_head_brings_back_its_text_and_outline(window, qtbot, tmp_path):
    model = window.model
    panel = window.open_model()
    panel.text.setText(TEXT)
    panel.run()
    ids = ran(model, qtbot).ids
    click_head(qtbot, panel, *INDUCTION)
    settled(model, qtbot)
    path = tmp_path / "head.json"
    saved_and_closed(window, qtbot, path)
    panel.text.setText(OTHER)  # the view runs something else meanwhile
    panel.run()
    qtbot.waitUntil(lambda: model.checkpoints.latest.run.ids != ids and not model.checkpoints.busy, timeout=20_000)
    assert panel.grid.selected is None and len(model.checkpoints.latest.run.tokens) == 8  # <s> and 7 words

    assert window.documents.open(path, ask=False)
    model.checkpoints.finish()
    qtbot.waitUntil(lambda: model.checkpoints.latest.run.ids == ids and not model.checkpoints.busy, timeout=20_000)
    assert panel.text.text() == TEXT  # the words the saved ids spell (the tokenizer's <s> left out)
    assert panel.grid.selected == INDUCTION
    assert "on 24 tokens" in panel.status.text()  # <s> and TEXT's 23 words
    settled(model, qtbot, READY)
    assert panel.grid.selected == INDUCTION  # still outlined once what the model says next has come
