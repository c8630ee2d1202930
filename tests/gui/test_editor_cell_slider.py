"""The cell slider under the editor's tables: its label names the selected cell as text (a token may be "<s>"),
and it shows nothing once that cell is gone or can no longer be edited (no value of another session)."""
from explorer.core.presets import demo_session


def select(editor, name, row, col):
    view = editor.views[name]
    view.setCurrentIndex(view.model().index(row, col))


def test_the_label_names_a_token_that_looks_like_html_as_it_is(qtbot, window):
    editor = window.panels["editor"]
    window.model.rename_token(0, "<s>")
    window.model.flush()
    select(editor, "Q", 0, 1)
    assert editor.cell_label.text() == "Q[<s>, d1]"  # (read as rich text, "<s>" started a strikethrough)
    assert editor.cell_slider.isEnabled() and editor.cell_slider.value() == 1.5  # Q[猫, d1] of the demo


def test_a_cell_of_another_session_or_mode_leaves_the_slider_empty(qtbot, window):
    editor = window.panels["editor"]
    select(editor, "Q", 3, 0)
    assert editor.cell_slider.value() == 0.3 and editor.cell_label.text() == "Q[激光点, d0]"
    window.model.set_param("source", "projected")  # Q is X·W_qᵀ now: the editor shows X and the W's, not Q
    window.model.flush()
    # the X table, shown in Q's place, has its first cell current: the slider drags X[猫, x0] now, not Q
    assert editor.cell_label.text() == "X[猫, x0]" and editor.cell_slider.value() == window.model.matrix("X")[0, 0]
    window.model.set_param("source", "direct")
    window.model.flush()
    select(editor, "V", 3, 2)
    assert editor.cell_slider.value() == 0.8
    smaller = demo_session()
    smaller = smaller.__class__(**{**smaller.__dict__, "tokens": smaller.tokens[:2],
                                   "matrices": {n: m[:2] for n, m in smaller.matrices.items()}})
    window.model.load(smaller, wait=True)  # V[3, 2] is gone
    window.model.flush()
    assert not editor.cell_slider.isEnabled() and editor.cell_slider.value() == 0.0


