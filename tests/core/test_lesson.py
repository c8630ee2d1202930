"""The lesson's judgements (no Qt): darkest cell of a row, guess verdicts, row sums, convex hull."""
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from explorer.core import (ShapeError, attention, darkest_in_row, hull_check, judge_guess, lesson_checks,
                           row_sum_check, softmax)
from explorer.core.lesson import (TIE_RTOL, demo_state, distinguishing_decimals, guess_fits,
                                  top_contributors)
from explorer.core.pipeline import run_pipeline
from explorer.core.presets import DEMO_TOKENS, demo_session, random_session
from explorer.core.session import Settings

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


def demo_result(**settings):
    s = demo_session()
    return run_pipeline(s.matrices, Settings(**settings) if settings else s.settings)


# ----- darkest_in_row and judge_guess -------------------------------------------------------------
def test_darkest_in_row_by_hand():
    m = np.array([[0.0, 3.0, 1.0], [5.0, -1.0, 2.0]])
    assert darkest_in_row(m, 0) == 1
    assert darkest_in_row(m, 1) == 0
    allowed = np.array([[True, True, True], [False, True, True]])  # True = may attend
    assert darkest_in_row(m, 1, allowed) == 2  # 5.0 is masked
    assert darkest_in_row(m, 1, np.array([False, False, False])) is None  # fully masked row


def test_demo_row_of_chase_ties_cat_and_laser_dot():
    s = demo_result().heads.scores[0]
    assert darkest_in_row(s, 1) == 0  # 猫 (first of the tie)
    right = judge_guess(s, (1, 3))  # 激光点 is exactly as dark: a tie counts as right
    assert right.correct and right.tied_cols == (0, 3)
    assert right.true_value == pytest.approx(4 / np.sqrt(3))
    wrong = judge_guess(s, (1, 1))  # 追 itself
    assert not wrong.correct and wrong.guessed_value == 0.0 and wrong.true_col == 0


def test_demo_row_of_laser_dot_picks_red_in_the_weights():
    w = demo_result().heads.weights[0]
    v = judge_guess(w, (3, 2))
    assert v.correct and v.tied_cols == (2,) and v.true_value == pytest.approx(0.593, abs=1e-3)


def test_judge_guess_with_a_causal_mask():
    r = demo_result(causal=True)
    allowed = r.heads.mask[0]
    v = judge_guess(r.heads.scores[0], (1, 3), allowed)  # 追 may not look ahead at 激光点
    assert not v.correct and v.guessed_masked and v.true_col == 0
    v0 = judge_guess(r.heads.scores[0], (0, 0), allowed)  # 猫 only sees itself
    assert v0.correct and not v0.guessed_masked
    none = judge_guess(np.zeros((2, 2)), (0, 1), np.zeros((2, 2), bool))
    assert not none.correct and none.true_col is None and none.true_value is None


def test_judge_guess_refuses_cells_outside():
    with pytest.raises(ShapeError):
        judge_guess(np.zeros((2, 2)), (2, 0))
    with pytest.raises(ShapeError):
        judge_guess(np.zeros((2, 2)), (0, 5))
    with pytest.raises(ShapeError):
        darkest_in_row(np.zeros(3), 0)


@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=finite), st.data())
def test_judge_guess_agrees_with_argmax(m, data):
    rows, cols = m.shape
    row = data.draw(st.integers(0, rows - 1))
    col = data.draw(st.integers(0, cols - 1))
    allowed = data.draw(arrays(bool, (cols,)))
    v = judge_guess(m, (row, col), allowed)
    if not allowed.any():
        assert v.true_col is None and not v.correct and darkest_in_row(m, row, allowed) is None
        return
    top = np.max(m[row][allowed])
    dark = allowed & (m[row] >= top - TIE_RTOL * max(1.0, np.abs(m[row][allowed]).max()))  # ties count
    assert v.true_value == top and v.tied_cols == tuple(np.flatnonzero(dark))
    assert v.correct == bool(dark[col])
    assert darkest_in_row(m, row, allowed) == int(np.flatnonzero(dark)[0])
    assert judge_guess(m, (row, v.true_col), allowed).correct  # the truth is always right


# ----- row sums --------------------------------------------------------------------------------
def test_row_sums_by_hand():
    ok, dev = row_sum_check(np.array([[0.25, 0.75], [0.5, 0.5]]))
    assert ok and dev == 0.0
    ok, dev = row_sum_check(np.array([[0.25, 0.70], [0.5, 0.5]]))
    assert not ok and dev == pytest.approx(0.05)
    # a fully masked row (all zeros) is excluded, not reported as summing to 0
    ok, dev = row_sum_check(np.array([[0.0, 0.0], [0.5, 0.5]]), masked_rows=[True, False])
    assert ok and dev == 0.0
    assert row_sum_check(np.zeros((2, 2)), masked_rows=[True, True]) == (True, 0.0)


def test_row_sums_of_the_demo_and_multihead():
    ok, dev = row_sum_check(demo_result().heads.weights)
    assert ok and dev < 1e-15
    r = run_pipeline(random_session(8, 4, seed=3).matrices, Settings(heads=2, causal=True))
    assert row_sum_check(r.heads.weights, r.heads.masked_rows)[0]


@settings(max_examples=60)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 40)), elements=finite),
       st.floats(1e-9, 1.0))
def test_softmax_rows_pass_and_a_nudge_fails(s, delta):
    w = softmax(s)
    ok, dev = row_sum_check(w)
    assert ok and dev <= 1e-14
    w[0, 0] += delta
    ok, dev = row_sum_check(w)
    assert not ok and dev == pytest.approx(delta, rel=1e-3, abs=1e-14)


# ----- convex hull ------------------------------------------------------------------------------
TRIANGLE = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])


def test_hull_by_hand():
    w = np.array([[1 / 3, 1 / 3, 1 / 3], [0.0, 0.5, 0.5]])
    ok, worst = hull_check(w, TRIANGLE)
    assert ok and worst < 1e-15
    # an output off the triangle: the bound is the distance to the recipe's point (here the true distance)
    ok, worst = hull_check(w, TRIANGLE, output=np.array([[1 / 3, 1 / 3], [1.0, 1.0]]))
    assert not ok and worst == pytest.approx(np.sqrt(0.5))
    # a negative weight leaves the hull (an extrapolation, not a mix)
    ok, _ = hull_check(np.array([[-0.5, 1.0, 0.5]]), TRIANGLE)
    assert not ok
    # weights that do not sum to 1 scale the point away from the hull
    ok, worst = hull_check(np.array([[0.0, 2.0, 0.0]]), TRIANGLE)
    assert not ok and worst == pytest.approx(1.0)


def test_hull_skips_fully_masked_rows():
    w = np.array([[0.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    assert not hull_check(w, TRIANGLE)[0]  # an all-zero row has no recipe at all
    assert hull_check(w, TRIANGLE, masked_rows=[True, False])[0]


def test_hull_refuses_shapes_that_do_not_fit():
    with pytest.raises(ShapeError):
        hull_check(np.ones((2, 3)) / 3, np.ones((2, 2)))
    with pytest.raises(ShapeError):
        hull_check(np.ones((2, 3)) / 3, TRIANGLE, output=np.zeros((2, 5)))


@settings(max_examples=60)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=finite),
       st.integers(1, 4), st.data())
def test_attention_outputs_are_in_the_hull_and_a_shift_is_measured(s, d_v, data):
    length = s.shape[1]
    v = data.draw(arrays(np.float64, (length, d_v), elements=finite))
    w = softmax(s)
    ok, worst = hull_check(w, v, output=w @ v)
    assert ok and worst <= 1e-12 * max(1.0, np.abs(v).max())
    shift = data.draw(arrays(np.float64, (d_v,), elements=st.floats(-3, 3)))
    size = float(np.linalg.norm(shift))
    ok, worst = hull_check(w, v, output=w @ v + shift)
    assert worst == pytest.approx(size, abs=1e-9)


def test_lesson_checks_on_the_demo_and_with_masks():
    c = lesson_checks(demo_result())
    assert c.rows_sum_to_one and c.outputs_in_hull and c.excluded_rows == ()
    assert c.max_row_sum_deviation < 1e-15 and c.worst_hull_distance < 1e-15 and c.rows_checked == 4
    s = random_session(12, 4, seed=5)
    r = run_pipeline(s.matrices, Settings(heads=2, causal=True))
    c = lesson_checks(r, max_rows=5)
    assert c.rows_sum_to_one and c.outputs_in_hull and c.rows_checked == 5 and c.n_rows == 12


def test_lesson_checks_compare_each_head_with_its_own_slice_of_v():
    s = random_session(6, 4, seed=2)
    r = run_pipeline(s.matrices, Settings(heads=2))
    single = attention(s.matrices["Q"][:, :2], s.matrices["K"][:, :2], s.matrices["V"][:, :2], scale=r.scale)
    np.testing.assert_allclose(r.heads.head_outputs[0], single.output)
    assert lesson_checks(r).outputs_in_hull


# ----- the demo and its swapped K ------------------------------------------------------------------
def test_demo_state():
    s = demo_session()
    assert demo_state(s.tokens, s.matrices, s.settings) == "demo"
    k = s.matrices["K"][[2, 1, 0, 3]]
    assert demo_state(s.tokens, {**s.matrices, "K": k}, s.settings) == "k_swapped"
    assert demo_state(s.tokens, s.matrices, Settings(causal=True)) is None
    assert demo_state(tuple(reversed(DEMO_TOKENS)), s.matrices, s.settings) is None
    assert demo_state(s.tokens, {**s.matrices, "Q": s.matrices["Q"] + 1}, s.settings) is None
    projected = replace(s.settings, source="projected")  # Q, K, V then come from X and W, not the stored ones
    assert demo_state(s.tokens, s.matrices, projected) is None


# ----- guesses that outlive a shape change, the mix of a row, decimals -----------------------------------
def test_guess_fits_only_cells_of_the_shape():
    assert guess_fits((1, 2), (4, 3))
    assert not guess_fits((4, 0), (4, 3)) and not guess_fits((0, 3), (4, 3))
    assert not guess_fits((-1, 0), (4, 3)) and not guess_fits(None, (4, 3)) and not guess_fits(("a", 0), (4, 3))


def test_top_contributors_of_the_demo_rows():
    w = demo_result().heads.weights[0]
    chase = top_contributors(w, 1)  # 追 mixes the values of 猫 and 激光点 (tied)
    assert [j for j, _ in chase.keys] == [0, 3] and chase.rest == 2
    assert chase.weight == pytest.approx(w[1, 0] + w[1, 3]) and chase.rest_weight == pytest.approx(w[1, 1] + w[1, 2])
    dot = top_contributors(w, 3)  # 激光点: 红色 first, then itself
    assert [j for j, _ in dot.keys] == [2, 3]


def test_top_contributors_never_split_a_tie_and_skip_masked_keys():
    even = top_contributors(np.full((1, 4), 0.25), 0)
    assert [j for j, _ in even.keys] == [0, 1, 2, 3] and even.rest == 0
    many = top_contributors(np.full((1, 10), 0.1), 0, max_keys=4)
    assert len(many.keys) == 4 and many.rest == 6 and many.rest_weight == pytest.approx(0.6)
    allowed = np.array([[True, False, True]])
    masked = top_contributors(np.array([[0.3, 0.0, 0.7]]), 0, allowed)
    assert [j for j, _ in masked.keys] == [2, 0] and masked.rest == 0
    assert top_contributors(np.zeros((1, 3)), 0, np.zeros((1, 3), bool)).masked


def test_distinguishing_decimals():
    assert distinguishing_decimals([0.4548, 0.0452, 0.0452, 0.4548]) == 2
    assert distinguishing_decimals([0.451, 0.454]) == 3
    assert distinguishing_decimals([0.45, 0.45 + 1e-15]) == 2  # equal up to rounding: a tie, not a difference
    assert distinguishing_decimals([0.123451, 0.123452]) == 4  # at most four
    assert distinguishing_decimals([]) == 2 and distinguishing_decimals([np.nan, 1.0]) == 2
