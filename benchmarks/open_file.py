"""⑥ Opening a large session file through File ▸ Open: is the window ever frozen, reading included?

A 4096 × 512 session with 8 heads (``--L``, ``--d``, ``--heads``) is saved twice, as JSON (~124 MB)
and in the binary form (``.aesz``, ~48 MB), then opened alternately with ``Documents.open`` into the
shown default window while a 2-ms heartbeat runs on the GUI thread. Measured per open, from the call:
when the new session is shown (its tables, settings; ``model.loads`` moves), when its first results
are on screen (the selected head's scores and weights, drawn from the worker's partial result and
uncovered: issue 18), when every heatmap has drawn its results, and the longest gap between
heartbeats (= the longest time the GUI thread was blocked) over the whole open, reading the file
included, and how long the one GUI-thread turn that hands the read session to the window (model,
editor tables, controls) takes. For comparison, ``load_session`` of each file as the window did it
before issue 18, on the GUI thread: how long it froze the window.

``python -m benchmarks.open_file`` prints one BENCH_JSON line.
"""
from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path

import numpy as np

from benchmarks._util import build_window, emit, median, now, qapp, settle

HEATMAPS = ("scores", "weights", "output")
FIRST = ("scores", "weights")  # the selected head's ① and ②: drawn before the other heads are made


def open_once(app, window, path, length, timeout_s=120.0, heartbeat_ms=2):
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    model = window.model
    loads0 = model.loads
    st = {"beats": [], "shown": None, "first": None, "results": None}
    loop = QEventLoop()

    def beat():
        t = now()
        st["beats"].append(t)
        if st["shown"] is None and model.loads != loads0 and len(model.tokens) == length:
            st["shown"] = t
        if st["shown"] is not None and st["first"] is None and all(
                window.panels[name].drawn_load == model.loads and not window.covers.is_up(name) for name in FIRST):
            st["first"] = t
        if (st["shown"] is not None and not model.pending and all(
                window.panels[name].drawn_load == model.loads for name in HEATMAPS)):
            st["results"] = t
            loop.quit()

    heart = QTimer()
    heart.setTimerType(Qt.TimerType.PreciseTimer)
    heart.setInterval(heartbeat_ms)
    heart.timeout.connect(beat)
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    documents = window.documents
    shows = []

    def timed_show(*args, _show=type(documents)._show_opened):
        t = now()
        _show(documents, *args)
        shows.append(now() - t)

    documents._show_opened = timed_show  # this process only: how long handing the session over takes
    from explorer.widgets import heatmap_ticks
    heatmap_ticks._widths_seen.clear()  # the labels measured as a new file's are (the same file is reopened)
    heart.start()
    t0 = now()
    st["beats"].append(t0)
    if not window.documents.open(path, ask=False):
        raise RuntimeError(f"{path} did not open: {window.statusBar().currentMessage()}")
    loop.exec()
    heart.stop()
    del documents._show_opened
    if st["results"] is None:
        raise RuntimeError(f"{path}: no results on screen within {timeout_s} s")
    beats = np.array(st["beats"])
    gaps = np.diff(beats)
    at = beats[1:]
    read = gaps[at <= st["shown"]]
    after = gaps[at > st["shown"]]
    return {"shown_s": st["shown"] - t0, "first_results_after_shown_s": st["first"] - st["shown"],
            "results_s": st["results"] - t0,
            "results_after_shown_s": st["results"] - st["shown"],
            "longest_block_ms": 1000 * float(gaps.max()),
            "show_ms": 1000 * sum(shows),  # the GUI turn handing the read session to the window
            "longest_block_reading_ms": 1000 * float(read.max()) if read.size else 0.0,
            "longest_block_after_shown_ms": 1000 * float(after.max()) if after.size else 0.0}


def measure(length, dim, heads, repeats, seed):
    from explorer.core.presets import random_session
    from explorer.core.session import load_session, save_session

    app = qapp()
    session = random_session(length, dim, seed)
    session = dataclasses.replace(session, settings=dataclasses.replace(session.settings, heads=heads))
    folder = Path(tempfile.mkdtemp(prefix="attention-explorer-bench-open-"))
    paths = {"json": folder / "large.json", "aesz": folder / "large.aesz"}
    for path in paths.values():
        save_session(session, path)
    window = build_window(4, 64, 1, seed)
    window.show()
    settle(app)
    window.grab()
    opens = {kind: [] for kind in paths}
    direct = {kind: [] for kind in paths}
    for r in range(repeats):
        for kind in (list(paths) if r % 2 == 0 else list(paths)[::-1]):
            opens[kind].append(open_once(app, window, paths[kind], length))
            t = now()
            load_session(paths[kind])
            direct[kind].append(now() - t)
            window.model.load(random_session(4, 64, seed))  # back to a small session between opens
            window.model.flush()
            settle(app)
    result = {"L": length, "d": dim, "heads": heads, "repeats": repeats,
              "bytes": {kind: path.stat().st_size for kind, path in paths.items()}}
    for kind in paths:
        runs = opens[kind]
        result[kind] = {key: (max if key.startswith("longest") else median)([run[key] for run in runs])
                        for key in runs[0]}
        result[kind]["load_session_on_gui_thread_s"] = median(direct[kind])
    for path in paths.values():
        path.unlink()
    folder.rmdir()
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--L", type=int, default=4096)
    p.add_argument("--d", type=int, default=512)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    emit(measure(a.L, a.d, a.heads, a.repeats, a.seed))


if __name__ == "__main__":
    main()
