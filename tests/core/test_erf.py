"""The array error function (Cody 1969) against Python's math.erf, number by number."""
import math

import numpy as np

from explorer.core.erf import erf


def test_agrees_with_math_erf_everywhere():
    xs = np.concatenate([np.linspace(-30, 30, 60001), np.random.default_rng(0).standard_normal(20000) * 3,
                         [0.0, 0.46875, -0.46875, 4.0, -4.0, 26.543, 1e-300, 5e-324, -1e-20]])
    want = np.array([math.erf(v) for v in xs])
    np.testing.assert_allclose(erf(xs), want, rtol=1e-15, atol=3e-16)


def test_special_values():
    assert erf(np.array([np.inf]))[0] == 1.0 and erf(np.array([-np.inf]))[0] == -1.0
    assert np.isnan(erf(np.array([np.nan]))[0])
    assert math.copysign(1.0, erf(np.array([-0.0]))[0]) == -1.0  # erf is odd: −0 stays −0
    assert erf(np.zeros((2, 3))).shape == (2, 3)
