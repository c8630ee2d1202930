"""The lesson's state on its own (a part of the model, tested with it): stages revealed in order,
guesses only for hidden stages."""
from explorer.model.lesson_state import ALL_STAGES, LessonState


def test_starts_outside_any_lesson():
    lesson = LessonState()
    assert lesson.revealed == ALL_STAGES == 3 and lesson.guesses == {}


def test_a_guess_counts_only_for_a_hidden_stage_and_hiding_again_forgets_it():
    lesson = LessonState()
    assert lesson.reveal(0)
    assert lesson.guess(1, 2, 3) and lesson.guess(3, 0, 1)
    assert not lesson.guess(1, 2, 3)  # the same guess again: no change
    assert lesson.reveal(2) and lesson.guesses == {1: (2, 3), 3: (0, 1)}
    assert not lesson.guess(2, 1, 1)  # stage 2 is shown already
    assert lesson.reveal(0) and lesson.guesses == {}
    assert not lesson.reveal(-5) and lesson.revealed == 0  # clamped to 0..3, unchanged
    assert lesson.reveal(99) and lesson.revealed == 3


def test_forgetting_guesses_says_whether_there_were_any():
    lesson = LessonState()
    lesson.reveal(0)
    assert not lesson.forget_guesses()
    lesson.guess(2, 1, 1)
    assert lesson.forget_guesses() and lesson.guesses == {}
