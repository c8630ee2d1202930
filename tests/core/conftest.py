"""Fixtures shared by the core tests."""
from concurrent.futures import ThreadPoolExecutor

import pytest

from explorer.core import head_steps as hs


@pytest.fixture(params=[1, 2, 3], ids=lambda n: f"{n}-lanes")
def sharing(request, monkeypatch):
    """A recompute's keyword arguments for 1, 2 or 3 lanes, with blocks of a few rows (several bands, one
    per lane) so the bands' hand-off is exercised on small sessions."""
    monkeypatch.setattr(hs, "BLOCK_CELLS", 64)
    lanes = request.param
    if lanes == 1:
        yield {}
        return
    with ThreadPoolExecutor(lanes - 1) as pool:
        yield {"executor": pool, "lanes": lanes}
