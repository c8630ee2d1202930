"""Max-pooling a large weights matrix to the screen, and naming what a head does — by hand."""
import numpy as np

from explorer.core.head_patterns import pattern_scores, strongest_pattern
from explorer.core.pooling import max_pool


def test_a_diagonal_one_cell_wide_survives_pooling():
    w = np.eye(1000, k=-1)  # a previous-token head: one thin diagonal
    small = max_pool(w, 100, 100)
    assert small.shape == (100, 100)
    assert (np.diagonal(small) == 1).all()  # each 10 × 10 block on the diagonal holds a 1
    sampled = w[::10, ::10]  # what sampling every 10th cell shows
    assert sampled.max() == 0


def test_pooling_by_hand():
    m = np.arange(16.0).reshape(4, 4)
    np.testing.assert_array_equal(max_pool(m, 2, 2), [[5, 7], [13, 15]])
    assert max_pool(m, 8, 8) is m


def test_patterns_by_hand():
    prev = np.tril(np.eye(4, k=-1))
    prev[0, 0] = 1.0
    scores = pattern_scores(prev)
    assert scores["previous"] == 1.0 and scores["self"] == 0.0 and scores["first"] == 1 / 3  # (row 0 sees only itself)
    assert strongest_pattern(prev) == ("previous token", 1.0)
    uniform = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    words, spread = strongest_pattern(uniform)
    assert words == "spread over many keys" and np.isclose(spread, 1.0)


def test_block_extremes_keep_the_value_farthest_from_zero():
    from explorer.core.pooling import block_extreme
    m = np.array([[1.0, -3.0, 0.5, 0.2, 9.0], [2.0, 0.0, -0.1, 0.1, -1.0], [0.0, 0.0, 0.0, -7.0, 0.0]])
    # blocks of 2 × 2 (the last row and column smaller): by hand
    np.testing.assert_array_equal(block_extreme(m, 2, 2), [[-3.0, 0.5, 9.0], [0.0, -7.0, 0.0]])


def test_an_overview_row_refreshed_in_place_equals_a_new_one():
    from explorer.core.pooling import overview, refresh_overview_rows
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3000, 2500))
    view = overview(m).copy()
    m[1234] = 50.0
    m[2999, 7] = -80.0
    refresh_overview_rows(view, m, [1234, 2999])
    np.testing.assert_array_equal(view, overview(m))
    assert view.max() == 50.0 and view.min() == -80.0


def test_a_head_with_no_strong_place_says_so():
    w = np.tril(np.ones((6, 6)))
    w[:, 0] *= 3  # the first token a little heavier than the rest, but spread > 0.8 is not reached
    w = w / w.sum(axis=1, keepdims=True)
    words, score = strongest_pattern(np.where(np.eye(6, k=-2) > 0, 0.9, w * 0.1))
    assert words.startswith("no one place") and score < 0.4


def test_an_induction_head_on_a_repeated_text_is_named_by_the_token_ids():
    # "A B C A B C": the second A, B, C each look at the token after their first occurrence (B, C, A);
    # the first three rows look at the first token. By hand: induction 1, first token 2/5, previous 1/5.
    ids = [7, 8, 9, 7, 8, 9]
    w = np.zeros((6, 6))
    w[0:3, 0] = 1.0
    w[3, 1] = w[4, 2] = w[5, 3] = 1.0
    scores = pattern_scores(w, ids)
    assert scores["induction"] == 1.0 and scores["first"] == 0.4 and scores["previous"] == 0.2
    assert strongest_pattern(w, ids) == ("the token after this token's earlier occurrence (induction)", 1.0)
    assert strongest_pattern(w) == ("the first token", 0.4)  # without the ids there is no telling
    # half the weight on the token after the earlier occurrence, half on the query itself
    half = np.zeros((6, 6))
    half[0:3, 0] = 1.0
    half[3, [1, 3]] = half[4, [2, 4]] = half[5, [3, 5]] = 0.5
    assert pattern_scores(half, ids)["induction"] == 0.5


def test_induction_counts_every_earlier_occurrence_and_skips_a_token_that_just_occurred():
    from explorer.core.head_patterns import induction_score
    # "x A y A A": query 3 (A) has A at 1 → key 2; query 4 (A) has A at 1 and 3, but 3 is just before it
    # (its next token is query 4 itself), so only key 2 counts
    ids = [5, 1, 6, 1, 1]
    w = np.zeros((5, 5))
    w[3, 2], w[3, 0] = 0.75, 0.25
    w[4, 2], w[4, 4] = 0.5, 0.5
    assert induction_score(w, ids) == (0.75 + 0.5) / 2
    assert induction_score(w, [1, 2, 3, 4, 5]) is None and "induction" not in pattern_scores(w, [1, 2, 3, 4, 5])
