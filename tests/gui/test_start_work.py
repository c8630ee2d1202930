"""What the start-up does (issue 18, second pass): counted and checked, never timed.

The Readout, built just after the first paint, is painted first in its final layout (it was painted
once unlaid out, then again); at a start-up the libraries load with garbage collection paused, then
frozen, and collection resumes (a process that already ran keeps collecting its garbage); OpenBLAS
is asked for one thread before NumPy loads, unless the person said otherwise.
"""
import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from explorer.gc_pause import paused_collection

ROOT = Path(__file__).resolve().parents[2]


class ReadoutFirstPaint(QObject):
    """The Readout's size and its plots' layout when each plot's viewport is first painted."""

    def __init__(self, window):
        super().__init__()
        self.window, self.seen = window, {}

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and self.window.panels.is_built("readout"):
            readout = self.window.panels["readout"]
            for plot in (readout.bars, readout.plane):
                if obj is plot and plot not in self.seen:
                    self.seen[plot] = (readout.size().toTuple(), plot.size().toTuple(), plot.data_rect().getRect())
        return False


def test_the_readout_is_first_painted_laid_out(qtbot, home):
    from explorer.main_window import MainWindow

    window = MainWindow(persist_layout=False, recovery=False)
    qtbot.addWidget(window, before_close_func=lambda w: w.model.undo_stack.setClean())
    window.resize(1600, 1000)
    watch = ReadoutFirstPaint(window)
    QApplication.instance().installEventFilter(watch)
    try:
        window.show()
        qtbot.waitUntil(lambda: len(watch.seen) == 2)
        for _ in range(10):
            QApplication.processEvents()
        window.grab()
    finally:
        QApplication.instance().removeEventFilter(watch)
    readout = window.panels["readout"]
    for plot in (readout.bars, readout.plane):
        assert watch.seen[plot] == (readout.size().toTuple(), plot.size().toTuple(), plot.data_rect().getRect())


def test_a_process_that_already_ran_keeps_collecting_its_garbage():
    """Here NumPy and pyqtgraph are loaded already (as in tests or a script): garbage waiting to be
    collected is not frozen for good by a later import of the window."""
    import weakref

    class Held:
        pass

    cycle = Held()
    cycle.me = cycle  # garbage only a collection frees
    alive = weakref.ref(cycle)
    del cycle
    frozen = gc.get_freeze_count()
    with paused_collection():
        assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    gc.collect()
    assert alive() is None


CHILD = """
import gc, json, os
from PySide6.QtWidgets import QApplication
seen = {}
real_disable = gc.disable
gc.disable = lambda: (seen.setdefault("paused", True), real_disable())
import explorer.main_window
from threadpoolctl import threadpool_info
blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
print(json.dumps({"paused": seen.get("paused", False), "enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                  "blas": blas, "env": os.environ.get("OPENBLAS_NUM_THREADS")}))
"""


def child(env_extra):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env.update(env_extra, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_fresh_start_loads_the_libraries_frozen_with_one_blas_thread():
    seen = child({})
    assert seen["paused"] and seen["enabled"] and seen["frozen"] > 10_000  # NumPy's, pyqtgraph's, the explorer's
    assert seen["env"] == "1" and seen["blas"] and set(seen["blas"]) == {1}


def test_a_blas_thread_count_of_the_persons_own_is_kept():
    seen = child({"OPENBLAS_NUM_THREADS": "2"})
    assert seen["env"] == "2" and set(seen["blas"]) == {2}


def test_the_models_package_alone_leaves_numpys_threads_to_the_person():
    """From a notebook, ``import explorer.models`` first must not hold the person's own NumPy to one thread."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env.update(PYTHONPATH=str(ROOT))
    code = "import os, explorer.models, numpy; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "None"
