"""How fast a session file that cannot be one is refused, next to what parsing it would cost.

No Qt: ``python -m benchmarks.session_refusal`` writes three files to a temporary folder and
times ``load_session`` on each (median of ``--repeats``), and ``json.loads`` of the same bytes,
which is what refusing the first two cost before the pre-scan knew a top-level list and depth:

- a 64 MiB JSON array of arrays (rows of 512 numbers): "holds a list, not an object";
- a deeply nested file (an object: 32 MiB of rows, then 1000 nested lists): "nested too deeply";
- a valid 4096 × 512 session (Q, K, V; about 120 MiB): loaded, for the pre-scan's share.

It prints times and ratios only; nothing here, and no test, asserts on time.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: make ``explorer`` importable
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.core.errors import SessionError  # noqa: E402
from explorer.core.session import Session, load_session, save_session  # noqa: E402
from explorer.core.session_prescan import prescan  # noqa: E402

MiB = 2 ** 20


def array_of_arrays(size: int, cols: int = 512) -> bytes:
    """A JSON list of rows of ``cols`` random numbers, about ``size`` bytes."""
    row = "[" + ",".join(map(repr, np.random.default_rng(0).standard_normal(cols).tolist())) + "]"
    return ("[" + ",".join([row] * (size // (len(row) + 1))) + "]").encode()


def deeply_nested(levels: int = 1000, size: int = 32 * MiB) -> bytes:
    """An object whose first field holds ``size`` bytes of rows, then ``levels`` nested lists:
    the parser reads the rows before it meets the depth."""
    return (b'{"title": ' + array_of_arrays(size) + b', "layout": ' + b"[" * levels
            + b"]" * levels + b"}")


def median_time(fn, repeats: int) -> tuple[float, str]:
    """The median seconds of ``fn()`` and what it ended with (its SessionError, or "loaded")."""
    times, outcome = [], ""
    for _ in range(repeats):
        t0 = time.perf_counter()
        try:
            fn()
            outcome = "loaded"
        except SessionError as e:
            outcome = str(e)
        except RecursionError:
            outcome = "RecursionError"
        times.append(time.perf_counter() - t0)
    return statistics.median(times), outcome


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--L", type=int, default=4096)
    p.add_argument("--d", type=int, default=512)
    a = p.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="session-refusal-"))
    files = {"64 MiB array of arrays": array_of_arrays(64 * MiB),
             "deeply nested (1000 levels after 32 MiB)": deeply_nested()}
    paths = {name: folder / f"file{i}.json" for i, name in enumerate(files)}
    for name, data in files.items():
        paths[name].write_bytes(data)
    rng = np.random.default_rng(1)
    valid = Session(tuple(f"t{i}" for i in range(a.L)),
                    {m: rng.standard_normal((a.L, a.d)) for m in "QKV"})
    valid_path = folder / "valid.json"
    save_session(valid, valid_path)

    print(f"# session refusal, median of {a.repeats}; json.loads = parsing the same bytes whole")
    print(f"{'file':40s} {'size':>9s} {'load_session':>13s} {'json.loads':>11s} {'ratio':>7s}  message")
    for name, data in files.items():
        refuse_s, message = median_time(lambda: load_session(paths[name]), a.repeats)
        parse_s, _ = median_time(lambda: json.loads(data), a.repeats)
        print(f"{name:40s} {len(data) / MiB:6.1f} MiB {1000 * refuse_s:10.0f} ms "
              f"{1000 * parse_s:8.0f} ms {parse_s / refuse_s:6.1f}×  {message.split(': ', 1)[1]}")
    data = valid_path.read_bytes()
    load_s, outcome = median_time(lambda: load_session(valid_path), a.repeats)
    prescan_s, _ = median_time(lambda: prescan(data, "valid.json"), a.repeats)
    print(f"{f'valid {a.L} × {a.d} session (Q, K, V)':40s} {len(data) / MiB:6.1f} MiB "
          f"{1000 * load_s:10.0f} ms {'':>11s} {'':>7s}  {outcome}; the pre-scan's share "
          f"{1000 * prescan_s:.0f} ms ({100 * prescan_s / load_s:.0f} %)")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
