"""How close the window's numbers must be to the core's.

The model updates a few rows or columns in place after a small edit, where the core recomputes
every cell; the two round differently in the last bit or two, so "equal" means within 1e-12.
"""
import numpy as np

RTOL, ATOL = 1e-12, 1e-15


def assert_same_numbers(actual, desired, err_msg=""):
    np.testing.assert_allclose(actual, desired, rtol=RTOL, atol=ATOL, err_msg=err_msg)
