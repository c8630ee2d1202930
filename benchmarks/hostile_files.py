"""How long ``load_session`` takes to refuse hostile session files: the one-second promise of
docs/reliability.md, measured here because tests never assert on time.

    .venv/bin/python -m benchmarks.hostile_files            # prints one JSON answer (see benchmarks/_util.py)
    .venv/bin/python -m benchmarks.run --only hostile       # the same as a table

The files are the tests' own (no Qt is needed to refuse them): the multi-megabyte kinds under the cap of
``tests/core/test_reliability_loader.py`` (each timed ``--repeats`` times, the median kept), sparse files
over the cap, 400,000 levels of nesting, and the seeded damaged files of
``tests/gui/test_reliability_files.py`` (each loaded once; the slowest of each kind kept).
"""
from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks._util import emit
from explorer.core.errors import SessionError
from explorer.core.session import MAX_FILE_BYTES, load_session
from tests.core.test_reliability_loader import BASES, HUGE_UNDER_THE_CAP
from tests.gui.test_reliability_files import SEED, hostile_bytes

LIMIT_S = 1.0  # docs/reliability.md: every hostile file is refused in under a second


def seconds_to_load(path: Path) -> float:
    start = time.perf_counter()
    try:
        load_session(path)
    except SessionError:
        pass
    return time.perf_counter() - start


def sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        f.write(b"{")
        f.truncate(size)  # huge on paper, nothing on disk
    return path


def measure(repeats: int) -> dict:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        def timed(kind, contents, repeat):
            path = folder / "hostile.json"
            path.write_bytes(contents)
            rows.append(dict(kind=kind, files=1, bytes=len(contents),
                             seconds=statistics.median(seconds_to_load(path) for _ in range(repeat))))

        for kind, make in sorted(HUGE_UNDER_THE_CAP.items()):
            timed(f"huge: {kind}", make(), repeats)
        timed("nesting: 400,000 levels", b"[" * 400_000, repeats)
        timed("nesting: 400,000 levels in a field", BASES[0].replace(
            b'"layout": null', b'"layout": ' + b'{"a":' * 400_000), repeats)
        for size in (MAX_FILE_BYTES + 1, 2 ** 40):
            path = sparse(folder / "sparse.json", size)
            rows.append(dict(kind=f"over the cap: sparse {size:,} bytes", files=1, bytes=size,
                             seconds=statistics.median(seconds_to_load(path) for _ in range(repeats))))
        for kind, contents in hostile_bytes(random.Random(SEED)).items():
            slowest, biggest = 0.0, 0
            for data in contents:
                path = folder / "hostile.json"
                path.write_bytes(data)
                slowest, biggest = max(slowest, seconds_to_load(path)), max(biggest, len(data))
            rows.append(dict(kind=f"damaged: {kind} (slowest)", files=len(contents), bytes=biggest,
                             seconds=slowest))
    return dict(rows=rows, limit_s=LIMIT_S, repeats=repeats)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3, help="loads of each huge file; the median is kept")
    emit(measure(p.parse_args(argv).repeats))


if __name__ == "__main__":
    main()
