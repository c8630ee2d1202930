"""The longest pause of the GUI thread during each of a list of edits: a 2-ms heartbeat timer runs, each edit
is made, the panels are waited for, and the longest gap between two beats around the edit is its block.
Shared by ``panel_work`` and ``view_work``."""
from __future__ import annotations

import numpy as np

from benchmarks._util import now


def longest_blocks(window, actions, done, settle_s, heartbeat_ms=2, before_each=None):
    """For each (kind, act) of ``actions``: act, wait until ``done()`` and ``settle_s`` more, then the next.
    Returns [{"kind", "longest_block_ms", "edit_to_panels_s"}]; ``before_each()`` runs before each act."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    model = window.model
    beats, runs = [], []
    loop = QEventLoop()
    heart = QTimer()
    heart.setTimerType(Qt.TimerType.PreciseTimer)
    heart.setInterval(heartbeat_ms)
    heart.timeout.connect(lambda: beats.append(now()))

    def step():
        if len(runs) == len(actions):
            loop.quit()
            return
        kind, act = actions[len(runs)]
        runs.append({"kind": kind, "t0": now(), "t1": None})
        if before_each is not None:
            before_each()
        act()
        QTimer.singleShot(50, wait)

    def wait():
        r = runs[-1]
        if model.pending or not done():
            QTimer.singleShot(20, wait)
            return
        window.grab()
        if r.get("t_done") is None:
            r["t_done"] = now()
        if now() - r["t_done"] < settle_s:
            QTimer.singleShot(20, wait)
            return
        r["t1"] = now()
        QTimer.singleShot(200, step)

    heart.start()
    QTimer.singleShot(300, step)
    QTimer.singleShot(900_000, loop.quit)
    loop.exec()
    heart.stop()
    beats = np.array(beats)
    out = []
    for r in runs:
        inside = beats[(beats >= r["t0"] - 0.05) & (beats <= (r["t1"] or now()))]
        out.append({"kind": r["kind"], "longest_block_ms": round(float(np.diff(inside).max() * 1000), 1),
                    "edit_to_panels_s": round((r.get("t_done") or now()) - r["t0"], 3)})
    return out
