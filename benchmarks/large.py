"""③ L = 4096 stays usable: the longest GUI-thread block during an edit, peak memory, the editor's tables.

``--part window`` (its own process, so nothing else inflates its peak RSS): open the window at
L = 4096, d = 64, 8 heads; then, with a 2-ms heartbeat QTimer running, make one edit the way the
editor's table makes it and wait until the window is painted; then a second edit the same way
(the first edit after opening pays for growing the process: the kernel maps and zeroes fresh pages). The longest gap between heartbeats
is how long the GUI thread could not answer (a person's clicks and keys wait that long). Peak RSS
is VmHWM (resource.ru_maxrss without /proc) over opening and editing, and again for the edit
alone (VmHWM restarted through /proc/self/clear_refs), compared with the bytes of the (H, L, L) float64
arrays the model must hold: scores and weights, 2·H·L²·8 bytes.

``--part tables``: the editor panel (its Q, K, V tables) built, shown and painted for a session of
L = 4096 tokens and D = 768, the size researchers paste; then scrolled to the far corner and
painted again.

``python -m benchmarks.large --part window`` prints one BENCH_JSON line.
"""
from __future__ import annotations

import argparse
import gc
import resource

import numpy as np

from benchmarks._util import emit, now, qapp, reset_peak_rss, settle, vm_status


# A Q cell (one row of one head, updated in place), a temperature step (every head again, on the
# worker thread) and a K cell (one head whole).
EDIT_KINDS = ("Q cell", "temperature", "K cell")


def measure_window(length, dim, heads, seed, n_edits=len(EDIT_KINDS), heartbeat_ms=2):
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    from explorer.core.presets import random_session
    from explorer.main_window import MainWindow

    app = qapp()  # imports and QApplication are in the baseline, not in the window
    gc.collect()
    baseline = vm_status("VmRSS")
    t0 = now()
    window = MainWindow(random_session(length, dim, seed), persist_layout=False, recovery=False)
    window.resize(1600, 1000)
    window.show()
    settle(app)
    window.grab()
    open_s = now() - t0  # as opened: 1 head (the session's setting); results still computing, covered
    window.model.flush()
    settle(app)
    window.grab()
    open_results_s = now() - t0  # … and with its results on screen
    t0 = now()
    window.model.set_param("heads", heads)
    window.model.flush()
    settle(app)
    window.grab()
    heads_s = now() - t0
    model = window.model
    peak_open = vm_status("VmHWM")
    rss_before_edit = vm_status("VmRSS")
    edit_peak_known = reset_peak_rss()  # from here VmHWM is the peak of the edit alone

    beats = []
    edits = []  # per edit: t_edit, t_changed, t_screen, rusage before and after
    loop = QEventLoop()
    heart = QTimer()
    heart.setTimerType(Qt.TimerType.PreciseTimer)
    heart.setInterval(heartbeat_ms)
    heart.timeout.connect(lambda: beats.append(now()))

    def edit():
        row = len(edits) + 1
        kind = EDIT_KINDS[len(edits) % len(EDIT_KINDS)]
        edits.append({"kind": kind, "t_edit": now(), "t_changed": None, "t_screen": None,
                      "ru0": resource.getrusage(resource.RUSAGE_SELF)})
        if kind == "temperature":  # what the controls' slider does: every head's softmax and output again
            model.set_param("temperature", model.settings.temperature + 0.25)
            return
        tab = window.panels["editor"].tables[kind[0]]
        value = float(model.matrix(kind[0])[row, 0]) + 0.5
        if not tab.setData(tab.index(row, 0), repr(value)):
            raise RuntimeError("the editor refused the edit")

    def on_changed(flags):
        e = edits[-1] if edits else None
        if e is not None and e["t_changed"] is None:
            e["t_changed"] = now()
            QTimer.singleShot(0, painted)

    def painted():
        window.grab()
        e = edits[-1]
        e["t_screen"] = now()
        e["ru1"] = resource.getrusage(resource.RUSAGE_SELF)
        # a little more heartbeat after the paint, then the next edit or the end
        QTimer.singleShot(200, edit if len(edits) < n_edits else loop.quit)

    model.changed.connect(on_changed)
    heart.start()
    QTimer.singleShot(200, edit)
    QTimer.singleShot(900_000, loop.quit)
    loop.exec()
    heart.stop()
    if len(edits) < n_edits or edits[-1]["t_screen"] is None:
        raise RuntimeError("an edit never reached the screen")
    beats = np.array(beats)
    per_edit = []
    for e in edits:
        inside = beats[(beats >= e["t_edit"] - 0.1) & (beats <= e["t_screen"] + 0.15)]
        ru0, ru1 = e["ru0"], e["ru1"]
        per_edit.append({
            "kind": e["kind"],
            "edit_to_pixels_s": e["t_screen"] - e["t_edit"],
            "edit_to_changed_s": e["t_changed"] - e["t_edit"],
            "longest_block_ms": float(np.diff(inside).max() * 1000),
            "user_s": ru1.ru_utime - ru0.ru_utime, "sys_s": ru1.ru_stime - ru0.ru_stime,
            "minor_faults": ru1.ru_minflt - ru0.ru_minflt,
        })
    idle = np.diff(beats[beats < edits[0]["t_edit"]]) * 1000

    arrays = 2 * heads * length * length * 8
    peak_edit = vm_status("VmHWM") if edit_peak_known else None
    peak = max(peak_open, peak_edit or 0)
    return {
        "L": length, "d": dim, "heads": heads,
        "open_s": open_s, "open_results_s": open_results_s, "set_heads_s": heads_s,
        "edits": per_edit,
        "edit_to_pixels_s": max(e["edit_to_pixels_s"] for e in per_edit),
        "longest_block_ms": max(e["longest_block_ms"] for e in per_edit),
        "heartbeat_ms": heartbeat_ms,
        "idle_longest_gap_ms": float(idle.max()) if len(idle) else None,
        "baseline_rss": baseline,
        "peak_rss": peak,
        "peak_rss_opening": peak_open,
        "rss_before_edit": rss_before_edit,
        "peak_rss_edit": peak_edit,
        "rss_after": vm_status("VmRSS"),
        "model_arrays_bytes": arrays,
        "peak_over_arrays": peak / arrays,
    }


def measure_tables(length, dim, seed):
    from explorer.core.presets import random_session
    from explorer.model import AttentionModel
    from explorer.panels.editor import EditorPanel

    app = qapp()
    model = AttentionModel(random_session(length, dim, seed))
    settle(app)
    t0 = now()
    panel = EditorPanel(model)
    panel.resize(640, 450)
    panel.show()
    settle(app)
    panel.grab()
    open_ms = 1000 * (now() - t0)
    view = panel.views["Q"]
    t0 = now()
    view.scrollToBottom()
    view.horizontalScrollBar().setValue(view.horizontalScrollBar().maximum())
    settle(app)
    panel.grab()
    scroll_ms = 1000 * (now() - t0)
    t0 = now()
    view.setCurrentIndex(panel.tables["Q"].index(length - 1, dim - 1))
    settle(app)
    panel.grab()
    select_ms = 1000 * (now() - t0)
    return {"L": length, "d": dim, "open_ms": open_ms, "scroll_corner_ms": scroll_ms, "select_cell_ms": select_ms,
            "rows": panel.tables["Q"].rowCount(), "cols": panel.tables["Q"].columnCount()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("window", "tables"), default="window")
    p.add_argument("--L", type=int, default=4096)
    p.add_argument("--d", type=int, default=None, help="default: 64 for the window, 768 for the tables")
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--edits", type=int, default=len(EDIT_KINDS), help="edits watched one after another (the first is the slowest)")
    a = p.parse_args(argv)
    if a.part == "window":
        emit(measure_window(a.L, a.d or 64, a.heads, a.seed, n_edits=a.edits))
    else:
        emit(measure_tables(a.L, a.d or 768, a.seed))


if __name__ == "__main__":
    main()
