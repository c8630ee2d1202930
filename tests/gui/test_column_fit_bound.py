"""A large block's columns are sized from its extremes of magnitude: never narrower than any of its
numbers' texts (issue 18: ~40 → ~4 ms at 4096 × 512 when a large session opens)."""
import numpy as np
import pytest

from explorer.widgets.column_fit import EXACT_UP_TO, widest_texts
from explorer.widgets.number_text import format_number


@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e-6, 1e3, 1e5, 1e-120, 1e120])
@pytest.mark.parametrize("signs", ["mixed", "positive", "negative"])
def test_the_bound_is_at_least_as_long_as_every_text(scale, signs):
    rng = np.random.default_rng(7)
    block = rng.standard_normal((EXACT_UP_TO // 50 + 10, 50)) * scale
    if signs == "positive":
        block = np.abs(block)
    elif signs == "negative":
        block = -np.abs(block)
    block[1, 2] = 0.0  # zeros are short and do not stand for the smallest magnitude
    assert block.size > EXACT_UP_TO  # the bounded path, not the exact one
    longest = max(len(format_number(v, 4)) for v in block.ravel().tolist())
    assert max(map(len, widest_texts(block))) >= longest


def test_an_all_zero_block_still_gives_a_text():
    block = np.zeros((EXACT_UP_TO + 1, 1))
    assert widest_texts(block)
