"""④ Start-up to the first painted window, against an empty pyqtgraph window, in fresh processes.

Each run is ``python -c CODE``: the clock starts before the process is spawned and stops when the
child has grabbed (painted) its 1600×1000 window; the child reports its monotonic time stamps
(``time.perf_counter`` is CLOCK_MONOTONIC on Linux: one clock for parent and child), so the
interpreter's teardown is not counted. The app child does what ``explorer.app.main`` does before
the event loop — QApplication, style, ``MainWindow`` with the chapter's demo, show — with
``persist_layout=False, recovery=False`` so no user setting or recovery file is read or written.
Panels behind tabs are not built at start; every panel on screen is built as the window is shown.
``complete`` also times the events after the first grab until every panel on screen is drawn, and
a second grab (the window as the user sees it a moment later).
Runs alternate app / empty; the medians of each are reported, and ``ratio`` is the median of each round's
app ÷ the empty window started next to it (a host that slows for a while slows both sides of a round).
Byte-code is cached (under the temp folder, ``PYTHONPYCACHEPREFIX``) as it is for an installed app; the
warm-up run writes the cache.

Offscreen, "painted" ends with ``grab()``, which paints the whole window once more after the event
processing has painted it (cheap for an empty window, a second full paint for the app), and "complete"
with a second ``grab()``. ``--screen`` (issue 18) runs every start on a private Xvfb instead, as a
person sees it: each side's clock stops when its window's first paint is on the screen (pixels read
back from the X server, ``QScreen.grabWindow``), and "complete" when no paint is left to do after every
panel on screen was built, read back again — for both windows alike. The paints are watched on the
window alone (its expose and its UpdateRequests), not by a filter on every event of the application,
which cost the app ~7 ms that the empty window, with ~60 events, did not pay.

``python -m benchmarks.startup --runs 5 [--screen]`` prints one BENCH_JSON line.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._util import ROOT, emit, median, offscreen_env, xvfb

APP = """
import time; t_start = time.perf_counter()
from explorer.main_window import MainWindow
from PySide6.QtWidgets import QApplication
from explorer.style import apply_style
t_import = time.perf_counter()
app = QApplication([])
apply_style(app)
w = MainWindow(None, persist_layout=False, recovery=False)
w.resize(1600, 1000)
t_built = time.perf_counter()
w.show(); app.processEvents(); w.grab()
t_painted = time.perf_counter()
deadline = t_painted + 10
while w.waiting_panels() and time.perf_counter() < deadline:
    app.processEvents()
app.processEvents(); w.grab()
t_complete = time.perf_counter()
import json, os, sys
print(json.dumps(dict(start=t_start, imported=t_import, built=t_built, painted=t_painted, complete=t_complete)))
sys.stdout.flush(); os._exit(0)  # teardown is not start-up (and is not timed)
"""

# On a real screen (--screen): the window's repaints are watched, and the pixels read back from the X server.
# A widget window paints in two ways only: the platform asks its QWindow to paint (an expose: the first
# paint), or a widget marked itself dirty and the top-level widget gets an UpdateRequest, in which Qt
# paints whatever is dirty (every later paint). The watch counts those two on the window itself, so it
# sees ~100 events per start where a filter on the application saw every event of every widget
# (~5 300 for the app, ~60 for the empty window: ~7 ms charged to the app for the benchmark's own watch).
SCREEN_TOOLS = """
import time
from PySide6.QtCore import QEvent, QObject
class PaintWatch(QObject):
    KINDS = (QEvent.Type.Paint, QEvent.Type.UpdateRequest)
    def __init__(self, window):
        super().__init__(); self.window, self.paints, self.exposed = window, 0, 0
    def watch(self):
        self.window.installEventFilter(self)  # UpdateRequest: the window paints what is dirty
        self.window.winId()  # (its QWindow exists from here)
        self.window.windowHandle().installEventFilter(self)  # Paint: the platform asks for a paint
    def eventFilter(self, obj, event):
        if event.type() in self.KINDS:
            self.paints += 1
            self.exposed += obj is not self.window  # the QWindow's: the platform's paint
        return False
def first_paint(app, window, watch, limit=10.0):
    deadline = time.perf_counter() + limit
    while watch.exposed == 0 and time.perf_counter() < deadline:
        app.processEvents()
def settle(app, watch, limit=10.0):
    deadline, quiet = time.perf_counter() + limit, 0
    while quiet < 2 and time.perf_counter() < deadline:  # two turns in a row that paint nothing
        before = watch.paints
        app.processEvents()
        quiet = quiet + 1 if watch.paints == before else 0
def read_back(window):
    window.screen().grabWindow(window.winId())
def shown_and_drawn(app, w, t_start, t_import, waiting=lambda: ()):
    # place and show w, time its first paint and its last paint once waiting() is empty (every panel on
    # screen built), print the marks and end the process
    w.resize(1600, 1000)
    w.move(0, 0)
    t_built = time.perf_counter()
    watch = PaintWatch(w); watch.watch()
    w.show(); first_paint(app, w, watch); read_back(w)
    t_painted = time.perf_counter()
    deadline = t_painted + 10
    while waiting() and time.perf_counter() < deadline:
        app.processEvents()
    settle(app, watch); read_back(w)
    t_complete = time.perf_counter()
    import json, os, sys
    print(json.dumps(dict(start=t_start, imported=t_import, built=t_built, painted=t_painted, complete=t_complete)))
    sys.stdout.flush(); os._exit(0)
"""

# Each child's own imports come first, in the order its program makes them (the tools import Qt)
APP_SCREEN = """
import time; t_start = time.perf_counter()
from explorer.main_window import MainWindow
from PySide6.QtWidgets import QApplication
from explorer.style import apply_style
t_import = time.perf_counter()
""" + SCREEN_TOOLS + """
app = QApplication([])
apply_style(app)
w = MainWindow(None, persist_layout=False, recovery=False)
shown_and_drawn(app, w, t_start, t_import, waiting=w.waiting_panels)
"""

EMPTY_SCREEN = """
import time; t_start = time.perf_counter()
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication
t_import = time.perf_counter()
""" + SCREEN_TOOLS + """
app = QApplication([])
w = pg.GraphicsLayoutWidget()
shown_and_drawn(app, w, t_start, t_import)
"""

EMPTY = """
import time; t_start = time.perf_counter()
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication
t_import = time.perf_counter()
app = QApplication([])
w = pg.GraphicsLayoutWidget()
w.resize(1600, 1000)
t_built = time.perf_counter()
w.show(); app.processEvents(); w.grab()
t_painted = time.perf_counter()
import json, os, sys; print(json.dumps(dict(start=t_start, imported=t_import, built=t_built, painted=t_painted)))
sys.stdout.flush(); os._exit(0)  # teardown is not start-up (and is not timed)
"""


def one_run(code, display=None):
    env = offscreen_env(display=display)
    # Byte-code as an installed app has it: cached (the warm-up run writes it), but under the temp
    # folder rather than next to the sources, and even where PYTHONDONTWRITEBYTECODE is set.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "attention-explorer-bench" / "pycache")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    stamps = json.loads(out.stdout.strip().splitlines()[-1])
    return {"total": stamps["painted"] - t0, "interpreter": stamps["start"] - t0,
            "imports": stamps["imported"] - stamps["start"], "build": stamps["built"] - stamps["imported"],
            "paint": stamps["painted"] - stamps["built"],
            "complete": stamps.get("complete", stamps["painted"]) - t0}


def measure(runs, warmup=1, display=None):
    kinds = {"app": APP_SCREEN, "empty": EMPTY_SCREEN} if display else {"app": APP, "empty": EMPTY}
    samples = {k: [] for k in kinds}
    for r in range(warmup + runs):
        order = list(kinds) if r % 2 == 0 else list(kinds)[::-1]
        for kind in order:
            result = one_run(kinds[kind], display)
            if r >= warmup:
                samples[kind].append(result)
    summary = {"runs": runs, "screen": bool(display)}
    for kind, rs in samples.items():
        summary[kind] = {key: median([r[key] for r in rs]) for key in rs[0]}
        summary[kind]["all_total"] = [round(r["total"], 3) for r in rs]
    # Each round's app ÷ the empty window started next to it (the two share whatever the host is doing then):
    # first paint ÷ first paint, and every panel drawn ÷ the empty window's "complete" — its one picture, settled
    # and read back a second time as the app's is (both clocks then count the same two read-backs)
    pairs = list(zip(samples["app"], samples["empty"]))
    summary["ratios"] = {key: [round(app[key] / empty[key], 3) for app, empty in pairs] for key in ("total", "complete")}
    summary["ratio"] = {key: median(values) for key, values in summary["ratios"].items()}
    return summary


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--screen", action="store_true", help="start on a private Xvfb, pixels read back from the screen")
    a = p.parse_args(argv)
    if a.screen:
        with xvfb() as display:
            emit(measure(a.runs, display=display))
    else:
        emit(measure(a.runs))


if __name__ == "__main__":
    main()
