"""The A/B diff of two states: B − A cell by cell, the largest changes named, mismatched shapes refused."""
import numpy as np
import pytest

from explorer.core.errors import ShapeError
from explorer.core.state_diff import Stages, diff_stages, largest_changes


def stages(scores, weights, output):
    return Stages(np.array(scores, float), np.array(weights, float), np.array(output, float))


def test_b_minus_a_and_the_largest_changes_by_hand():
    a = stages([[[1, 2], [3, 4]]], [[[0.5, 0.5], [0.25, 0.75]]], [[1, 0, 0], [0, 1, 0]])
    b = stages([[[1, 2.5], [3, 3]]], [[[0.4, 0.6], [0.25, 0.75]]], [[1, 0, 0.2], [0, 1, 0]])
    d = diff_stages(a, b)
    assert np.allclose(d.scores, [[[0, 0.5], [0, -1]]])
    assert np.allclose(d.weights, [[[-0.1, 0.1], [0, 0]]])
    assert np.allclose(d.output, [[0, 0, 0.2], [0, 0, 0]])
    first, second = d.largest["scores"]  # |−1| at S[1, 1] before +0.5 at S[0, 1]; unchanged cells left out
    assert (first.head, first.row, first.col, first.before, first.after) == (0, 1, 1, 4.0, 3.0)
    assert first.delta == pytest.approx(-1.0)
    assert (second.row, second.col, second.delta) == (0, 1, pytest.approx(0.5))
    assert [(c.row, c.col) for c in d.largest["weights"]] == [(0, 0), (0, 1)]  # a tie: row-major order
    (only,) = d.largest["output"]
    assert (only.head, only.row, only.col, only.delta) == (None, 0, 2, pytest.approx(0.2))
    assert not d.unchanged


def test_the_same_state_has_no_changes():
    a = stages([[[1.0]]], [[[1.0]]], [[2.0]])
    d = diff_stages(a, a)
    assert d.unchanged and d.largest == {"scores": [], "weights": [], "output": []}


def test_largest_changes_takes_the_top_by_magnitude():
    assert largest_changes(np.array([[0.1, -3.0], [2.0, 0.0]]), top=2) == [(0, 1), (1, 0)]


def test_mismatched_shapes_are_refused_naming_both():
    a = stages(np.zeros((1, 2, 2)), np.zeros((1, 2, 2)), np.zeros((2, 3)))
    b = stages(np.zeros((2, 3, 3)), np.zeros((2, 3, 3)), np.zeros((3, 3)))
    with pytest.raises(ShapeError) as e:
        diff_stages(a, b)
    text = str(e.value)
    assert "1 head, 2 queries × 2 keys, output 2 × 3" in text and "2 heads, 3 queries × 3 keys, output 3 × 3" in text


def test_a_masked_score_is_no_change_and_never_named():
    # query 0 may not see key 1 in B (a causal mask): its score is −∞ there, whatever its number
    masked = np.array([[[False, True], [False, False]]])
    a = stages([[[1, 2], [3, 4]]], [[[0.5, 0.5], [0.5, 0.5]]], [[0.0], [0.0]])
    b = Stages(np.array([[[1.0, 9.0], [3.0, 4.5]]]), np.array([[[1.0, 0.0], [0.4, 0.6]]]), np.zeros((2, 1)), masked)
    d = diff_stages(a, b)
    assert np.allclose(d.scores, [[[0, 0], [0, 0.5]]])
    assert [(c.row, c.col) for c in d.largest["scores"]] == [(1, 1)]
    assert np.array_equal(d.masked, masked)
    assert np.allclose(d.weights, [[[0.5, -0.5], [-0.1, 0.1]]])  # the weights say what the mask did


def test_the_largest_of_many_changes():
    delta = np.zeros((300, 400))
    delta[17, 3], delta[250, 399], delta[0, 1] = -5.0, 4.0, 3.0
    delta[100:110, 100:110] = 0.5
    assert largest_changes(delta, top=3) == [(17, 3), (250, 399), (0, 1)]
    assert largest_changes(delta, top=1) == [(17, 3)]


def test_float_rounding_is_not_named_among_the_largest_changes():
    """A weight that moved by 3.9e−24 beside one that moved by 0.2 moved by float rounding only (seen in
    the Sensitivity panel's list at T = 0.069)."""
    delta = np.array([[0.2, -3.9e-24, 0.0], [-0.05, 0.0, 1e-30]])
    assert largest_changes(delta, 3) == [(0, 0), (1, 0)]
    assert largest_changes(np.array([[1e-30, 0.0]]), 3) == [(0, 0)]  # alone, even a tiny change is the largest
