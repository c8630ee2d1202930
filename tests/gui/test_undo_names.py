"""Edit ▸ Undo names the step as it ended: a dragged temperature says its last value, numbers without
trailing zeros, a choice by its label (the walkthrough saw "Undo Set temperature to 1.1" at T = 3.1)."""


def undo_text(window):
    return window.actions["undo"].text().replace("&", "")


def test_a_dragged_temperature_is_undone_by_the_name_of_its_last_value(qtbot, window):
    model = window.model
    model.begin_gesture()  # a slider held: one undo step for the whole drag
    for t in (1.1, 1.4, 2.0, 3.1):
        assert model.set_param("temperature", t)
    model.end_gesture()
    assert undo_text(window) == "Undo Set temperature to 3.1"
    assert model.undo_stack.count() == 1
    window.actions["undo"].trigger()
    assert model.settings.temperature == 1.0
    assert window.actions["redo"].text().replace("&", "") == "Redo Set temperature to 3.1"


def test_numbers_have_no_trailing_zeros_and_choices_say_their_label(qtbot, window):
    model = window.model
    assert model.set_param("temperature", 20.0)
    assert undo_text(window) == "Undo Set temperature to 20"
    assert model.set_param("temperature", 0.087)
    assert undo_text(window) == "Undo Set temperature to 0.087"
    assert model.set_param("scale_mode", "none")
    assert undo_text(window) == "Undo Set scale mode to none (× 1)"


def test_undo_says_what_it_undid_in_place_of_the_undone_steps_message(qtbot, window):
    """With 3 heads of d = 3, a fourth Q/K column makes 1 head and says so; undone, the 3 heads are back, and
    the status bar must not go on saying "now 1 head"."""
    window.model.set_param("heads", 3)
    window.model.flush()
    window.model.add_dim("qk")
    window.model.flush()
    assert "no longer divide" in window.statusBar().currentMessage()
    step = window.model.undo_stack.undoText()
    window.actions["undo"].trigger()
    window.model.flush()
    assert window.model.settings.heads == 3
    assert window.statusBar().currentMessage() == f"Undone: {step}"
    window.actions["redo"].trigger()
    assert window.statusBar().currentMessage() == f"Redone: {step}"
