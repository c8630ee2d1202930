"""F24 Query–key space, many sentences at once (AttentionViz's corpus view), offscreen: a real head's queries and
keys of every sentence on one plane, one point per token each; hovering names the sentence, token and position;
bad sentences and files are refused with a message and change nothing. A tiny checkpoint is made in the test."""
import numpy as np
import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

import explorer.model.background as background_module
from explorer.model.background import COMPUTING, READY
from explorer.panels.qk_space import QKSpacePanel
from explorer.widgets.palette import BLUE
from tests.core.checkpoint_factory import llama_checkpoint, llama_tokenizer
from tests.gui.panel_helpers import show_panel
from tests.gui.test_qk_space_panel import hover

THREE = ["the cat sat on the mat", "the dog chased the red laser dot", "a cat and a dog sat together"]
LAYER, HEAD = 1, 3  # counted from 0: its keys are K/V head 1 (two query heads share each)


def open_head(model, layer, head):
    ck = model.checkpoints
    assert model.set_session(ck.head_session(layer, head), "Open head", model_head=ck.head_source(layer, head))
    model.flush()


@pytest.fixture
def opened(qtbot, tmp_path):
    """The panel beside a tiny Llama checkpoint whose layer 2 head 4 is the session."""
    llama_checkpoint(tmp_path / "tiny")
    model, panel = show_panel(qtbot, QKSpacePanel, size=(520, 760))
    ck = model.checkpoints
    assert ck.open(str(tmp_path / "tiny"))
    ck.run("the cat sat on the mat")
    ck.finish()
    qtbot.waitUntil(lambda: ck.latest is not None, timeout=20_000)
    open_head(model, LAYER, HEAD)
    yield model, panel
    model.shutdown()


def enter(qtbot, panel, lines):
    """Write the sentences into the box and press Place."""
    panel.show_sentences(True)
    panel.sentences.text.setPlainText("\n".join(lines))
    qtbot.mouseClick(panel.sentences.place_button, Qt.MouseButton.LeftButton)
    panel.corpus_view.work.finish()
    settle()


def settle():
    """The events posted, then the layouts (the box folds away once placed: the plot grows) all the way up."""
    QApplication.processEvents()
    for _ in range(3):
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    QApplication.processEvents()


def test_three_sentences_share_one_plane_and_a_hover_names_sentence_token_and_position(qtbot, opened):
    model, panel = opened
    enter(qtbot, panel, THREE)
    encoded = [llama_tokenizer().encode(s) for s in THREE]  # <s> first, as the model expects
    n = sum(len(e.ids) for e in encoded)
    assert panel.corpus_view.work.state == READY
    assert len(panel.plot.q_pts) == n and len(panel.plot.k_pts) == n
    assert "Layer 2 head 4" in panel.note.text() and "3 sentences" in panel.note.text()
    assert "sentence" in panel.caption.text()
    # the second sentence's third token (position 2): its query is point len(sentence 1) + 2
    i = len(encoded[0].ids) + 2
    hover(qtbot, panel, "query", i)
    token = encoded[1].tokens[2].replace("▁", "·")
    text = panel.hover_text
    assert f"query {token}" in text and "sentence 2, position 2" in text and THREE[1] in text
    # its lines go to keys of its own sentence only, the strongest first (the weights of its own pass)
    placed = panel.corpus_view.placed
    lines = panel.plot.lines[:3]
    assert all(line.isVisible() for line in lines)
    ends = np.array([[line.xData[1], line.yData[1]] for line in lines])
    own = np.flatnonzero(placed.plane.key_sentence == 1)  # the keys of its own sentence (<s> is in every one)
    ends_at = [int(own[np.argmin(np.linalg.norm(panel.plot.k_pts[own] - e, axis=1))]) for e in ends]
    np.testing.assert_allclose(panel.plot.k_pts[ends_at], ends)
    w = placed.head.weights[1][2]  # this query's row in its own pass
    want = sorted(range(3), key=lambda j: -w[j])  # causal: keys 0, 1, 2 only
    assert [int(placed.plane.key_position[j]) for j in ends_at] == want
    hover(qtbot, panel, "key", n - 1)
    assert f"sentence 3, position {len(encoded[2].ids) - 1}" in panel.hover_text


def test_points_are_coloured_by_position_with_a_legend_or_by_query_and_key(qtbot, opened):
    model, panel = opened
    enter(qtbot, panel, THREE)
    assert panel.legend.isVisible() and panel.legend.last == max(len(llama_tokenizer().encode(s).ids)
                                                                 for s in THREE) - 1
    brushes = panel.plot.queries.data["brush"]
    assert brushes[0].color().name() != brushes[5].color().name()  # position 0 and position 5
    assert brushes[0].color().name() == brushes[len(llama_tokenizer().encode(THREE[0]).ids)].color().name()
    panel.sentences.colour_by.setCurrentIndex(panel.sentences.colour_by.findData("side"))
    QApplication.processEvents()
    assert not panel.legend.isVisible()
    assert panel.plot.queries.data["brush"][0] is None  # the queries' own colour
    assert panel.plot.queries.opts["brush"].color().name() == QColor(BLUE).name()


def test_bad_sentences_and_files_are_refused_and_change_nothing(qtbot, opened, tmp_path):
    model, panel = opened
    enter(qtbot, panel, THREE)
    before = panel.plot.q_pts.copy(), panel.note.text()

    def unchanged():
        np.testing.assert_array_equal(panel.plot.q_pts, before[0])
        assert panel.note.text() == before[1] and panel.corpus_view.sentences == tuple(THREE)

    enter(qtbot, panel, ["", "   ", ""])
    assert "every line is empty" in panel.sentences.message.text()
    unchanged()
    enter(qtbot, panel, ["the cat"] * 101)
    assert "101 sentences: at most 100" in panel.sentences.message.text()
    unchanged()
    panel.sentences.text.setPlainText("\n".join(THREE))
    binary = tmp_path / "photo.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    assert not panel.load_sentences(str(binary))
    assert "photo.txt: a binary file" in panel.sentences.message.text()
    assert panel.sentences.text.toPlainText() == "\n".join(THREE)  # the box keeps what was written
    unchanged()
    good = tmp_path / "two.txt"
    good.write_text("the cat sat\nthe dog\n", encoding="utf-8")
    assert panel.load_sentences(str(good))
    panel.corpus_view.work.finish()
    QApplication.processEvents()
    assert panel.sentences.text.toPlainText() == "the cat sat\nthe dog\n"
    assert len(panel.plot.q_pts) == sum(len(llama_tokenizer().encode(s).ids) for s in ["the cat sat", "the dog"])


def test_without_a_real_head_it_says_how_to_get_one(qtbot):
    model, panel = show_panel(qtbot, QKSpacePanel, size=(520, 760))
    n = len(panel.plot.q_pts)
    panel.show_sentences(True)
    assert len(panel.plot.q_pts) == 0
    qtbot.mouseClick(panel.sentences.place_button, Qt.MouseButton.LeftButton)
    assert "not a head of a real model" in panel.sentences.message.text()
    assert "Model view" in panel.sentences.message.text()
    panel.show_sentences(False)  # back to the session's own points
    assert len(panel.plot.q_pts) == n == len(model.tokens)
    model.shutdown()


def test_a_large_placement_runs_on_the_worker_and_follows_another_head(qtbot, opened, monkeypatch):
    model, panel = opened
    monkeypatch.setattr(background_module, "LIVE_COST", 0)  # every placement counts as large
    panel.show_sentences(True)
    panel.sentences.text.setPlainText("\n".join(THREE))
    assert panel.place_sentences(panel.sentences.text.toPlainText())
    assert panel.corpus_view.work.state == COMPUTING and "Running" in panel.sentences.message.text()
    panel.corpus_view.work.finish()
    QApplication.processEvents()
    assert panel.corpus_view.work.state == READY
    first = panel.plot.q_pts.copy()
    open_head(model, 0, 0)  # another head becomes the session: the same sentences are placed for it
    assert panel.corpus_view.work.state == COMPUTING
    panel.corpus_view.work.finish()
    QApplication.processEvents()
    assert "Layer 1 head 1" in panel.note.text() and len(panel.plot.q_pts) == len(first)
    assert not np.allclose(panel.plot.q_pts, first)


def test_before_place_the_empty_plane_reads_plain_numbers(qtbot, opened):
    """No points yet: the axes span −1 … 1 at least (the locked aspect widens one), where they read ±2e-09 (an empty
    plot's range padded by 1e-9)."""
    _, panel = opened
    panel.show_sentences(True)
    settle()
    (x0, x1), (y0, y1) = panel.plot.view.viewRange()
    for lo, hi in ((x0, x1), (y0, y1)):
        assert lo <= -1.0 and hi >= 1.0 and hi - lo < 4
