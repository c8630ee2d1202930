"""The reference counts of None and True, for the tests that guard the PySide6 pin against a leak.

PySide6 6.12.0 on Python < 3.12 decrements None once per signal delivered to a Python slot, until the
interpreter aborts ("none_dealloc"). From Python 3.12 on, None and True are immortal (PEP 683): their
counts are fixed, sys.getrefcount reports a constant, and a drop can no longer be seen — nor can it
happen. There a refcount check would pass whatever PySide6 did, so it is skipped, not run.
"""
import gc
import sys

import pytest

NONE_IS_IMMORTAL = sys.version_info >= (3, 12)
IMMORTAL_REASON = ("None and True are immortal on Python >= 3.12 (PEP 683): their reference counts "
                   "never change, so a leak of them can be neither seen nor suffered")
needs_mortal_none = pytest.mark.skipif(NONE_IS_IMMORTAL, reason=IMMORTAL_REASON)


def refcounts():
    """(refcount of None, refcount of True), after a garbage collection."""
    gc.collect()
    return sys.getrefcount(None), sys.getrefcount(True)


def assert_none_and_true_kept(before, after, slack=100):
    """Neither count dropped by more than ``slack`` between ``before`` and ``after`` (from refcounts())."""
    assert after[0] >= before[0] - slack, f"None lost {before[0] - after[0]} references"
    assert after[1] >= before[1] - slack, f"True lost {before[1] - after[1]} references"
