"""② writes each row's sum beside it ("Σ=1.000", "masked" for a fully masked row), each different sum once."""
import numpy as np

from explorer.panels.weights import row_sum_notes


def test_each_rows_sum_is_written_to_three_places_and_a_masked_row_says_so(qapp):
    sums = np.array([1.0, 0.9999999999999999, 1.0000000000000002, 0.5, 0.0, 1.0, 0.9996])
    masked = np.array([False, False, False, False, True, False, False])
    assert row_sum_notes(sums, masked) == ["Σ=1.000", "Σ=1.000", "Σ=1.000", "Σ=0.500", "masked", "Σ=1.000", "Σ=1.000"]


def test_a_sum_not_yet_made_reads_nan(qapp):
    assert row_sum_notes(np.array([np.nan, 1.0, np.nan]), np.zeros(3, bool)) == ["Σ=nan", "Σ=1.000", "Σ=nan"]
